"""Admin slash commands (Manage Server): /daily set|off|show and /contest start|stop|status.

Discord hides them from others (default_permissions), and each run checks the member's
permissions again, since a server may grant the commands to anyone."""

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice, Range

from adapters.discord.commands import run
from adapters.discord.render import MD
from adapters.discord.replies import Reply, chat_ref
from adapters.discord.translator import text
from bot.daily_times import parse_duration
from bot.i18n import t
from bot.kinds import AnswerMode
from bot.quiz import QuizError
from bot.text import render_contest_status, render_daily

ADMIN = discord.Permissions(manage_guild=True)
MODES = [Choice(name=text(f"cmd.choice.{m}"), value=str(m)) for m in AnswerMode]


def _optional(value: str | None) -> str | None:
    return (value or "").strip() or None


def install(tree: app_commands.CommandTree, adapter: Any) -> None:
    dailies, contests = adapter.app.dailies, adapter.app.contests

    daily = app_commands.Group(name=text("cmd.daily.name"), description=text("cmd.daily.desc"),
                               guild_only=True, default_permissions=ADMIN)  # fmt: skip

    @daily.command(name=text("cmd.daily.set.name"), description=text("cmd.daily.set.desc"))
    @app_commands.rename(time=text("cmd.opt.time.name"), timezone=text("cmd.opt.timezone.name"),
                         deadline=text("cmd.opt.deadline.name"), tag=text("cmd.opt.tag.name"),
                         mode=text("cmd.opt.mode.name"))  # fmt: skip
    @app_commands.describe(time=text("cmd.opt.time.desc"), timezone=text("cmd.opt.timezone.desc"),
                           deadline=text("cmd.opt.deadline.desc"), tag=text("cmd.opt.tag.desc"),
                           mode=text("cmd.opt.mode.desc"))  # fmt: skip
    @app_commands.choices(mode=MODES)
    async def daily_set(interaction: discord.Interaction, time: str, timezone: str | None = None,
                        deadline: str | None = None, tag: str | None = None,
                        mode: Choice[str] | None = None) -> None:  # fmt: skip
        async def work(lang: str) -> Reply:
            seconds = None
            if _optional(deadline):
                try:
                    seconds = parse_duration(deadline or "")
                except ValueError as exc:
                    raise QuizError("error.bad_args", detail=str(exc)) from None
            view = await dailies.set_daily(
                chat_ref(interaction), time.strip(), timezone=_optional(timezone), deadline_seconds=seconds,
                tag=_optional(tag), mode=AnswerMode(mode.value) if mode else None,
            )  # fmt: skip
            return Reply(render_daily(view, lang, just_set=True, m=MD), ephemeral=False)

        await run(adapter, interaction, work, public=True, admin=True)

    @daily.command(name=text("cmd.daily.off.name"), description=text("cmd.daily.off.desc"))
    async def daily_off(interaction: discord.Interaction) -> None:
        async def work(lang: str) -> Reply:
            if await dailies.disable(chat_ref(interaction)) is None:
                return Reply(MD.escape(t(lang, "daily.none")))
            return Reply(t(lang, "daily.off"), ephemeral=False)

        await run(adapter, interaction, work, public=True, admin=True)

    @daily.command(name=text("cmd.daily.show.name"), description=text("cmd.daily.show.desc"))
    async def daily_show(interaction: discord.Interaction) -> None:
        async def work(lang: str) -> Reply:
            return Reply(render_daily(await dailies.show(chat_ref(interaction)), lang, m=MD))

        await run(adapter, interaction, work, admin=True)

    contest = app_commands.Group(name=text("cmd.contest.name"), description=text("cmd.contest.desc"),
                                 guild_only=True, default_permissions=ADMIN)  # fmt: skip

    @contest.command(name=text("cmd.contest.start.name"), description=text("cmd.contest.start.desc"))
    @app_commands.rename(questions=text("cmd.opt.questions.name"), seconds=text("cmd.opt.seconds.name"),
                         tag=text("cmd.opt.tag.name"))  # fmt: skip
    @app_commands.describe(questions=text("cmd.opt.questions.desc"), seconds=text("cmd.opt.seconds.desc"),
                           tag=text("cmd.opt.tag.desc"))  # fmt: skip
    async def contest_start(interaction: discord.Interaction, questions: Range[int, 1, 100] | None = None,
                            seconds: Range[int, 5, 600] | None = None, tag: str | None = None) -> None:
        async def work(lang: str) -> Reply:
            # Posts the announcement and the first question itself, before this reply.
            status = await contests.start(chat_ref(interaction), questions, seconds, tag=_optional(tag))
            return Reply(render_contest_status(status, MD))

        await run(adapter, interaction, work, admin=True)

    @contest.command(name=text("cmd.contest.stop.name"), description=text("cmd.contest.stop.desc"))
    async def contest_stop(interaction: discord.Interaction) -> None:
        async def work(lang: str) -> Reply:
            if not await contests.stop(chat_ref(interaction)):
                return Reply(t(lang, "contest.not_running"))
            return Reply(render_contest_status(await contests.status(chat_ref(interaction)), MD))

        await run(adapter, interaction, work, admin=True)

    @contest.command(name=text("cmd.contest.status.name"), description=text("cmd.contest.status.desc"))
    async def contest_status(interaction: discord.Interaction) -> None:
        async def work(lang: str) -> Reply:
            return Reply(render_contest_status(await contests.status(chat_ref(interaction)), MD))

        await run(adapter, interaction, work, admin=True)

    tree.add_command(daily)
    tree.add_command(contest)
