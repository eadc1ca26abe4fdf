"""Embeds and texts for Discord, laid out from the core's views with bot.views.quiz_text and the catalog."""

from __future__ import annotations

import dataclasses
import io

import discord

from bot.application.app import HelpView
from bot.application.replies import DailyReply, FileView, Reply, TextView, WelcomeView
from bot.application.reply_text import render_help, render_reply
from bot.domain.kinds import InputKind
from bot.locales.i18n import t
from bot.views.quiz import (
    ContestStatusView,
    LeaderboardView,
    QuestionView,
    ReceiptView,
    RevealView,
    StandingsView,
    StatsView,
)
from bot.views.quiz_text import (
    Markup,
    question_header,
    render_contest_status,
    render_daily,
    render_leaderboard,
    render_receipt,
    render_reveal,
    render_standings,
    render_stats,
)

MD = Markup(
    escape=discord.utils.escape_markdown,  # mentions never ping: the client allows none
    bold=lambda s: f"**{s}**",
    italic=lambda s: f"*{s}*",
    reads_messages=False,
)
# Discord's limits on what a message may carry; more is refused with 400 Invalid Form Body.
CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FOOTER_MAX = 2048
AUTHOR_MAX = 256
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
EMBED_TOTAL_MAX = 6000
QUESTION_COLOUR = discord.Colour.blurple()
REVEAL_COLOUR = discord.Colour.green()


def fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """The embed within every one of Discord's limits: each text cut to its own, extra fields
    dropped, then the description shortened until the whole is within the 6,000 in all."""
    if embed.title:
        embed.title = fit(embed.title, TITLE_MAX)
    if embed.description:
        embed.description = fit(embed.description, DESCRIPTION_MAX)
    if embed.footer.text:
        embed.set_footer(text=fit(embed.footer.text, FOOTER_MAX), icon_url=embed.footer.icon_url)
    if embed.author.name:
        embed.set_author(name=fit(embed.author.name, AUTHOR_MAX), url=embed.author.url,
                         icon_url=embed.author.icon_url)  # fmt: skip
    fields = embed.fields[:FIELDS_MAX]
    embed.clear_fields()
    for field in fields:
        name, value = fit(field.name or "?", FIELD_NAME_MAX), fit(field.value or "?", FIELD_VALUE_MAX)
        embed.add_field(name=name, value=value, inline=bool(field.inline))
    while len(embed) > EMBED_TOTAL_MAX and embed.fields:
        embed.remove_field(-1)
    excess = len(embed) - EMBED_TOTAL_MAX
    if excess > 0 and embed.description:
        embed.description = fit(embed.description, max(len(embed.description) - excess, 1))
    return embed


def timestamp(view: QuestionView) -> str:
    """The deadline as a Discord timestamp: every reader sees it in their own time zone."""
    return f"<t:{int(view.closes_at.timestamp())}:R>"


def question_embed(view: QuestionView, *, answers: int = 0, reactions: bool = False) -> discord.Embed:
    lang = view.language
    lines = [MD.escape(view.stem)]
    if view.input_kind is not InputKind.TRUE_FALSE and view.options:
        lines.append("")
        lines += [f"{MD.bold(o.label)}. {MD.escape(o.text)}" for o in view.options]
    lines += ["", t(lang, "question.deadline", when=timestamp(view))]
    if reactions:
        lines.append(MD.italic(t(lang, "question.how_react")))
    embed = discord.Embed(
        title=fit(question_header(view), TITLE_MAX),
        description=fit("\n".join(lines), DESCRIPTION_MAX),
        colour=QUESTION_COLOUR,
    )
    if answers:
        embed.set_footer(text=t(lang, "question.answers_so_far", n=answers))
    return fit_embed(embed)


def reveal_embed(view: RevealView) -> discord.Embed:
    return discord.Embed(description=fit(render_reveal(view, MD), DESCRIPTION_MAX), colour=REVEAL_COLOUR)


def standings_embed(view: StandingsView) -> discord.Embed:
    return discord.Embed(description=fit(render_standings(view, MD), DESCRIPTION_MAX), colour=REVEAL_COLOUR)


def leaderboard_embed(view: LeaderboardView) -> discord.Embed:
    return discord.Embed(description=fit(render_leaderboard(view, MD), DESCRIPTION_MAX))


def stats_embed(view: StatsView) -> discord.Embed:
    return discord.Embed(description=fit(render_stats(view, MD), DESCRIPTION_MAX))


def receipt_text(view: ReceiptView) -> str:
    """Practice rounds: grade and explanation; daily and contest rounds: only what was recorded."""
    return fit(render_receipt(view, MD), CONTENT_MAX)


def reply_embed(reply: Reply) -> discord.Embed | None:
    """Boards, stats, standings and questions go in an embed; the rest is plain content."""
    view = reply.view
    if isinstance(view, QuestionView):
        return question_embed(view)
    if isinstance(view, LeaderboardView):
        return leaderboard_embed(view)
    if isinstance(view, StatsView):
        return stats_embed(view)
    if isinstance(view, StandingsView):
        return standings_embed(view)
    if isinstance(view, HelpView):  # the full list is longer than a message's 2,000 characters
        return discord.Embed(description=fit(render_help(view, MD), DESCRIPTION_MAX))
    summary = getattr(view, "summary", None)  # a progress report leads with the person's stats
    if isinstance(summary, StatsView):
        return stats_embed(summary)
    return None


def reply_content(reply: Reply) -> str:
    """The text of a reply that is no embed ("" for one that is)."""
    view = reply.view
    if isinstance(view, QuestionView):  # in its embed; what became of the one before above it
        text = MD.escape(view.lead)
    elif isinstance(view, TextView | WelcomeView):
        text = MD.escape(view.text)
    elif isinstance(view, ContestStatusView):
        text = render_contest_status(view, MD)
    elif isinstance(view, DailyReply):
        text = render_daily(view.daily, reply.language, just_set=view.just_set, m=MD)
    elif reply_embed(reply) is not None and not isinstance(getattr(view, "summary", None), StatsView):
        text = ""
    else:  # any other view (the study tools' among them) as the text platforms lay it out
        if isinstance(getattr(view, "summary", None), StatsView):
            view = dataclasses.replace(view, summary=None)  # type: ignore[type-var]
        text = render_reply(dataclasses.replace(reply, view=view), MD)
    return fit(text, CONTENT_MAX)


def attachment(file: FileView) -> discord.File:
    return discord.File(io.BytesIO(file.data), filename=file.filename, description=file.caption or None)
