"""`studybot` as a real process when start-up cannot succeed: a read-only data directory, a full
disk, a damaged database, a rejected token, an unreachable API, nothing to run. Each ends in one
line naming the cause and what to do (in the configured language), a non-zero exit, no
traceback, and no token anywhere in the output."""

from __future__ import annotations

import asyncio
import ctypes
import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.locales.i18n import t
from tests.fakes.discord_fixtures import fake_discord  # noqa: F401  (fixture)
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401  (fixture)
from tests.fakes.telegram_server import FakeTelegramServer

BAD_TELEGRAM_TOKEN = "987654321:AAwrongTokenThatTheServerRejects_0123456"
BAD_DISCORD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.wrongDiscordTokenTheServerRejects00"


@dataclass
class Finished:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]

    def assert_one_line(self, text: str, *, code: int = 1) -> None:
        assert self.code == code, (self.code, self.stdout, self.stderr)
        assert "Traceback" not in self.stderr, self.stderr
        ours = [line for line in self.lines if line.startswith("studybot: ")]
        assert len(ours) == 1 and ours == self.lines[-1:], self.stderr  # log lines before it at most
        assert text in self.line, self.stderr

    @property
    def line(self) -> str:
        return self.lines[-1]


async def run_studybot(
    tmp_path: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    text_in: str = "",
    preexec_fn: Callable[[], None] | None = None,
    data_dir: Path | None = None,
    timeout: float = 90.0,
) -> Finished:
    """Run `python -m studybot ARGS` to its end; the test's loop keeps serving the fakes meanwhile."""
    environ = {k: v for k, v in os.environ.items() if "TOKEN" not in k.upper()}
    environ.update(STUDYBOT_DATA_DIR=str(data_dir or tmp_path / "data"), PYTHONUNBUFFERED="1", **(env or {}))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "studybot", *args,
        stdin=asyncio.subprocess.PIPE if text_in else stdin,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=environ, cwd=tmp_path, preexec_fn=preexec_fn,
    )  # fmt: skip
    async with asyncio.timeout(timeout):
        out, err = await proc.communicate(text_in.encode() if text_in else None)
    assert proc.returncode is not None
    return Finished(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def console(tmp_path: Path, *args: str, **kwargs: object):
    """The console (no platform), fed one /quit: the failures below happen before it reads."""
    return run_studybot(tmp_path, "run", "--console", *args, text_in="/quit\n", **kwargs)  # type: ignore[arg-type]


def english(tmp_path: Path) -> str:
    path = tmp_path / "en.yaml"
    path.write_text("language: en\n")
    return str(path)


# ------------------------------------------------------------------ the database


def _without_file_permission_override() -> None:
    """As root, drop the capabilities that ignore file modes (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
    CAP_FOWNER) from the bounding set before exec, so the kernel enforces 0555 like for anyone."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _can_drop_capabilities() -> bool:
    status = Path("/proc/self/status").read_text() if Path("/proc/self/status").exists() else ""
    effective = next((line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")), "0")
    return bool(int(effective, 16) & (1 << 8))  # CAP_SETPCAP


async def test_a_read_only_data_directory(tmp_path: Path) -> None:
    if os.geteuid() == 0 and not _can_drop_capabilities():
        pytest.skip("root without CAP_SETPCAP: file modes cannot be enforced on this process")
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o555)
    try:
        done = await console(tmp_path, data_dir=data, preexec_fn=_without_file_permission_override)
    finally:
        data.chmod(0o755)
    done.assert_one_line(f"无法写入数据目录 {data}")
    assert "STUDYBOT_DATA_DIR" in done.line
    assert not (data / "studybot.db").exists()


_KILLED_MID_RUN = """
import os, signal, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("UPDATE chats SET paused = paused")
os.kill(os.getpid(), signal.SIGKILL)  # no checkpoint: the -wal and -shm files stay beside it
"""


async def test_a_read_only_data_directory_that_holds_a_database(tmp_path: Path) -> None:
    """A database left by a process that was killed (its -wal and -shm beside it), now read-only:
    SQLite opens it read-only without a word, so the first write used to end in a traceback."""
    if os.geteuid() == 0 and not _can_drop_capabilities():
        pytest.skip("root without CAP_SETPCAP: file modes cannot be enforced on this process")
    first = await run_studybot(tmp_path, "run", "--console", text_in="/quiz\nB\n/quit\n")
    assert first.code == 0, first.stderr
    data = tmp_path / "data"
    database = data / "studybot.db"
    killed = await asyncio.create_subprocess_exec(sys.executable, "-c", _KILLED_MID_RUN, str(database))
    assert await killed.wait() == -signal.SIGKILL
    assert (data / "studybot.db-wal").exists() and (data / "studybot.db-shm").exists()
    files = [path for path in data.iterdir() if path.is_file()]
    before = {path: path.read_bytes() for path in files}
    for path in files:
        path.chmod(0o444)
    data.chmod(0o555)
    try:
        done = await console(tmp_path, data_dir=data, preexec_fn=_without_file_permission_override)
        english_done = await console(tmp_path, "--config", english(tmp_path), data_dir=data,
                                     preexec_fn=_without_file_permission_override)  # fmt: skip
    finally:
        data.chmod(0o755)
        for path in files:
            path.chmod(0o644)
    done.assert_one_line(f"无法写入数据目录 {data}")
    assert "STUDYBOT_DATA_DIR" in done.line
    english_done.assert_one_line(f"cannot write to the data directory {data}")
    assert {path: path.read_bytes() for path in files} == before  # nothing written


def _disk_of_40_kb() -> None:
    """A full disk without root: the kernel refuses any write past 40 KB (RLIMIT_FSIZE) with EFBIG,
    as it refuses writes on a full disk with ENOSPC; SIGXFSZ ignored so the write fails instead."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))


async def test_a_full_disk(tmp_path: Path) -> None:
    done = await console(tmp_path, preexec_fn=_disk_of_40_kb)
    done.assert_one_line("磁盘已满或写入出错")
    assert str(tmp_path / "data" / "studybot.db") in done.line


async def test_a_file_that_is_not_a_database_in_english(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "studybot.db").write_bytes(b"these are not the pages you are looking for\n" * 200)
    done = await console(tmp_path, "--config", english(tmp_path))
    done.assert_one_line(f"the database {data / 'studybot.db'} is damaged (file is not a database)")
    assert "backup" in done.line


async def test_a_database_damaged_in_the_middle_is_found_at_start_up(tmp_path: Path) -> None:
    first = await run_studybot(tmp_path, "run", "--console", text_in="/quiz\nB\n/quit\n")
    assert first.code == 0, first.stderr
    path = tmp_path / "data" / "studybot.db"
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (rounds_root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'rounds'").fetchone()
        assert conn.execute("SELECT count(*) FROM chats").fetchone()[0] == 1  # page 2 still reads
    conn.close()
    with path.open("r+b") as file:  # the rounds table's page: read only once someone asks a question
        file.seek((rounds_root - 1) * page_size)
        file.write(b"\xa5" * page_size)
    done = await console(tmp_path)
    done.assert_one_line(f"数据库 {path} 已损坏")
    assert "备份" in done.line


# ------------------------------------------------------------------ the platforms


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_telegram_rejects_the_token(tmp_path: Path, telegram_server: FakeTelegramServer) -> None:  # noqa: F811
    telegram_server.strict = False  # the wrong token is the point
    env = {"TELEGRAM_TOKEN": BAD_TELEGRAM_TOKEN, "TELEGRAM_API_BASE": telegram_server.base_url}
    done = await run_studybot(tmp_path, "run", env=env)
    done.assert_one_line("Telegram 拒绝了 TELEGRAM_TOKEN")
    assert "@BotFather" in done.line
    assert BAD_TELEGRAM_TOKEN not in done.stdout + done.stderr
    assert BAD_TELEGRAM_TOKEN.split(":")[1] not in done.stdout + done.stderr


async def test_discord_rejects_the_token_in_english(tmp_path: Path, fake_discord: FakeDiscord) -> None:  # noqa: F811
    fake_discord.strict = False
    env = {"DISCORD_TOKEN": BAD_DISCORD_TOKEN, "DISCORD_API_BASE": fake_discord.api_base,
           "DISCORD_GATEWAY_URL": fake_discord.gateway_url}  # fmt: skip
    done = await run_studybot(tmp_path, "run", "--config", english(tmp_path), env=env)
    done.assert_one_line("Discord rejected DISCORD_TOKEN")
    assert "Developer Portal" in done.line
    assert BAD_DISCORD_TOKEN not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("platform", "variables"),
    [
        ("Telegram", {"TELEGRAM_TOKEN": BAD_TELEGRAM_TOKEN, "TELEGRAM_API_BASE": "http://127.0.0.1:{port}/bot"}),
        ("Discord", {"DISCORD_TOKEN": BAD_DISCORD_TOKEN, "DISCORD_API_BASE": "http://127.0.0.1:{port}/api/v10"}),
    ],
)
async def test_an_unreachable_api(tmp_path: Path, platform: str, variables: dict[str, str]) -> None:
    port = closed_port()
    env = {name: value.format(port=port) for name, value in variables.items()}
    done = await run_studybot(tmp_path, "run", env=env)
    done.assert_one_line(f"无法连接 {platform}（http://127.0.0.1:{port}")
    assert f"{platform.upper()}_API_BASE" in done.line
    assert BAD_TELEGRAM_TOKEN not in done.stdout + done.stderr and BAD_DISCORD_TOKEN not in done.stderr


# ------------------------------------------------------------------ nothing to run


async def test_no_token_and_no_input_names_the_variables(tmp_path: Path) -> None:
    done = await run_studybot(tmp_path, "run", stdin=subprocess.DEVNULL)  # as `docker run` without -it
    done.assert_one_line("DISCORD_TOKEN", code=2)
    assert "TELEGRAM_TOKEN" in done.line and "docker run -it" in done.line
    assert done.stdout == ""  # no welcome
    assert not (tmp_path / "data").exists()  # and nothing created


def _close_stdin() -> None:
    os.close(0)


async def test_no_token_and_a_closed_stdin_in_english(tmp_path: Path) -> None:
    done = await run_studybot(tmp_path, "--config", english(tmp_path), preexec_fn=_close_stdin)
    done.assert_one_line("nothing to run: neither DISCORD_TOKEN nor TELEGRAM_TOKEN is set", code=2)


async def test_a_near_miss_token_name_is_named_and_its_value_never_shown(tmp_path: Path) -> None:
    near = "123456789:AAnearMissTokenValueNeverPrinted_0123"
    env = {"TELEGRAM_BOT_TOKEN": near, "discord_token": "lowercase-discord-token-value"}
    done = await run_studybot(tmp_path, "run", "--config", english(tmp_path), env=env)
    assert done.code == 2
    said = "{} is set, but studybot does not read it; did you mean {}?"
    assert said.format("TELEGRAM_BOT_TOKEN", "TELEGRAM_TOKEN") in done.stderr
    assert said.format("discord_token", "DISCORD_TOKEN") in done.stderr
    assert near not in done.stderr and "lowercase-discord-token-value" not in done.stderr
    assert done.lines[-1].startswith("studybot: nothing to run")


async def test_piped_input_still_runs_the_console_and_says_why(tmp_path: Path) -> None:
    done = await run_studybot(tmp_path, "--config", english(tmp_path), text_in="/help\n/quit\n")
    assert done.code == 0, done.stderr
    assert "studybot console" in done.stdout and done.stdout.rstrip().endswith("Bye!")
    assert "neither DISCORD_TOKEN nor TELEGRAM_TOKEN is set: starting the console." in done.stderr


def test_the_catalog_has_every_start_up_sentence_in_both_languages() -> None:
    for key in ("startup.data_unwritable", "startup.disk_full", "startup.db_damaged", "startup.no_token"):
        assert t("zh-CN", key, path="p", detail="d") != t("en", key, path="p", detail="d")




async def test_a_bad_admins_list_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    path = tmp_path / "admins.yaml"
    path.write_text("admins:\n  telegram: [alice]\n")  # a name, not Telegram's numeric user id
    done = await console(tmp_path, "--config", str(path))
    assert done.code != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "admins" in lines[0] and "'alice'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not done.stdout.strip()
