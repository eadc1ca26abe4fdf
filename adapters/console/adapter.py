"""The console chat: reads lines from stdin, calls the core, prints its views as plain text.

Works with a terminal or a pipe (so tests drive it as a subprocess). Lines starting with `/`
are commands; anything else answers the open question.

At a terminal there is a prompt with line editing and history (prompt_toolkit) and output is
wrapped to the window. A line ending in a backslash goes on on the next line (at a terminal and
in a script alike), so an answer can span lines; at a terminal, several lines pasted at once
are one answer while a fill-in or short-answer question is open. /quit, /exit, Ctrl-D or the
end of the input, Ctrl-C, SIGINT and SIGTERM all end the console the same way: at once, with
the goodbye, everything answered saved, exit code 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import TextIO

from adapters.console.layout import terminal_width, wrap
from adapters.console.lines import Interrupted, Lines, TerminalLines, is_terminal, open_lines
from adapters.console.schedule_commands import ScheduleCommands
from bot.contests import Contests
from bot.daily import Dailies
from bot.i18n import bank_text, match_language, t
from bot.kinds import ChatKind, ChatRef, Platform, RoundKind, UserRef
from bot.messages import (
    Ask,
    Notice,
    QuestionView,
    RevealView,
    SelfGrade,
    ShowLeaderboard,
    ShowStats,
    StandingsView,
    SubmitAnswer,
)
from bot.model import QuestionType
from bot.ports import PaceLimits
from bot.quiz import Quiz, QuizError
from bot.text import (
    render_leaderboard,
    render_notice,
    render_question,
    render_receipt,
    render_reveal,
    render_standings,
    render_stats,
)
from bot.windows import Window

CONSOLE_CHAT = ChatRef(Platform.CONSOLE, "console", ChatKind.PRIVATE, title="console")
SCRIPT_WAIT = 3600.0  # the longest a script waits for a contest to move on
SELF_GRADE_WORDS = {"全对", "部分", "不会", "full", "half", "zero", "1", "2", "3"}
TYPED_ANSWERS = (QuestionType.FILL, QuestionType.SHORT)
QUIT_COMMANDS = ("/quit", "/exit")


def console_user() -> UserRef:
    try:
        name = getpass.getuser()
    except Exception:  # no login name (containers): any stable name will do
        name = "you"
    return UserRef(Platform.CONSOLE, name, name)


class ConsoleAdapter:
    platform = Platform.CONSOLE
    limits = PaceLimits(per_second=1000, per_chat=1000, per_chat_window=1.0)  # a terminal has none

    def __init__(
        self,
        quiz: Quiz,
        *,
        dailies: Dailies | None = None,
        contests: Contests | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        user: UserRef | None = None,
        chat: ChatRef = CONSOLE_CHAT,
        width: int | None = None,
    ) -> None:
        self.quiz = quiz
        self.contests = contests
        self.stdin = stdin or sys.stdin
        # None: sys.stdout at each write, which prompt_toolkit redirects while a prompt is shown
        # so that a question posted meanwhile (a contest, a daily) appears above it.
        self._stdout = stdout
        self.user = user or console_user()
        self.chat = chat
        # Wrap at `width`, else at the window's width when stdout is a terminal; pipes unwrapped.
        self.width = width
        self._wraps = width is not None or is_terminal(self.stdout)
        self._round_id: int | None = None
        self._round_kind: RoundKind | None = None
        self._round_qtype: QuestionType | None = None
        self._posted = asyncio.Event()  # set whenever anything is posted (a script may be waiting)
        self._self_grade_round: int | None = None
        # Piped input (a script, a test) answers contest questions in order, and a running
        # contest plays out before /quit; at a terminal the person paces themself.
        self.scripted = not is_terminal(self.stdin)
        self._commands: dict[str, Callable[[list[str]], Awaitable[None]]] = {
            "/quiz": self._quiz,
            "/review": self._review,
            "/leaderboard": self._leaderboard,
            "/stats": self._stats,
            "/lang": self._lang,
            "/tags": self._tags,
            "/help": self._help,
        }
        if dailies is not None and contests is not None:
            schedule = ScheduleCommands(self, dailies, contests)
            self._commands.update({"/daily": schedule.daily, "/contest": schedule.contest})

    @property
    def stdout(self) -> TextIO:
        return self._stdout or sys.stdout

    def say(self, text: str) -> None:
        text = text.rstrip("\n")
        if self._wraps:
            text = wrap(text, self.width or terminal_width())
        self.stdout.write(text + "\n\n")
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
                title=bank_text(chat.settings.language, bank.title),
                count=len(bank.questions),
            )
        )
        lines = open_lines(self.stdin, self.stdout)
        session = asyncio.create_task(self._converse(lines))
        try:
            with self._stopped_by_signals(session), self._prompt_output(lines):
                await session
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():  # we were cancelled, not the session
                raise
        finally:
            lines.close()
        self.say(t(await self.language(), "console.bye"))
        await self.quiz.flush()

    async def _converse(self, lines: Lines) -> None:
        """Handle input until /quit, the end of input or Ctrl-C."""
        while True:
            try:
                inputs = await self._read_inputs(lines)
            except Interrupted:
                return
            if inputs is None:
                return
            for text in inputs:
                if text.split()[0].lower() in QUIT_COMMANDS:
                    await self._before_quit()
                    return
                await self.handle(text)

    async def _read_inputs(self, lines: Lines) -> list[str] | None:
        """The next inputs: one per line, except lines pasted together as a typed answer and
        lines joined by a trailing backslash. None at the end of input."""
        entry = await lines.read()
        if entry is None:
            return None
        inputs = [line.strip() for line in entry.split("\n")]
        inputs = [line for line in inputs if line]
        if len(inputs) > 1 and self._takes_typed_answer() and not inputs[0].startswith("/"):
            inputs = ["\n".join(inputs)]
        while inputs and inputs[-1].endswith("\\"):
            head = inputs[-1][:-1].rstrip()
            more = await lines.read(continued=True)
            inputs[-1] = head if more is None else f"{head}\n{more.strip()}".strip()
            if more is None:
                break
        return [text for text in inputs if text]

    def _takes_typed_answer(self) -> bool:
        return self._round_id is not None and self._round_qtype in TYPED_ANSWERS

    @contextlib.contextmanager
    def _stopped_by_signals(self, session: asyncio.Task[None]) -> Iterator[None]:
        """SIGINT and SIGTERM end the session at once (a blocked read included)."""
        loop = asyncio.get_running_loop()
        installed: list[tuple[signal.Signals, object]] = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous = signal.getsignal(sig)
            try:
                loop.add_signal_handler(sig, session.cancel)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
                continue
            installed.append((sig, previous))
        try:
            yield
        finally:
            for sig, previous in installed:
                loop.remove_signal_handler(sig)
                if previous is not None:  # asyncio.run's own Ctrl-C handling, for shutdown
                    signal.signal(sig, previous)  # type: ignore[arg-type]

    def _prompt_output(self, lines: Lines) -> contextlib.AbstractContextManager[object]:
        if isinstance(lines, TerminalLines) and self._stdout is None:
            from prompt_toolkit.patch_stdout import patch_stdout

            return patch_stdout(raw=True)
        return contextlib.nullcontext()

    async def handle(self, line: str) -> None:
        try:
            if line.startswith("/"):
                name, *args = line.split()
                handler = self._commands.get(name.lower())
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

    async def post_question(self, chat: ChatRef, view: QuestionView) -> str:
        self._round_id = view.round_id
        self._round_kind = view.kind
        self._round_qtype = view.qtype
        self._self_grade_round = None
        self.say(render_question(view))
        self._posted.set()
        return f"console:{view.round_id}"

    async def post_reveal(self, chat: ChatRef, view: RevealView) -> None:
        self.say(render_reveal(view))
        self._posted.set()

    async def post_standings(self, chat: ChatRef, view: StandingsView) -> None:
        self.say(render_standings(view))
        self._posted.set()  # also the end of a contest, which a waiting script must notice

    async def post_notice(self, chat: ChatRef, notice: Notice) -> None:
        self.say(render_notice(notice))
        self._posted.set()

    async def _before_quit(self) -> None:
        if self.scripted and self.contests is not None:
            await self.contests_done()

    async def contests_done(self) -> None:
        """Wait until the console chat has no running contest."""
        async with asyncio.timeout(SCRIPT_WAIT):
            while (await self.contests.status(self.chat)).running:  # type: ignore[union-attr]
                self._posted.clear()
                try:
                    await asyncio.wait_for(self._posted.wait(), timeout=1.0)
                except TimeoutError:
                    pass

    # ------------------------------------------------------------ commands

    async def _quiz(self, args: list[str]) -> None:
        view = await self.quiz.ask(Ask(self.chat, self.user, tag=args[0] if args else None))
        await self.post_question(self.chat, view)

    async def _review(self, args: list[str]) -> None:
        view = await self.quiz.ask(Ask(self.chat, self.user, review=True))
        await self.post_question(self.chat, view)

    async def _answer(self, text: str) -> None:
        if self.scripted and self._round_kind is RoundKind.CONTEST and self._round_id is not None:
            await self._wait_for_unanswered_contest_question()
        round_id = self._round_id
        if round_id is None:
            current = await self.quiz.current_round(self.chat)
            round_id = current.id if current else None  # current_round is None once closed
        if round_id is None:
            self.say(t(await self.language(), "error.no_round"))
            return
        receipt = await self.quiz.submit(SubmitAnswer(round_id, self.user, text))
        self.say(render_receipt(receipt))
        if receipt.verdict == "pending":
            self._self_grade_round = round_id
            lang = receipt.language
            self.say(" / ".join(t(lang, f"button.self_{k}") for k in ("full", "half", "zero")))

    async def _wait_for_unanswered_contest_question(self) -> None:
        """A scripted answer goes to the next contest question if this one is answered."""
        user_id = await self.quiz.user_id(self.user)
        async with asyncio.timeout(SCRIPT_WAIT):
            while self._round_id is not None:
                round_id = self._round_id
                if await self.quiz.store.user_answer(round_id, user_id) is None:
                    return
                if not (await self.contests.status(self.chat)).running:  # type: ignore[union-attr]
                    return
                self._posted.clear()
                if self._round_id == round_id:
                    await self._posted.wait()

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
        if not args or match_language(args[0]) is None:
            raise QuizError("error.bad_args", detail="/lang zh | zh-TW | en")
        chat = await self.quiz.update_settings(self.chat, language=args[0])
        self.say(t(chat.settings.language, "lang.set"))

    async def _tags(self, args: list[str]) -> None:
        chat = await self.quiz.chat(self.chat)
        tags = ", ".join(self.quiz.bank_for(chat).tags)
        self.say(t(chat.settings.language, "help.tags", tags=tags))

    async def _help(self, args: list[str]) -> None:
        self.say(t(await self.language(), "help.console"))
