"""The console at a real terminal: a process on a pseudo-terminal, typed keys in, screen out.

Checks what a person at a terminal meets: a prompt, the Up arrow recalling the last line (not
read as an answer), a paste of several lines taken as one answer, Ctrl-C and Ctrl-D ending the
session with the goodbye, and long lines wrapped to the window.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import struct
import sys
import termios
from pathlib import Path

import pytest
import wcwidth

from bot.application.commands.catalog import CATALOG
from tests.test_console_process import sample_config
from tests.waits import HANG

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

READY = "studybot console"
UP = "\x1b[A"
CTRL_C, CTRL_D = "\x03", "\x04"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]|[\r\x08]")


class TerminalProcess:
    """`python -m studybot` with stdin, stdout and stderr on a pseudo-terminal of a set size."""

    def __init__(self, proc: asyncio.subprocess.Process, master: int) -> None:
        self.proc = proc
        self.master = master
        self.raw = ""
        self._changed = asyncio.Event()
        self._eof = False
        asyncio.get_running_loop().add_reader(master, self._read)

    @classmethod
    async def start(cls, tmp_path: Path, config: Path, *, columns: int = 100) -> TerminalProcess:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN")}
        env.update(
            STUDYBOT_DATA_DIR=str(tmp_path / "data"),
            TERM="xterm",
            PROMPT_TOOLKIT_NO_CPR="1",  # no terminal here answers cursor-position requests
            COLUMNS=str(columns),
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "studybot", "--config", str(config),
            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp_path,
        )  # fmt: skip
        os.close(slave)
        return cls(proc, master)

    def _read(self) -> None:
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the process closed the terminal
            chunk = b""
        if not chunk:
            self._eof = True
            asyncio.get_running_loop().remove_reader(self.master)
        self.raw += chunk.decode("utf-8", "replace")
        self._changed.set()

    @property
    def screen(self) -> str:
        """The output without terminal control sequences."""
        return _ESCAPES.sub("", self.raw)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    async def wait_for(self, text: str, *, count: int = 1, timeout: float = HANG) -> str:
        try:
            async with asyncio.timeout(timeout):
                while self.screen.count(text) < count:
                    if self._eof:
                        raise AssertionError(f"exited before printing {text!r}:\n{self.screen}")
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"{text!r} not shown within {timeout} s:\n{self.screen}") from None
        return self.screen

    async def prompt(self, after: str, timeout: float = HANG) -> None:
        """Wait for `after`, then for the prompt drawn below it (keys typed before that would
        meet the terminal in its ordinary line mode, not the line editor)."""
        try:
            async with asyncio.timeout(timeout):
                while not (after in self.screen and self.screen.rstrip().endswith(">")):
                    if self._eof:
                        raise AssertionError(f"exited before the prompt:\n{self.screen}")
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"no prompt after {after!r} within {timeout} s:\n{self.screen}") from None

    async def exit_code(self, timeout: float = HANG) -> int:
        async with asyncio.timeout(timeout):
            return await self.proc.wait()

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if not self._eof:
            asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)


@pytest.fixture
async def terminal(tmp_path):
    started: list[TerminalProcess] = []

    async def start(**kwargs) -> TerminalProcess:
        term = await TerminalProcess.start(tmp_path, sample_config(tmp_path), **kwargs)
        started.append(term)
        await term.prompt(after=READY)
        return term

    yield start
    for term in started:
        await term.close()


async def test_up_arrow_recalls_the_last_line_and_ctrl_d_says_goodbye(terminal):
    term = await terminal()
    term.type("/tags\r")
    await term.prompt(after="Tags: ")
    term.type(UP + "\r")  # the last line again, edited in place: not an answer "\x1b[A"
    await term.wait_for("Tags: ", count=2)
    assert "No open question" not in term.screen and "Couldn't read" not in term.screen
    await term.prompt(after="Tags: ")
    term.type(CTRL_D)
    await term.wait_for("Bye!")
    assert await term.exit_code() == 0


async def test_ctrl_c_at_the_prompt_says_goodbye_at_once(terminal):
    term = await terminal()
    term.type("half a line")  # typed, no Enter
    term.type(CTRL_C)
    await term.wait_for("Bye!")
    assert await term.exit_code() == 0


async def test_a_pasted_multi_line_answer_is_one_answer(terminal):
    term = await terminal()
    term.type("/quiz loss\r")
    await term.prompt(after="Practice · Q")
    term.type(f"{PASTE_START}交叉\n熵\n{PASTE_END}\r")
    await term.prompt(after="✅ Correct!")
    assert "Couldn't read" not in term.screen
    term.type("/quit\r")
    await term.wait_for("Bye!")
    assert await term.exit_code() == 0


async def test_lines_pasted_with_no_typed_question_open_are_separate_inputs(terminal):
    term = await terminal()
    term.type(f"{PASTE_START}/tags\n/stats{PASTE_END}\r")
    await term.prompt(after="Stats for")
    assert "Tags: " in term.screen
    term.type("/quit\r")
    assert await term.exit_code() == 0


async def test_long_lines_are_wrapped_to_the_window(terminal):
    term = await terminal(columns=40)
    term.type("/help\r")
    await term.prompt(after="Ctrl-D.")
    help_lines = [line for line in term.screen.split("Commands", 1)[1].split("Leave with", 1)[0].splitlines()
                  if line.strip()]  # fmt: skip
    rows = sum(c.scope.allows(True) for c in CATALOG) + 1  # a line each, and the admins' title
    assert len(help_lines) > rows  # long rows wrapped
    assert all(wcwidth.width(line) <= 40 for line in help_lines)
    term.type(CTRL_D)
    assert await term.exit_code() == 0
