"""The console chat: reads lines from stdin, hands them to the application layer, prints what
comes back as plain text.

Works with a terminal or a pipe (so tests drive it as a subprocess). Lines starting with `/`
are commands, run through the catalog (`Application.run_text`); anything else answers the open
question (`app.answering.typed`), where `n`, 下一题 or an empty line (while a practice question
is open) asks the next question of the practice run (the console's 下一题 ▶). Only /quit and
/exit are the console's own.

At a terminal there is a prompt with line editing and history (prompt_toolkit) and output is
wrapped to the window. A line ending in a backslash goes on on the next line (at a terminal and
in a script alike), so an answer can span lines; at a terminal, several lines pasted at once
are one answer while a question answered by typing is open. /quit, /exit, Ctrl-D or the end of
the input, Ctrl-C, SIGINT and SIGTERM all end the console the same way: at once, with the
goodbye, everything answered saved, exit code 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from adapters.console.files import open_file, save_file
from adapters.console.layout import terminal_width, wrap
from adapters.console.lines import Interrupted, Lines, TerminalLines, is_terminal, open_lines
from bot.application.answering import AnswerReply, NextReply, ReceiptReply, TextReply
from bot.application.app import Application, HelpView, MockQuestionView
from bot.application.commands.catalog import command
from bot.application.commands.parsing import Parsed
from bot.application.replies import Reply, WelcomeView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain.kinds import (
    SELF_GRADE_LEVELS,
    AnswerStatus,
    ChatKind,
    ChatRef,
    InputKind,
    Platform,
    RoundKind,
    UserRef,
)
from bot.locales.i18n import t
from bot.ports.chat import PaceLimits
from bot.views.quiz import ContestStatusView, Notice, QuestionView, RevealView, StandingsView
from bot.views.quiz_text import (
    CONSOLE,
    render_notice,
    render_question,
    render_receipt,
    render_reveal,
    render_standings,
)

CONSOLE_CHAT = ChatRef(Platform.CONSOLE, "console", ChatKind.PRIVATE, title="console")
SCRIPT_WAIT = 3600.0  # the longest a script waits for a contest to move on
TYPED_INPUTS = (InputKind.TYPED, InputKind.SELF_GRADED)
QUIT_COMMANDS = ("/quit", "/exit")
# What a reply to an answer says when that answer is (or already was) this person's answer.
ANSWERED = (AnswerStatus.ACCEPTED, AnswerStatus.CHANGED, AnswerStatus.DUPLICATE)

SignalHandler = Callable[[int, FrameType | None], Any] | int | None


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
        app: Application,
        *,
        data_dir: Path = Path("."),
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        user: UserRef | None = None,
        chat: ChatRef = CONSOLE_CHAT,
        width: int | None = None,
    ) -> None:
        self.app = app
        self.data_dir = data_dir  # where files sent with a reply (a chart, an export) are written
        self.stdin = stdin or sys.stdin
        # None: sys.stdout at each write, which prompt_toolkit redirects while a prompt is shown
        # so that a question posted meanwhile (a contest, a daily) appears above it.
        self._stdout = stdout
        self.user = user or console_user()
        self.chat = chat
        self.caller = Caller(chat, self.user, admin=True)  # one's own private chat
        # Wrap at `width`, else at the window's width when stdout is a terminal; pipes unwrapped.
        self.width = width
        self._wraps = width is not None or is_terminal(self.stdout)
        self._open: QuestionView | None = None  # the last question shown: typed answers go to it
        self._answered: set[int] = set()  # rounds this person has an answer in
        self._posted = asyncio.Event()  # set whenever anything is posted (a script may be waiting)
        # Piped input (a script, a test) answers contest questions in order, and a running
        # contest plays out before /quit; at a terminal the person paces themself.
        self.scripted = not is_terminal(self.stdin)

    @property
    def stdout(self) -> TextIO:
        return self._stdout or sys.stdout

    def say(self, text: str) -> None:
        text = text.rstrip("\n")
        if self._wraps:
            text = wrap(text, self.width or terminal_width())
        self.stdout.write(text + "\n\n")
        self.stdout.flush()

    async def run(self) -> None:
        self.show(await self.app.welcome(self.chat, "console.welcome"))
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
        self.say(t(await self.app.language(self.chat), "console.bye"))

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
                if text and text.split()[0].lower() in QUIT_COMMANDS:
                    if self.scripted:
                        await self._contests_done()
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
        if not inputs and self._drilling():
            return [""]  # Enter alone: the next practice question
        if len(inputs) > 1 and self._takes_typed_answer() and not inputs[0].startswith("/"):
            inputs = ["\n".join(inputs)]
        while inputs and inputs[-1].endswith("\\"):
            head = inputs[-1][:-1].rstrip()
            more = await lines.read(continued=True)
            inputs[-1] = head if more is None else f"{head}\n{more.strip()}".strip()
            if more is None:
                break
        return [text for text in inputs if text]

    def _drilling(self) -> bool:
        """A practice question is the one open: Enter alone means "next"."""
        return self._open is not None and self._open.kind is RoundKind.PRACTICE

    def _takes_typed_answer(self) -> bool:
        return self._open is not None and self._open.input_kind in TYPED_INPUTS

    @contextlib.contextmanager
    def _stopped_by_signals(self, session: asyncio.Task[None]) -> Iterator[None]:
        """SIGINT and SIGTERM end the session at once (a blocked read included)."""
        loop = asyncio.get_running_loop()
        installed: list[tuple[signal.Signals, SignalHandler]] = []
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
                    signal.signal(sig, previous)

    def _prompt_output(self, lines: Lines) -> contextlib.AbstractContextManager[object]:
        if isinstance(lines, TerminalLines) and self._stdout is None:
            from prompt_toolkit.patch_stdout import patch_stdout

            return patch_stdout(raw=True)
        return contextlib.nullcontext()

    async def handle(self, line: str) -> None:
        """One input: a catalog command, or an answer to the open question."""
        if line.startswith("/"):
            reply = await self.app.run_text(line, self.caller, open_file=open_file)
            if isinstance(reply.view, QuestionView):
                await self.app.question_posted(reply.view.round_id, self._opened(reply.view))
            elif isinstance(reply.view, MockQuestionView):
                self._open = None  # what is typed now answers the mock's item, not an earlier question
            self.show(reply)
        else:
            await self._answer(line)

    # ------------------------------------------------------------ rendering

    def show(self, reply: Reply) -> None:
        """A command's reply as text, by the kind of its view; files go to the data directory."""
        text = render_reply(reply, CONSOLE)
        if isinstance(reply.view, HelpView):
            text += "\n\n" + t(reply.language, "console.quit_hint")
        elif isinstance(reply.view, WelcomeView):  # no language buttons here: how to type it
            text += "\n" + t(reply.language, "console.pick_language")
        self._pictures(reply.view)
        if text:
            self.say(text)
        for attachment in reply.files:
            path = save_file(self.data_dir, attachment)
            lines = [attachment.caption] if attachment.caption else []
            self.say("\n".join([*lines, t(reply.language, "console.file_saved", path=str(path))]))

    def _show_answer(self, reply: AnswerReply) -> None:
        if isinstance(reply, TextReply) and isinstance(reply.view, MockQuestionView):
            self.show(Reply(reply.view, reply.language))  # the mock's next item, laid out for typing
        elif isinstance(reply, TextReply):
            self.say(reply.text)
        elif isinstance(reply, NextReply):
            self.show(reply.reply)
        elif isinstance(reply, ReceiptReply):
            self.say(render_receipt(reply.receipt, CONSOLE))
            if reply.awaits_self_grade:
                self.say(" / ".join(t(reply.language, f"button.self_{k}") for k in SELF_GRADE_LEVELS))
            elif reply.offers_next:  # the console's 下一题 ▶ (and a wrong answer's cause buttons)
                if reply.offers_cause:
                    self.say(t(reply.language, "cause.hint"))
                self.say(t(reply.language, "drill.next_hint"))

    # ------------------------------------------------------------ the chat port (posts the core makes)

    def _opened(self, view: QuestionView) -> str:
        self._open = view
        return f"console:{view.round_id}"

    def _pictures(self, view: object) -> None:
        """A question's pictures, written into `pictures/` of the data directory (one file per
        bank and name, written again each time it is shown) and their paths said before it."""
        for picture in self.app.pictures(view):
            bank_id, language = getattr(view, "bank_id", ""), getattr(view, "language", "")
            named = replace(picture, filename=f"{bank_id}-{picture.filename}", latest=True)
            path = save_file(self.data_dir / "pictures", named)
            self.say(t(language, "console.picture_saved", path=str(path)))

    async def post_question(self, chat: ChatRef, view: QuestionView) -> str:
        ref = self._opened(view)
        self._pictures(view)
        self.say(render_question(view, CONSOLE))
        self._posted.set()
        return ref

    async def post_reveal(self, chat: ChatRef, view: RevealView) -> None:
        self.say(render_reveal(view, CONSOLE))
        self._posted.set()

    async def post_standings(self, chat: ChatRef, view: StandingsView) -> None:
        self.say(render_standings(view, CONSOLE))
        self._posted.set()  # also the end of a contest, which a waiting script must notice

    async def post_notice(self, chat: ChatRef, notice: Notice) -> None:
        self.say(render_notice(notice))
        self._posted.set()

    # ------------------------------------------------------------ answers

    async def _answer(self, text: str) -> None:
        if self.scripted and self._open is not None and self._open.kind is RoundKind.CONTEST:
            await self._wait_for_unanswered_contest_question()
        round_id = self._open.round_id if self._open is not None else None
        reply = await self.app.typed(self.chat, self.user, text, round_id=round_id)
        if isinstance(reply, ReceiptReply) and reply.receipt.status in ANSWERED and round_id is not None:
            self._answered.add(round_id)
        if isinstance(reply, NextReply) and isinstance(reply.reply.view, QuestionView):
            await self.app.question_posted(reply.reply.view.round_id, self._opened(reply.reply.view))
        self._show_answer(reply)

    async def _wait_for_unanswered_contest_question(self) -> None:
        """A scripted answer goes to the next contest question if this one is answered."""
        async with asyncio.timeout(SCRIPT_WAIT):
            while self._open is not None:
                round_id = self._open.round_id
                if round_id not in self._answered or not await self._contest_running():
                    return
                self._posted.clear()
                if self._open is not None and self._open.round_id == round_id:
                    await self._posted.wait()

    async def _contest_running(self) -> bool:
        reply = await self.app.run(Parsed(command("contest status")), self.caller)
        return isinstance(reply.view, ContestStatusView) and reply.view.running

    async def _contests_done(self) -> None:
        """Wait until the console chat has no running contest."""
        async with asyncio.timeout(SCRIPT_WAIT):
            while await self._contest_running():
                self._posted.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._posted.wait(), timeout=1.0)
