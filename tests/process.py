"""Run `python -m studybot` as a real process for tests: write lines, wait for output, kill it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tests.waits import HANG


class BotProcess:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.output = ""
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(
        cls, data_dir: Path, config: Path | None = None, *, env: dict | None = None
    ) -> BotProcess:
        environ = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN")}
        environ.update(STUDYBOT_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1", **(env or {}))
        args = [sys.executable, "-m", "studybot"] + (["--config", str(config)] if config else [])
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=environ,
        )
        return cls(proc)

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(4096):
            self.output += chunk.decode("utf-8", "replace")
            self._changed.set()
        self._changed.set()

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())

    async def wait_for(self, text: str, *, count: int = 1, timeout: float = HANG) -> str:
        """Wait until `text` has appeared `count` times in the output."""
        try:
            async with asyncio.timeout(timeout):
                while self.output.count(text) < count:
                    if self.proc.returncode is not None and self._reader.done():
                        raise AssertionError(f"process exited before printing {text!r}:\n{self.output}")
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            shown = f"{text!r} not printed within {timeout} s; output so far:\n{self.output}"
            raise AssertionError(shown) from None
        return self.output

    async def wait_until(self, predicate: Callable[[str], bool], *, timeout: float = HANG) -> str:
        """Wait until `predicate(output so far)` holds, re-checked whenever the output grows."""
        try:
            async with asyncio.timeout(timeout):
                while not predicate(self.output):
                    if self.proc.returncode is not None and self._reader.done():
                        raise AssertionError(f"process exited first:\n{self.output}")
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"not printed within {timeout} s; output so far:\n{self.output}") from None
        return self.output

    async def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()
        await self._reader

    async def quit(self, timeout: float = 30.0) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        async with asyncio.timeout(timeout):
            code = await self.proc.wait()
            await self._reader
        return code


async def wait_until(moment: datetime) -> None:
    """Wait for a wall-clock moment to pass (a deadline, a daily time): a timer on the loop."""
    delay = (moment - datetime.now(moment.tzinfo)).total_seconds()
    if delay > 0:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        loop.call_later(delay, done.set_result, None)
        await done


async def terminate(bot: BotProcess, timeout: float = 30.0) -> int:
    """Stop `studybot run` as a service manager would (SIGTERM) and wait for it to exit."""
    if bot.proc.returncode is None:
        bot.proc.send_signal(signal.SIGTERM)
    async with asyncio.timeout(timeout):
        code = await bot.proc.wait()
        await bot._reader
    return code
