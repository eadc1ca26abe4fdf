"""The console chat: reads lines from stdin, calls the core, prints its views as plain text.

Works with a terminal or a pipe (so tests drive it as a subprocess). Lines starting with `/`
are commands; anything else answers the open question.
"""

from __future__ import annotations

import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from typing import TextIO

from bot.i18n import t
from bot.messages import (
    Ask,
    QuestionView,
    RevealView,
    SelfGrade,
    ShowLeaderboard,
    ShowStats,
    SubmitAnswer,
)
from bot.quiz import Quiz, QuizError
from bot.records import ChatKind, ChatRef, Platform, RoundState, UserRef
from bot.text import (
    render_leaderboard,
    render_question,
    render_receipt,
    render_reveal,
    render_stats,
)
from bot.windows import Window

CONSOLE_CHAT = ChatRef(Platform.CONSOLE, "console", ChatKind.PRIVATE, title="console")
SELF_GRADE_WORDS = {"全对", "部分", "不会", "full", "half", "zero", "1", "2", "3"}


def console_user() -> UserRef:
    try:
        name = getpass.getuser()
    except Exception:  # no login name (containers): any stable name will do
        name = "you"
    return UserRef(Platform.CONSOLE, name, name)


class ConsoleAdapter:
    platform = Platform.CONSOLE

    def __init__(
        self,
        quiz: Quiz,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        user: UserRef | None = None,
        chat: ChatRef = CONSOLE_CHAT,
    ) -> None:
        self.quiz = quiz
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.user = user or console_user()
        self.chat = chat
        self._round_id: int | None = None
        self._self_grade_round: int | None = None
        self._commands: dict[str, Callable[[list[str]], Awaitable[None]]] = {
            "/quiz": self._quiz,
            "/leaderboard": self._leaderboard,
            "/stats": self._stats,
            "/lang": self._lang,
            "/tags": self._tags,
            "/help": self._help,
        }
        self.extra_commands: dict[str, Callable[[list[str]], Awaitable[None]]] = {}

    def say(self, text: str) -> None:
        self.stdout.write(text.rstrip("\n") + "\n\n")
        self.stdout.flush()

    async def language(self) -> str:
        return (await self.quiz.chat(self.chat)).settings.language

    async def run(self) -> None:
        chat = await self.quiz.chat(self.chat)
        bank = self.quiz.bank_for(chat)
        self.say(
            t(
                chat.settings.language,
                "console.welcome",
                title=bank.title,
                count=len(bank.questions),
            )
        )
        while True:
            line = await asyncio.to_thread(self.stdin.readline)
            if not line:  # end of input
                break
            line = line.strip()
            if not line:
                continue
            if line.split()[0].lower() in ("/quit", "/exit"):
                self.say(t(await self.language(), "console.bye"))
                break
            await self.handle(line)
        await self.quiz.flush()

    async def handle(self, line: str) -> None:
        try:
            if line.startswith("/"):
                name, *args = line.split()
                handler = self._commands.get(name.lower()) or self.extra_commands.get(name.lower())
                if handler is None:
                    self.say(t(await self.language(), "error.unknown_command", command=name))
                    return
                await handler(args)
            elif self._self_grade_round is not None and line in SELF_GRADE_WORDS:
                await self._self_grade(line)
            else:
                await self._answer(line)
        except QuizError as exc:
            self.say(exc.render(await self.language()))

    # ------------------------------------------------------------ chat-side rendering

    async def post_question(self, view: QuestionView) -> str:
        self._round_id = view.round_id
        self._self_grade_round = None
        self.say(render_question(view))
        return f"console:{view.round_id}"

    async def post_reveal(self, view: RevealView) -> None:
        self.say(render_reveal(view))

    async def post_text(self, text: str) -> None:
        self.say(text)

    # ------------------------------------------------------------ commands

    async def _quiz(self, args: list[str]) -> None:
        view = await self.quiz.ask(Ask(self.chat, self.user, tag=args[0] if args else None))
        await self.post_question(view)

    async def _answer(self, text: str) -> None:
        round_id = self._round_id
        if round_id is None:
            current = await self.quiz.current_round(self.chat)
            round_id = current.id if current and current.state is RoundState.OPEN else None
        if round_id is None:
            self.say(t(await self.language(), "error.no_round"))
            return
        receipt = await self.quiz.submit(SubmitAnswer(round_id, self.user, text))
        self.say(render_receipt(receipt))
        if receipt.verdict == "pending":
            self._self_grade_round = round_id
            lang = receipt.language
            self.say(" / ".join(t(lang, f"button.self_{k}") for k in ("full", "half", "zero")))

    async def _self_grade(self, word: str) -> None:
        level = {"1": "full", "2": "half", "3": "zero"}.get(word, word)
        assert self._self_grade_round is not None
        receipt = await self.quiz.self_grade(SelfGrade(self._self_grade_round, self.user, level))
        self._self_grade_round = None
        self.say(render_receipt(receipt))

    async def _leaderboard(self, args: list[str]) -> None:
        window = Window.ALL
        if args:
            try:
                window = Window(args[0].lower())
            except ValueError:
                raise QuizError("error.bad_args", detail="all | week | month") from None
        view = await self.quiz.leaderboard(ShowLeaderboard(self.chat, self.user, window))
        self.say(render_leaderboard(view))

    async def _stats(self, args: list[str]) -> None:
        self.say(render_stats(await self.quiz.stats(ShowStats(self.chat, self.user))))

    async def _lang(self, args: list[str]) -> None:
        if not args or args[0].lower() not in ("zh", "en", "zh-cn"):
            raise QuizError("error.bad_args", detail="/lang zh | en")
        chat = await self.quiz.update_settings(self.chat, language=args[0])
        self.say(t(chat.settings.language, "lang.set"))

    async def _tags(self, args: list[str]) -> None:
        chat = await self.quiz.chat(self.chat)
        tags = ", ".join(self.quiz.bank_for(chat).tags)
        self.say(t(chat.settings.language, "help.tags", tags=tags))

    async def _help(self, args: list[str]) -> None:
        self.say(t(await self.language(), "help.console"))
