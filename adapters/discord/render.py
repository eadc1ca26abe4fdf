"""Embeds and texts for Discord, laid out from the core's views with bot.text and the catalog."""

from __future__ import annotations

import discord

from bot.i18n import t
from bot.messages import (
    LeaderboardView,
    QuestionView,
    ReceiptView,
    RevealView,
    StandingsView,
    StatsView,
)
from bot.model import QuestionType
from bot.text import (
    Markup,
    question_header,
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
)
CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
QUESTION_COLOUR = discord.Colour.blurple()
REVEAL_COLOUR = discord.Colour.green()


def fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def timestamp(view: QuestionView) -> str:
    """The deadline as a Discord timestamp: every reader sees it in their own time zone."""
    return f"<t:{int(view.closes_at.timestamp())}:R>"


def question_embed(view: QuestionView, *, answers: int = 0, reactions: bool = False) -> discord.Embed:
    lang = view.language
    lines = [MD.escape(view.stem)]
    if view.qtype is not QuestionType.JUDGE and view.options:
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
    return embed


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
