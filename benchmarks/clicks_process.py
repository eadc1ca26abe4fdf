"""Processes beside the click benchmark: the bot under test (the real `studybot run`, or the bare
library floor of benchmarks/clicks_floor.py), its CPU time read from /proc, and the CPU hogs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks._common import ROOT

# A hog spins until its deadline, so a benchmark that dies without stopping it still ends it.
HOG = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end: pass\n"
TOKEN_VARIABLES = ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL",
                   "TELEGRAM_API_BASE", "TELEGRAM_WEBHOOK_URL")  # fmt: skip


@contextlib.contextmanager
def cpu_hogs(count: int, limit_s: float = 600.0) -> Iterator[list[int]]:
    """`count` CPU-bound Python processes for the block (each also stops itself after `limit_s`)."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG, str(limit_s)]) for _ in range(count)]
    try:
        yield [h.pid for h in hogs]
    finally:
        for hog in hogs:
            hog.terminate()
        for hog in hogs:
            try:
                hog.wait(timeout=10)
            except subprocess.TimeoutExpired:
                hog.kill()
                hog.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid`, all its threads (/proc/PID/stat; nan elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class BotKind:
    """Which bot answers the clicks: ours (`studybot run`), ours under another interpreter (a
    virtualenv holding another version, to compare with), or the bare library floor."""

    name: str  # studybot | compare | floor
    label: str
    python: str = sys.executable

    def command(self, platform: str, config: Path, profile: Path | None) -> list[str]:
        if self.name == "floor":
            return [self.python, str(ROOT / "benchmarks" / "clicks_floor.py"), platform]
        run = ["-m", "studybot", "run", "--config", str(config)]
        if profile is not None:
            return [self.python, "-m", "cProfile", "-o", str(profile), *run]
        return [self.python, *run]


STUDYBOT = BotKind("studybot", "studybot run")
FLOOR = BotKind("floor", "bare library")


def compared(python: str) -> BotKind:
    return BotKind("compare", f"studybot run under {python}", python)


@contextlib.asynccontextmanager
async def bot_process(
    kind: BotKind, platform: str, base: Path, env: dict[str, str], profile: Path | None = None
) -> AsyncIterator[tuple[asyncio.subprocess.Process, Path]]:
    """Start the bot with `env` (tokens, endpoints) in a fresh data directory; SIGTERM it after.
    Yields the process and its data directory (database, config, bot.log)."""
    data = Path(tempfile.mkdtemp(prefix=f"{platform}-{kind.name}-", dir=base))
    config = data / "studybot.yaml"
    config.write_text("language: en\n", encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if k not in TOKEN_VARIABLES}
    environ.update(STUDYBOT_DATA_DIR=str(data), PYTHONUNBUFFERED="1", **env)
    log = (data / "bot.log").open("wb")
    proc = await asyncio.create_subprocess_exec(
        *kind.command(platform, config, profile), stdout=log, stderr=subprocess.STDOUT, env=environ,
        cwd=str(data),  # not the checkout: an interpreter given with --compare imports its own copy
    )  # fmt: skip
    try:
        yield proc, data
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(30):
                    await proc.wait()
            except TimeoutError:
                proc.kill()
                await proc.wait()
        log.close()


def bot_log(data_dir: Path, lines: int = 20) -> str:
    """The last lines the bot printed (for a failed run's message)."""
    try:
        text = (data_dir / "bot.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def stored_answers(data_dir: Path) -> tuple[int, int]:
    """(answers, distinct users) stored for the newest round of the bot's database."""
    with contextlib.closing(sqlite3.connect(data_dir / "studybot.db")) as db:
        row = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT user_id) FROM answers"
            " WHERE round_id = (SELECT MAX(id) FROM rounds)"
        ).fetchone()
    return int(row[0]), int(row[1])
