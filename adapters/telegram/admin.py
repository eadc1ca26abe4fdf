"""Group administration: who is an admin (getChatMember, cached a few minutes), and the admin
commands /daily, /contest and /bank mapped onto the core's calls."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from telegram import Chat as TgChat
from telegram import ChatMember
from telegram import User as TgUser
from telegram.error import TelegramError

from adapters.command_args import contest_start_numbers
from adapters.telegram.incoming import Incoming
from bot.daily_times import parse_duration
from bot.i18n import bank_text
from bot.quiz import QuizError
from bot.text import HTML, render_contest_status, render_daily

if TYPE_CHECKING:
    from adapters.telegram.adapter import TelegramAdapter

log = logging.getLogger("studybot.telegram")
ADMIN_STATUSES = (ChatMember.OWNER, ChatMember.ADMINISTRATOR)
DAILY_USAGE = "/daily set HH:MM [12h] [tag] | /daily off | /daily show"
CONTEST_USAGE = "/contest start [questions] [seconds] | /contest stop | /contest status"
BANK_USAGE = "/bank list | /bank use <id>"


class AdminCheck:
    """Admin status per (chat, user) from getChatMember, remembered for `ttl` seconds."""

    def __init__(
        self, adapter: TelegramAdapter, ttl: float = 300.0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.adapter = adapter
        self.ttl = ttl
        self._monotonic = monotonic
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}

    async def is_admin(self, chat: TgChat, user: TgUser | None, sender_chat: TgChat | None = None) -> bool:
        if chat.type == TgChat.PRIVATE:
            return True  # one's own private chat
        if sender_chat is not None and sender_chat.id == chat.id:
            return True  # an anonymous admin, posting as the group itself
        if user is None:
            return False
        key = (chat.id, user.id)
        now = self._monotonic()
        known = self._known.get(key)
        if known is not None and known[1] > now:
            return known[0]
        try:
            member = await self.adapter.bot.get_chat_member(chat.id, user.id)
        except TelegramError as exc:
            log.info("admin check in chat %s failed: %s", chat.id, exc)
            return False
        admin = member.status in ADMIN_STATUSES
        self._known[key] = (admin, now + self.ttl)
        if len(self._known) > 10_000:
            self._known = {k: v for k, v in self._known.items() if v[1] > now}
        return admin


async def daily(incoming: Incoming) -> None:
    """/daily [set] HH:MM [deadline] [tag] | /daily off | /daily [show]"""
    dailies = incoming.adapter.app.dailies
    args = incoming.args
    action = args[0].lower() if args else "show"
    lang = incoming.language
    if action == "show":
        await incoming.reply(render_daily(await dailies.show(incoming.chat), lang, m=HTML))
        return
    if action == "off":
        view = await dailies.disable(incoming.chat)
        await incoming.say("daily.off" if view is not None else "daily.none")
        return
    if action == "set":
        args = args[1:]
    if not args:
        raise QuizError("error.bad_args", detail=DAILY_USAGE)
    deadline: int | None = None
    tag: str | None = None
    for arg in args[1:]:
        try:
            seconds = parse_duration(arg)
        except ValueError:
            seconds = None
        if seconds is not None and deadline is None:
            deadline = seconds
        elif seconds is None and tag is None:
            tag = arg
        else:
            raise QuizError("error.bad_args", detail=DAILY_USAGE)
    view = await dailies.set_daily(incoming.chat, args[0], deadline_seconds=deadline, tag=tag)
    await incoming.reply(render_daily(view, lang, just_set=True, m=HTML))


async def contest(incoming: Incoming) -> None:
    """/contest start [N] [SECONDS] | /contest stop | /contest status"""
    contests = incoming.adapter.app.contests
    args = incoming.args
    action = args[0].lower() if args else "status"
    if action == "start":
        n, seconds = contest_start_numbers(args[1:], CONTEST_USAGE)
        await contests.start(incoming.chat, n, seconds)  # posts its own notice and questions
    elif action == "stop":
        if not await contests.stop(incoming.chat):
            await incoming.say("contest.not_running")
    elif action == "status":
        await incoming.reply(render_contest_status(await contests.status(incoming.chat), HTML))
    else:
        raise QuizError("error.bad_args", detail=CONTEST_USAGE)


async def bank(incoming: Incoming) -> None:
    """/bank | /bank list | /bank use <id>"""
    quiz = incoming.adapter.app.quiz
    args = incoming.args
    action = args[0].lower() if args else "show"
    if action == "list":
        rows = [
            incoming.text("bank.list_row", id=b.id, title=bank_text(incoming.language, b.title),
                          count=len(b.questions))
            for b in sorted(quiz.banks.values(), key=lambda b: b.id)
        ]
        await incoming.reply("\n".join(rows))
        return
    if action == "use" and len(args) == 2:
        chat = await quiz.update_settings(incoming.chat, bank_id=args[1])
    elif action == "show":
        chat = await quiz.chat(incoming.chat)
    else:
        raise QuizError("error.bad_args", detail=BANK_USAGE)
    current = quiz.bank_for(chat)
    incoming.language = chat.settings.language
    title = bank_text(incoming.language, current.title)
    await incoming.say("bank.using", title=title, count=len(current.questions))
