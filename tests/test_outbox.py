"""Pacing and retries for posts the core makes on its own, in virtual time."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.kinds import ChatKind, ChatRef, Platform
from bot.messages import notice
from bot.outbox import Outbox, Pacer
from bot.ports import PaceLimits, RetryLater
from bot.records import Chat, ChatSettings
from tests.fakes.ports import RecordingPort


class VirtualTime:
    """A monotonic clock that only moves when someone sleeps on it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)


def chat(key: str, chat_id: int = 1) -> Chat:
    return Chat(chat_id, ChatRef(Platform.CONSOLE, key, ChatKind.GROUP), ChatSettings("sample", "UTC", "en"))


def max_in_window(times: list[float], window: float) -> int:
    times = sorted(times)
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


async def test_pacer_keeps_under_the_global_rate():
    vt = VirtualTime()
    pacer = Pacer(PaceLimits(30, 20, 60), monotonic=vt.monotonic, sleep=vt.sleep)
    admitted = []
    for i in range(300):
        await pacer.acquire(f"chat-{i}")
        admitted.append(vt.now)
    assert max_in_window(admitted, 1.0) <= 30
    rate = len(admitted) / admitted[-1]
    assert 0.9 * 30 <= rate <= 30


async def test_pacer_keeps_under_the_per_chat_window():
    vt = VirtualTime()
    pacer = Pacer(PaceLimits(50, 5, 5), monotonic=vt.monotonic, sleep=vt.sleep)
    admitted = []
    for _ in range(23):
        await pacer.acquire("channel")
        admitted.append(vt.now)
    assert max_in_window(admitted, 5.0) <= 5
    assert admitted[5] >= 5.0


async def test_retry_after_is_honoured_and_the_post_delivered():
    vt = VirtualTime()
    port = RecordingPort(fail_with=[RetryLater(3), RetryLater(2)])
    outbox = Outbox(chats=None, sleep=vt.sleep)  # type: ignore[arg-type]
    outbox.register(port, Pacer(port.limits, monotonic=vt.monotonic, sleep=vt.sleep))
    await outbox.post_notice(chat("c"), notice("daily.off", "en"))
    assert len(port.of("notice")) == 1 and vt.slept == [3, 2] and outbox.failures == 0


async def test_a_post_that_keeps_failing_is_logged_with_the_chat(caplog):
    vt = VirtualTime()
    port = RecordingPort(fail_with=[ConnectionError("reset")] * 6)
    outbox = Outbox(chats=None, sleep=vt.sleep, max_attempts=6)  # type: ignore[arg-type]
    outbox.register(port, Pacer(port.limits, monotonic=vt.monotonic, sleep=vt.sleep))
    with caplog.at_level(logging.INFO, logger="studybot.outbox"):
        await outbox.post_notice(chat("group-42"), notice("daily.off", "en"))
    assert outbox.failures == 1 and port.posted == []
    assert vt.slept == [1, 2, 4, 8, 16]  # exponential backoff
    assert "gave up posting daily.off to console chat group-42 after 6 attempts" in caplog.text


@pytest.mark.parametrize("platform", [Platform.TELEGRAM])
async def test_no_adapter_for_the_platform_is_logged(caplog, platform):
    outbox = Outbox(chats=None)  # type: ignore[arg-type]
    target = Chat(1, ChatRef(platform, "99"), ChatSettings("sample", "UTC", "en"))
    with caplog.at_level(logging.ERROR, logger="studybot.outbox"):
        assert await outbox.post_question(target, None) is None  # type: ignore[arg-type]
    assert "no telegram adapter running" in caplog.text


async def test_a_rejected_post_is_not_retried(caplog):
    from bot.ports import PostRejected

    vt = VirtualTime()
    port = RecordingPort(fail_with=[PostRejected("Bad Request: message is too long")])
    outbox = Outbox(chats=None, sleep=vt.sleep)  # type: ignore[arg-type]
    outbox.register(port, Pacer(port.limits, monotonic=vt.monotonic, sleep=vt.sleep))
    with caplog.at_level(logging.ERROR, logger="studybot.outbox"):
        await outbox.post_notice(chat("c"), notice("daily.off", "en"))
    assert outbox.failures == 1 and vt.slept == [] and "message is too long" in caplog.text


async def test_a_stalled_loop_does_not_release_a_burst():
    """Slots that came due during a stall are not all let through at once."""
    vt = VirtualTime()
    pacer = Pacer(PaceLimits(30, 20, 60), monotonic=vt.monotonic, sleep=vt.sleep)
    admitted = []
    for i in range(200):
        if i == 50:
            vt.now += 4.0  # the event loop was blocked for four seconds
        await pacer.acquire(f"chat-{i}")
        admitted.append(vt.now)
    assert max_in_window(admitted, 0.9999) <= 28  # (float rounding at the window edge)


async def test_idle_chats_are_forgotten():
    vt = VirtualTime()
    pacer = Pacer(PaceLimits(1000, 20, 1), monotonic=vt.monotonic, sleep=vt.sleep)
    for i in range(5000):
        await pacer.acquire(f"chat-{i}")
    assert len(pacer._recent) < 2100
