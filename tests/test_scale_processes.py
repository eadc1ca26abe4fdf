"""Two real `studybot run` processes on one PostgreSQL database against one fake Telegram: the
dailies of 50 chats due at the same instant are each posted exactly once, the work split between
the processes; and when one process is killed (SIGKILL) in the middle of the next fan-out, the
survivor posts every question it left, within 30 s, and no chat gets one twice."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.domain.clock import zone
from bot.domain.kinds import ChatKind, ChatRef, Platform
from studybot.bootstrap import bootstrap
from studybot.config import Config
from tests.contract.conftest import fresh_database, pg_server  # noqa: F401  (fixture)
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401  (fixture)
from tests.fakes.telegram_model import FakeChat
from tests.fakes.telegram_server import FakeTelegramServer
from tests.pg_server import PgServer
from tests.process import BotProcess, wait_until

CHATS = 50
TZ = "Asia/Shanghai"
HEADER = "Daily question"
LEAD = 25  # seconds to the first fan-out: two processes start meanwhile on a loaded machine
GAP = 20  # seconds from the first fan-out to the second
TAKEOVER = 30  # seconds the survivor may take to post what the killed process owed


def group(batch: int, n: int) -> FakeChat:
    return FakeChat(-1_009_000_000 - batch * 1000 - n, "supergroup", title=f"batch {batch} group {n}")


async def set_dailies(dsn: str, data_dir: Path, chats: list[FakeChat], at: datetime) -> None:
    """Give each chat a daily at `at` through the real application, as /daily would."""
    config = Config(data_dir=data_dir, database_url=dsn, language="en", timezone=TZ)
    app = await bootstrap(config)
    try:
        local = at.astimezone(zone(TZ)).strftime("%H:%M:%S")
        for chat in chats:
            ref = ChatRef(Platform.TELEGRAM, str(chat.id), ChatKind.GROUP, title=chat.title or "")
            view = await app.dailies.set_daily(ref, local)
            assert view.next_post == at
    finally:
        await app.close()


def questions_in(server: FakeTelegramServer, chat: FakeChat) -> int:
    return sum(m.text.startswith(HEADER) for m in server.messages_in(chat.id))


def refused_posts(server: FakeTelegramServer) -> int:
    return sum(1 for e in server.log if e.method == "sendMessage" and not e.ok)


@pytest.fixture
async def two_processes(
    tmp_path: Path,
    telegram_server: FakeTelegramServer,  # noqa: F811
    pg_server: PgServer,  # noqa: F811
) -> AsyncIterator[tuple[list[BotProcess], str, datetime, datetime]]:
    dsn = await fresh_database(pg_server)
    first_at = (datetime.now(UTC) + timedelta(seconds=LEAD)).replace(microsecond=0)
    second_at = first_at + timedelta(seconds=GAP)
    for batch, at in ((1, first_at), (2, second_at)):
        chats = [telegram_server.add_chat(group(batch, n)) for n in range(CHATS)]
        await set_dailies(dsn, tmp_path / "seed", chats, at)
    config = tmp_path / "studybot.yaml"
    config.write_text(f"language: en\ntimezone: {TZ}\ntelegram_webhook_listen: 127.0.0.1\n"
                      "telegram_webhook_port: 0\n")  # fmt: skip
    env = {"TELEGRAM_TOKEN": telegram_server.token, "TELEGRAM_API_BASE": telegram_server.base_url,
           "TELEGRAM_WEBHOOK_URL": "https://studybot.example/telegram",
           "STUDYBOT_TELEGRAM_WEBHOOK_SECRET": "scale-test-secret",
           "STUDYBOT_DATABASE_URL": dsn}  # fmt: skip
    bots = [await BotProcess.start(tmp_path / f"data{n}", config, env=env) for n in (1, 2)]
    try:
        await telegram_server.wait_until(lambda: len(telegram_server.calls("setWebhook")) >= 2, timeout=LEAD)
        yield bots, dsn, first_at, second_at
    finally:
        for bot in bots:
            if bot.proc.returncode is None:
                bot.proc.send_signal(signal.SIGTERM)
                async with asyncio.timeout(30):
                    await bot.proc.wait()
                    await bot._reader


async def test_dailies_posted_once_by_two_processes_and_the_survivor_takes_over_a_kill(
    telegram_server: FakeTelegramServer,  # noqa: F811
    two_processes,
) -> None:
    server = telegram_server
    bots, dsn, first_at, second_at = two_processes
    first = [server.chats[group(1, n).id] for n in range(CHATS)]
    second = [server.chats[group(2, n).id] for n in range(CHATS)]

    # 1. Both alive: every chat gets its question once, and both processes did some of the work.
    await wait_until(first_at)
    await server.wait_until(lambda: all(questions_in(server, c) for c in first), timeout=60)
    db = await asyncpg.connect(dsn)
    try:
        owners = await db.fetch("SELECT owner, count(*) FROM firings WHERE key LIKE 'daily:%' GROUP BY owner")
    finally:
        await db.close()
    assert len(owners) == 2 and sum(n for _, n in owners) == CHATS, owners

    # 2. One killed mid-fan-out: a flood-control storm holds every post in the outbox (so none
    # is on the wire at the kill), the first process dies holding its share, the storm ends.
    await wait_until(second_at)
    await server.wait_until(lambda: sum(questions_in(server, c) for c in second) >= 10, timeout=60)
    server.storm("sendMessage", retry_after=1)
    refused = refused_posts(server)
    await server.wait_until(lambda: refused_posts(server) >= refused + 20, timeout=30)
    posted = sum(questions_in(server, c) for c in second)
    await bots[0].kill()
    killed_at = time.monotonic()
    server.calm()
    assert posted < CHATS  # the kill did come mid-fan-out
    await server.wait_until(lambda: all(questions_in(server, c) for c in second), timeout=TAKEOVER + 15)
    took = time.monotonic() - killed_at
    print(f"split {sorted(n for _, n in owners)}; the survivor posted the rest {took:.1f} s after the kill")
    assert took <= TAKEOVER, f"the survivor took {took:.1f} s to post the rest"

    assert [questions_in(server, c) for c in first + second] == [1] * (2 * CHATS)  # none twice
    assert bots[1].proc.returncode is None
    assert "Traceback" not in bots[1].output, bots[1].output
