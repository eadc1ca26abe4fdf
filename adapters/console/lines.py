"""Where the console's input comes from: a terminal with a line editor, a pipe, or a text stream.

Each source hands out *entries*: what the person sent at once. At a terminal that is one
prompt's text, which holds several lines when they pasted several (bracketed paste); from a
pipe or a file it is always one line, since a script sends everything at once and each of its
lines is meant as its own input. None means the input has ended (Ctrl-D, end of file).

No source blocks the event loop or its shutdown: the pipe is read by a daemon thread with
os.read (a thread parked in a buffered readline would keep the process alive until Enter, and
would hold the stream's lock at exit), so SIGINT stops the console at once.
"""

from __future__ import annotations

import asyncio
import codecs
import io
import os
import threading
from typing import Protocol, TextIO

PROMPT = "> "
CONTINUED = "… "  # after a line ending in a backslash
# A line longer than this is cut while it is read: the core refuses answers far shorter, and an
# endless line without a newline must not fill the memory.
MAX_LINE_CHARS = 100_000


class Interrupted(Exception):
    """Ctrl-C at the prompt (the terminal is in raw mode there, so it is a key, not a signal)."""


class Lines(Protocol):
    async def read(self, *, continued: bool = False) -> str | None: ...
    def close(self) -> None: ...


class TextLines:
    """A text stream that never blocks for long (StringIO in tests, a file object)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    async def read(self, *, continued: bool = False) -> str | None:
        line = self.stream.readline()
        return line.rstrip("\r\n") if line else None

    def close(self) -> None:
        pass


class PipeLines:
    """Lines of a file descriptor (a pipe, a redirected file), read by a daemon thread."""

    def __init__(self, fd: int, encoding: str = "utf-8") -> None:
        self._fd = fd
        self._encoding = encoding
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._closed = False
        threading.Thread(target=self._pump, name="console-input", daemon=True).start()

    async def read(self, *, continued: bool = False) -> str | None:
        if self._closed:
            return None
        line = await self._queue.get()
        if line is None:
            self._closed = True
        return line

    def close(self) -> None:
        self._closed = True

    def _put(self, line: str | None) -> bool:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, line)
        except RuntimeError:  # the loop is closed: the console has ended
            return False
        return True

    def _pump(self) -> None:
        decoder = codecs.getincrementaldecoder(self._encoding)("replace")
        pending: list[str] = []
        size = 0
        while not self._closed:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:  # closed or unreadable: the same as the end of input
                chunk = b""
            text = decoder.decode(chunk, final=not chunk)
            *complete, rest = text.split("\n")
            for piece in complete:
                pending.append(piece)
                if not self._put("".join(pending)[:MAX_LINE_CHARS].rstrip("\r")):
                    return
                pending, size = [], 0
            if size < MAX_LINE_CHARS:  # past the cap, the rest of the line is dropped
                pending.append(rest)
                size += len(rest)
            if not chunk:
                if size:
                    self._put("".join(pending)[:MAX_LINE_CHARS].rstrip("\r"))
                self._put(None)
                return


class TerminalLines:
    """A terminal: prompt_toolkit's line editor (history on Up/Down, bracketed paste)."""

    def __init__(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory

        self._session: PromptSession[str] = PromptSession(history=InMemoryHistory())

    async def read(self, *, continued: bool = False) -> str | None:
        try:
            # SIGINT stays with the console (it stops it); at the prompt Ctrl-C is a key anyway.
            return await self._session.prompt_async(CONTINUED if continued else PROMPT, handle_sigint=False)
        except EOFError:  # Ctrl-D on an empty line
            return None
        except KeyboardInterrupt:
            raise Interrupted from None

    def close(self) -> None:
        pass


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


def open_lines(stdin: TextIO, stdout: TextIO) -> Lines:
    """The right source for these streams (call on the running loop)."""
    try:
        fd = stdin.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return TextLines(stdin)
    if is_terminal(stdin) and is_terminal(stdout):
        return TerminalLines()
    return PipeLines(fd, getattr(stdin, "encoding", None) or "utf-8")
