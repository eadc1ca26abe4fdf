"""Flood control that python-telegram-bot's rate limiter gives up on is one warning line, not a
traceback at ERROR: our outbox retries it, so in a long 429 storm the log used to fill with a
traceback per attempt (real PTB against the fake Telegram server)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import BOSS, GROUP, TelegramHarness, tg_fixture  # noqa: F401


async def test_flood_control_given_up_by_the_rate_limiter_is_one_warning_line(
    tg: TelegramHarness, caplog: pytest.LogCaptureFixture
) -> None:
    server = tg.server
    app = await tg.start(max_retries=1)  # PTB retries once itself, then hands the 429 back
    server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.say(GROUP, BOSS, "/daily set 09:30 150s")
    server.storm("sendMessage", retry_after=1)
    caplog.set_level(logging.DEBUG, logger="telegram.ext.AIORateLimiter")
    gave_up = asyncio.Event()
    loop = asyncio.get_running_loop()

    class GaveUp(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "after maximum" in record.getMessage():
                loop.call_soon_threadsafe(gave_up.set)

    watcher = GaveUp()
    logging.getLogger("telegram.ext.AIORateLimiter").addHandler(watcher)
    try:
        await tg.advance(30 * 60)  # the daily falls due in the storm
        async with asyncio.timeout(30):
            await gave_up.wait()
    finally:
        logging.getLogger("telegram.ext.AIORateLimiter").removeHandler(watcher)
    server.calm()
    async with asyncio.timeout(30):
        await app.outbox.settled()
    await tg.question(GROUP.id)  # delivered after the storm

    limiter = [r for r in caplog.records if r.name == "telegram.ext.AIORateLimiter"]
    given_up = [r for r in limiter if "after maximum" in r.getMessage()]
    assert given_up and all(r.levelno == logging.WARNING for r in given_up)
    assert all(r.exc_info is None and r.exc_text is None for r in limiter)
    assert "RetryAfter" in given_up[0].getMessage() and "\n" not in given_up[0].getMessage()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
