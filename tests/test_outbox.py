"""Pacing, retries and durability of posts the core makes on its own, in virtual time."""

from __future__ import annotations

import asyncio
import logging

import pytest

from adapters.ops.prometheus import PrometheusMetrics
from adapters.storage.backends import SqliteStorage
from bot.application.outbox import Outbox, Pacer
from bot.domain.kinds import ChatKind, ChatRef, Platform
from bot.domain.records import Chat, ChatSettings
from bot.ports.chat import PaceLimits, RetryLater
from bot.views.quiz import notice
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


class LateTime(VirtualTime):
    """Every sleep wakes `late` seconds after it was due, as asyncio's do on a busy loop."""

    def __init__(self, late: float) -> None:
        super().__init__()
        self.late = late

    async def sleep(self, seconds: float) -> None:
        await super().sleep(seconds + self.late if seconds > 0 else seconds)


async def test_late_wake_ups_do_not_cost_the_rate():
    """Waking 1.5 ms late at each of Discord's 20 ms slots cost 5-7 % of the rate."""
    vt = LateTime(0.0015)
    pacer = Pacer(PaceLimits(50, 5, 5), monotonic=vt.monotonic, sleep=vt.sleep)
    admitted = []
    for i in range(1000):
        await pacer.acquire(f"chat-{i}")
        admitted.append(vt.now)
    assert max_in_window(admitted, 1.0) <= 50
    assert len(admitted) / admitted[-1] >= 0.95 * 50


async def test_pacer_keeps_under_the_per_chat_window():
    vt = VirtualTime()
    pacer = Pacer(PaceLimits(50, 5, 5), monotonic=vt.monotonic, sleep=vt.sleep)
    admitted = []
    for _ in range(23):
        await pacer.acquire("channel")
        admitted.append(vt.now)
    assert max_in_window(admitted, 5.0) <= 5
    assert admitted[5] >= 5.0


class Chats:
    """The outbox's ChatChanges on a real store (the Quiz's part of it)."""

    def __init__(self, storage: SqliteStorage) -> None:
        self.store = storage.store

    async def move_chat(self, ref: ChatRef, new_chat_key: str) -> None:
        found = await self.store.find_chat(str(ref.platform), ref.chat_key)
        assert found is not None
        await self.store.move_chat(found.id, new_chat_key)

    async def pause_chat(self, ref: ChatRef) -> None:
        found = await self.store.find_chat(str(ref.platform), ref.chat_key)
        assert found is not None
        await self.store.set_chat_paused(found.id, True)

    async def set_message_ref(self, round_id: int, message_ref: str) -> None:
        await self.store.set_message_ref(round_id, message_ref)


@pytest.fixture
async def storage(tmp_path):
    opened = await SqliteStorage.open(tmp_path / "studybot.db", synchronous="NORMAL")
    yield opened
    await opened.close()


async def outbox_for(storage, vt: VirtualTime, port: RecordingPort | None = None, sleep=None) -> Outbox:
    outbox = Outbox(Chats(storage), storage.outbox, storage.store, sleep=sleep or vt.sleep)
    if port is not None:
        outbox.register(port, Pacer(port.limits, monotonic=vt.monotonic, sleep=vt.sleep))
    return outbox


async def a_chat(storage, key: str = "c", platform: Platform = Platform.CONSOLE) -> Chat:
    return await storage.store.ensure_chat(
        ChatRef(platform, key, ChatKind.GROUP), ChatSettings("sample", "UTC", "en")
    )


async def test_retry_after_is_honoured_and_the_post_delivered(storage):
    vt = VirtualTime()
    port = RecordingPort(fail_with=[RetryLater(3), RetryLater(2)])
    outbox = await outbox_for(storage, vt, port)
    await outbox.post_notice(await a_chat(storage), notice("daily.off", "en"))
    await outbox.settled()
    assert len(port.of("notice")) == 1 and vt.slept == [3, 2] and outbox.failures == 0
    assert await storage.outbox.pending_posts() == []
    await outbox.close()


async def test_posts_paced_and_429s_are_counted_in_the_metrics(storage):
    vt = VirtualTime()
    metrics = PrometheusMetrics()
    port = RecordingPort(fail_with=[RetryLater(3)])
    outbox = Outbox(Chats(storage), storage.outbox, storage.store, sleep=vt.sleep, metrics=metrics)
    outbox.register(port, Pacer(port.limits, monotonic=vt.monotonic, sleep=vt.sleep))
    await outbox.post_notice(await a_chat(storage), notice("daily.off", "en"))
    await outbox.settled()
    text = metrics.exposition()[0].decode()
    assert 'studybot_posts_paced_total{platform="console"} 2.0' in text  # the refused try and the retry
    assert 'studybot_retry_later_total{platform="console"} 1.0' in text
    await outbox.close()


async def test_a_post_is_never_given_up_while_the_platform_says_later(storage, caplog):
    vt = VirtualTime()
    port = RecordingPort(fail_with=[ConnectionError("reset")] * 12)
    outbox = await outbox_for(storage, vt, port)
    with caplog.at_level(logging.INFO, logger="studybot.outbox"):
        await outbox.post_notice(await a_chat(storage, "group-42"), notice("daily.off", "en"))
        await outbox.settled()
    assert outbox.failures == 0 and len(port.posted) == 1
    assert vt.slept == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60, 60, 60]  # exponential backoff, capped
    assert "notice to console chat group-42 failed (ConnectionError: reset); attempt 12" in caplog.text
    await outbox.close()


async def test_order_per_chat_is_kept_and_what_is_owed_survives_a_restart(storage):
    vt = VirtualTime()
    port = RecordingPort(fail_with=[RetryLater(3600)])
    first = await outbox_for(storage, vt, port, sleep=lambda _: asyncio.get_running_loop().create_future())
    target = await a_chat(storage)
    for key in ("contest.started", "daily.off", "error.bad_args"):
        await first.post_notice(target, notice(key, "en"))
    assert port.posted == []  # all wait behind the first
    await first.close()  # the process stops; the posts stay owed
    assert [p.view.key for p in await storage.outbox.pending_posts()] == [  # type: ignore[union-attr]
        "contest.started", "daily.off", "error.bad_args",
    ]  # fmt: skip
    second = await outbox_for(storage, vt, port)
    await second.resume()
    assert [n.key for _, _, n in port.posted] == ["contest.started", "daily.off", "error.bad_args"]
    assert await storage.outbox.pending_posts() == []


@pytest.mark.parametrize("platform", [Platform.TELEGRAM])
async def test_no_adapter_for_the_platform_is_logged_and_the_post_kept(storage, caplog, platform):
    outbox = await outbox_for(storage, VirtualTime())
    target = await a_chat(storage, "99", platform)
    with caplog.at_level(logging.ERROR, logger="studybot.outbox"):
        await outbox.post_notice(target, notice("daily.off", "en"))
    assert "no telegram adapter running" in caplog.text
    assert len(await storage.outbox.pending_posts()) == 1


async def test_a_rejected_post_is_not_retried_and_a_gone_chat_is_paused(storage, caplog):
    from bot.ports.chat import ChatGone, PostRejected

    vt = VirtualTime()
    port = RecordingPort(fail_with=[PostRejected("Bad Request: message is too long")])
    outbox = await outbox_for(storage, vt, port)
    target = await a_chat(storage)
    with caplog.at_level(logging.ERROR, logger="studybot.outbox"):
        await outbox.post_notice(target, notice("daily.off", "en"))
    assert outbox.failures == 1 and vt.slept == [] and "message is too long" in caplog.text
    port.fail_with.append(ChatGone("Forbidden: bot was blocked by the user"))
    await outbox.post_notice(target, notice("daily.off", "en"))
    assert (await storage.store.get_chat(target.id)).paused
    assert await storage.outbox.pending_posts() == [] and port.posted == []


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
    assert max_in_window(admitted, 0.9999) <= 29  # (float rounding at the window edge)


async def test_idle_chats_are_forgotten():
    vt = VirtualTime()
    pacer = Pacer(PaceLimits(1000, 20, 1), monotonic=vt.monotonic, sleep=vt.sleep)
    for i in range(5000):
        await pacer.acquire(f"chat-{i}")
    assert len(pacer._recent) < 2100


class SlowPort(RecordingPort):
    """A platform that has taken each post but answers only when let: a send under way."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.answer = asyncio.Event()

    async def post_notice(self, chat, notice) -> None:
        self.entered.set()
        await self.answer.wait()
        await super().post_notice(chat, notice)


async def test_a_stop_lets_the_post_under_way_finish_and_starts_no_other(storage):
    port = SlowPort()
    outbox = await outbox_for(storage, VirtualTime(), port)
    target = await a_chat(storage)
    for key in ("daily.off", "contest.started"):
        await outbox.owe(target, notice(key, "en"))
    draining = asyncio.create_task(outbox.drain(target.id))
    await port.entered.wait()
    stopping = asyncio.create_task(outbox.quiesce())
    for _ in range(20):  # the stop waits for the answer, however many turns the loop takes
        await asyncio.sleep(0)
    assert not stopping.done()
    port.answer.set()
    await stopping
    await draining
    # The first is recorded as delivered; the second was not begun and stays owed for the next start.
    assert [n.key for n in port.of("notice")] == ["daily.off"]
    assert [p.view.key for p in await storage.outbox.pending_posts()] == ["contest.started"]  # type: ignore[union-attr]
    await outbox.drain(target.id)  # stopping: nothing more goes out
    assert len(port.posted) == 1
    await outbox.close()
