"""Console commands for schedules and contests: /daily and /contest, mapped onto core calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.command_args import contest_start_numbers
from bot.contests import Contests
from bot.daily import Dailies
from bot.daily_times import parse_duration
from bot.i18n import t
from bot.quiz import QuizError
from bot.text import render_contest_status, render_daily

if TYPE_CHECKING:
    from adapters.console.adapter import ConsoleAdapter


class ScheduleCommands:
    def __init__(self, console: ConsoleAdapter, dailies: Dailies, contests: Contests) -> None:
        self.console = console
        self.dailies = dailies
        self.contests = contests

    async def daily(self, args: list[str]) -> None:
        """/daily HH:MM [deadline] | /daily off | /daily"""
        console = self.console
        lang = await console.language()
        if not args:
            console.say(render_daily(await self.dailies.show(console.chat), lang))
            return
        if args[0].lower() == "off":
            await self.dailies.disable(console.chat)
            console.say(t(lang, "daily.off"))
            return
        deadline = None
        if len(args) > 1:
            try:
                deadline = parse_duration(args[1])
            except ValueError as exc:
                raise QuizError("error.bad_args", detail=str(exc)) from None
        view = await self.dailies.set_daily(console.chat, args[0], deadline_seconds=deadline)
        console.say(render_daily(view, lang, just_set=True))

    async def contest(self, args: list[str]) -> None:
        """/contest start [N] [SECONDS] | /contest stop | /contest status"""
        console = self.console
        lang = await console.language()
        action = args[0].lower() if args else "status"
        if action == "start":
            n, seconds = contest_start_numbers(args[1:], "/contest start [questions] [seconds]")
            await self.contests.start(console.chat, n, seconds)
        elif action == "stop":
            if not await self.contests.stop(console.chat):
                console.say(t(lang, "contest.not_running"))
        elif action == "status":
            console.say(render_contest_status(await self.contests.status(console.chat)))
        else:
            raise QuizError("error.bad_args", detail="/contest start | stop | status")
