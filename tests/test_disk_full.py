"""The real `studybot run` (Telegram long polling against the fake Bot API) on a small disk of
its own (a tmpfs of limited size; root only): the disk full while a contest runs, and a disk
of 512 KiB.

A full disk at run time is one warning in the log, and one line when the bot can write again;
no traceback. Meanwhile every command and click is answered in the chat's language ("the disk
is full, try again later"), and the contest goes on once there is space again. On a disk of
512 KiB start-up leaves the WAL empty (it used to fill the disk, and an admin's `/contest start`
then got no contest and no word), so the contest runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.fakes.telegram_server import FakeTelegramServer
from tests.process import BotProcess, terminate, wait_until
from tests.test_telegram_harness import _is_question
from tests.waits import HANG

GROUP = FakeChat(-1001000000091, "supergroup", title="小磁盘")
BOSS = FakeUser(31, "Boss", "boss", "zh-hans")
ANN = FakeUser(32, "Ann", "ann", "zh-hans")
ZH = "zh-CN"
FULL_WARNING = "database: cannot write"
RECOVERED = "database: writing again"
SETTLE = 10  # seconds without a failed write before the recovery is logged (fault_episodes.py)
SWEEP = 5 + 2  # the due-work sweep's period and the contest step's slack (bootstrap, contests)
# A question's time: long enough that the disk is filled and the click answered before it runs
# out, on a loaded machine too (at 5 s the round sometimes closed before the click, whose toast
# then said so instead of "the disk is full"; at 20 s with two commands before the click, beside
# eight CPU-bound processes on two cores, the question had closed).
QUESTION_SECONDS = 30


@contextlib.contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted at `where`, unmounted after."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True, text=True, check=False)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> Path:
    """Write to a file until the disk refuses more (ENOSPC); the file, to delete to free it."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for chunk in (b"\0" * 4096, b"\0"):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, chunk)
    finally:
        os.close(fd)
    assert shutil.disk_usage(disk).free < 4096
    return filler


async def fill_until_refused(server: FakeTelegramServer, disk: Path) -> Path:
    """Fill the disk, then write until the bot is refused. SQLite writes into the WAL it already
    has: a WAL of a few hundred pages, reset by a checkpoint, takes many writes again with no new
    block of the disk, so a full disk alone refused nothing for a whole minute (seen in CI). So
    before each try the WAL is folded into the file and truncated from a second connection (as
    any other SQLite process may), then the disk is filled, then a member the bot has not seen
    yet writes (registering them is a write the bot cannot skip). Bounded by time, not by a
    count."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + HANG
    replies: list[str] = []
    database = disk / "data" / "studybot.db"
    while loop.time() < give_up:
        (disk / "filler").unlink(missing_ok=True)
        await asyncio.to_thread(truncate_wal, database)
        fill(disk)
        newcomer = FakeUser(9000 + len(replies), f"Filler{len(replies)}", None, "zh-hans")
        replies.append(await say(server, newcomer, "/stats"))
        if replies[-1] == t(ZH, "error.store_full_command"):
            return fill(disk)
    raise AssertionError(f"the bot kept writing on a full disk: {len(replies)} replies, last {replies[-1]!r}")


def truncate_wal(database: Path) -> None:
    """Fold the WAL into the database file and truncate it, from a connection of our own: the
    bot's next write then needs new blocks of the disk. Busy (the bot is reading) is no harm:
    the caller tries again."""
    connection = sqlite3.connect(database, timeout=5)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        connection.close()


@contextlib.asynccontextmanager
async def bot_on(disk: Path, server: FakeTelegramServer) -> AsyncIterator[BotProcess]:
    config = disk.parent / "studybot.yaml"
    config.write_text("language: zh-CN\ntimezone: UTC\ncontest:\n  pause_seconds: 1\n", encoding="utf-8")
    env = {"TELEGRAM_TOKEN": server.token, "TELEGRAM_API_BASE": server.base_url}
    server.set_member_status(GROUP.id, BOSS, "creator")
    polls = server.poll_generation
    bot = await BotProcess.start(disk / "data", config, env=env)
    try:
        await server.wait_until(lambda: server.poll_generation > polls and server.waiting_polls > 0,
                                timeout=60)  # fmt: skip
        yield bot
    finally:
        if bot.proc.returncode is None:
            await terminate(bot)


async def say(server: FakeTelegramServer, user: FakeUser, text: str) -> str:
    """`user` writes `text` in the group; the text of the bot's reply to it."""
    update = server.user_message(GROUP, user, text)
    message_id = update["message"]["message_id"]

    def replied(params: dict) -> bool:
        replying_to = params.get("reply_parameters", {}).get("message_id")
        return params["chat_id"] == GROUP.id and replying_to == message_id

    return (await server.wait_for_request("sendMessage", replied, timeout=HANG))["text"]


async def start_contest(server: FakeTelegramServer, questions: int, seconds: int) -> None:
    """The admin starts a contest: the bot says it is running and announces it to the group."""
    reply = await say(server, BOSS, f"/contest start {questions} {seconds}")
    assert reply.startswith(t(ZH, "contest.status", position=1, total=questions, seconds=seconds,
                              count=0)), reply  # fmt: skip
    started = t(ZH, "contest.started", count=questions, seconds=seconds)
    await server.wait_for_request("sendMessage", lambda p: p["text"] == started, timeout=HANG)


async def contest_question(server: FakeTelegramServer, number: int, total: int) -> int:
    """Wait for the contest's question `number` of `total`; its message id (the bot posted it
    before this returns, so its time runs out before now + the question's seconds)."""
    position = t(ZH, "question.contest_position", n=number, total=total)

    def asked(params: dict) -> bool:
        return params["chat_id"] == GROUP.id and _is_question(params["text"]) and position in params["text"]

    params = await server.wait_for_request("sendMessage", asked, timeout=HANG)
    return next(m.message_id for m in server.messages_in(GROUP.id) if m.params is params)


def one_fault_episode(output: str) -> None:
    """What a person reads in the log: one warning, one recovery line, and nothing else amiss."""
    lines = output.splitlines()
    assert "Traceback" not in output, output
    assert [line for line in lines if FULL_WARNING in line and " WARNING " in line] == [
        line for line in lines if FULL_WARNING in line
    ]
    assert sum(FULL_WARNING in line for line in lines) == 1, output
    assert sum(RECOVERED in line for line in lines) == 1, output
    assert not [line for line in lines if " ERROR " in line], output


async def answer_by_buttons(server: FakeTelegramServer, user: FakeUser, message_id: int) -> dict:
    """`user` answers the contest question with its buttons, whatever its type (contests ask
    single and multiple choice and true/false, drawn at random): an answer button, or an option
    toggled and then submitted. The toast of the press that answers."""
    question = server.find_message(GROUP.id, message_id)
    assert question is not None
    data = question.callback_data
    assert any(d.startswith(("a1:", "s1:")) for d in data), f"the question closed first: {question.params}"
    answers = [d for d in data if d.startswith("a1:")]
    if answers:
        return await server.wait_for_callback_answer(server.user_click(GROUP, user, message_id, answers[0]),
                                                     timeout=HANG)  # fmt: skip
    toggle = next(d for d in data if d.startswith("t1:"))
    await server.wait_for_callback_answer(server.user_click(GROUP, user, message_id, toggle), timeout=HANG)
    submit = next(d for d in data if d.startswith("s1:"))
    click = server.user_click(GROUP, user, message_id, submit)
    return await server.wait_for_callback_answer(click, timeout=HANG)


async def test_a_disk_full_while_a_contest_runs(telegram_server: FakeTelegramServer, tmp_path: Path) -> None:  # noqa: F811
    server = telegram_server
    with small_disk(tmp_path / "disk", "4m") as disk:
        async with bot_on(disk, server) as bot:
            await start_contest(server, 2, QUESTION_SECONDS)
            first = await contest_question(server, 1, 2)
            closes_by = datetime.now(UTC) + timedelta(seconds=QUESTION_SECONDS)
            filler = await fill_until_refused(server, disk)

            # Everything that writes is refused in the chat's language; nothing is lost. The click
            # first, while the question is surely open (each reply is a round trip through the
            # fake Bot API, seconds apiece on a loaded machine).
            toast = await answer_by_buttons(server, ANN, first)
            assert toast["text"] == t(ZH, "error.store_full")
            assert await say(server, BOSS, "/stats") == t(ZH, "error.store_full_command")
            assert await say(server, ANN, "/quiz") == t(ZH, "error.store_full_command")
            # The question's time runs out meanwhile: its closing and the sweeps fail quietly.
            await wait_until(closes_by + timedelta(seconds=SWEEP + 1))
            assert bot.output.count(FULL_WARNING) == 1 and RECOVERED not in bot.output, bot.output

            filler.unlink()  # space again: the sweep takes the contest's step, and the bot answers
            await contest_question(server, 2, 2)
            final = t(ZH, "standings.final")
            await server.wait_for_request("sendMessage", lambda p: final in p["text"], timeout=HANG)
            assert (await say(server, ANN, "/stats")).startswith("<b>" + t(ZH, "stats.title", name="Ann"))
            await wait_for_output(bot, RECOVERED, timeout=SETTLE + HANG)
        one_fault_episode(bot.output)


async def test_a_disk_of_512_kib(telegram_server: FakeTelegramServer, tmp_path: Path) -> None:  # noqa: F811
    """Start-up leaves room for the bot's writes; a disk too small to work is said to the admin
    who asks for a contest, in the chat's language; with room, the contest runs."""
    server = telegram_server
    with small_disk(tmp_path / "disk", "512k") as disk:
        async with bot_on(disk, server) as bot:
            wal = disk / "data" / "studybot.db-wal"
            assert not wal.exists() or wal.stat().st_size < 64 * 1024  # it was 324 KiB of the 512
            assert shutil.disk_usage(disk).free > 128 * 1024

            filler = await fill_until_refused(server, disk)  # the rest taken by something else
            reply = await say(server, BOSS, "/contest start 2 3")
            assert reply == t(ZH, "error.store_full_command")
            filler.unlink()
            await wait_for_output(bot, RECOVERED, timeout=SETTLE + HANG)

            await start_contest(server, 2, 3)
            final = t(ZH, "standings.final")
            await server.wait_for_request("sendMessage", lambda p: p["text"].startswith(f"<b>{final}"),
                                          timeout=HANG)  # fmt: skip
        one_fault_episode(bot.output)


async def wait_for_output(bot: BotProcess, text: str, *, timeout: float) -> None:
    await bot.wait_for(text, timeout=timeout)
