"""Real APScheduler jobs, real clock, short real intervals: dailies fire and deadlines reveal; an
action that returns a coroutine is awaited by the adapter, and refused by the test scheduler
(bare APScheduler would drop it)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import random
import threading
from datetime import UTC, datetime, timedelta

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

from adapters.scheduling.aps import ApsScheduler
from bot.application.requests import SubmitAnswer
from bot.domain.clock import SystemClock, zone
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.records import DailySchedule
from studybot.bootstrap import bootstrap
from studybot.config import Config
from tests.fakes.ports import DroppedAction, ManualScheduler, RecordingPort

SHANGHAI = ChatRef(Platform.CONSOLE, "shanghai", ChatKind.GROUP)
NEW_YORK = ChatRef(Platform.CONSOLE, "new-york", ChatKind.GROUP)


def local_hms(when: datetime, tz: str) -> str:
    return when.astimezone(zone(tz)).strftime("%H:%M:%S")


async def test_dailies_fire_at_local_time_in_two_timezones_and_reveal_at_the_deadline(tmp_path, bank):
    config = Config(data_dir=tmp_path, default_bank="sample", language="en", sqlite_synchronous="NORMAL")
    app = await bootstrap(config, clock=SystemClock(), rng=random.Random(3), banks={bank.id: bank})
    port = RecordingPort()
    app.add_port(port)
    try:
        await app.start()
        fire_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=3)
        for chat, tz in ((SHANGHAI, "Asia/Shanghai"), (NEW_YORK, "America/New_York")):
            view = await app.dailies.set_daily(chat, local_hms(fire_at, tz), timezone=tz, deadline_seconds=4)
            assert view.next_post == fire_at
            assert app.dailies.next_post((await app.quiz.chat(chat)).id) == fire_at
        questions = await port.wait_for("question", 2)
        for question in questions:
            assert fire_at <= question.opened_at < fire_at + timedelta(seconds=2)  # a busy CI machine lags
        first = questions[0]
        await app.quiz.submit(SubmitAnswer(first.round_id, UserRef(Platform.CONSOLE, "u", "U"), "A"))
        reveals = await port.wait_for("reveal", 2)
        assert {r.round_id for r in reveals} == {q.round_id for q in questions}
        closed = await app.store.get_round(first.round_id)
        assert closed.closed_at >= closed.closes_at
        assert next(r for r in reveals if r.round_id == first.round_id).total_answers == 1
    finally:
        await app.close()


async def test_a_one_shot_job_replaced_by_its_own_running_step_still_runs():
    """A contest step schedules the next step under the same job id, then waits for its posts; the
    next step falls due meanwhile and must run, not be skipped as a second instance."""
    scheduler = ApsScheduler()
    scheduler.start()
    next_ran, release = asyncio.Event(), asyncio.Event()

    async def next_step() -> None:
        next_ran.set()

    async def step() -> None:
        scheduler.at("contest:1", datetime.now(UTC) + timedelta(milliseconds=50), next_step)
        await release.wait()  # still posting (a 429 storm) when the next step is due

    try:
        scheduler.at("contest:1", datetime.now(UTC), step)
        async with asyncio.timeout(10):
            await next_ran.wait()
    finally:
        release.set()
        await scheduler.shutdown()


# ---------------------------------------------------------------- actions that return a coroutine


async def test_apscheduler_runs_a_plain_function_in_a_thread_and_drops_the_coroutine_it_returns():
    """What the test scheduler must not be kinder than: bare AsyncIOScheduler, given a lambda that
    calls an `async def`, runs the lambda in a worker thread and never awaits what it built."""
    ran = asyncio.Event()
    built: list = []
    loop = asyncio.get_running_loop()

    async def hand_in() -> None:
        ran.set()

    def lambda_style():
        coroutine = hand_in()
        built.append(coroutine)  # kept alive (and closed below) so no warning fires here
        loop.call_soon_threadsafe(called.set)
        return coroutine

    called = asyncio.Event()
    scheduler = AsyncIOScheduler(timezone=UTC)
    scheduler.start()
    try:
        scheduler.add_job(lambda_style, DateTrigger(run_date=datetime.now(UTC)))
        async with asyncio.timeout(10):
            await called.wait()
        (coroutine,) = built
        assert inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED  # never started
        assert not ran.is_set()
        coroutine.close()
    finally:
        scheduler.shutdown(wait=True)


def test_the_test_scheduler_refuses_an_action_apscheduler_would_drop(clock):
    scheduler = ManualScheduler(clock)

    async def hand_in(mock_id: int) -> None: ...

    async def time_up() -> None:
        await hand_in(1)

    when = clock.now() + timedelta(minutes=1)
    for schedule in (
        lambda action: scheduler.at("mock-end:1", when, action),
        lambda action: scheduler.daily("daily:1", DailySchedule(1, "09:00", "UTC", 60), action, 60),
        lambda action: scheduler.every("sweep", 60, action),
    ):
        with pytest.raises(DroppedAction, match="not a coroutine function"):
            schedule(lambda: hand_in(1))  # the old Mocks._schedule
        schedule(time_up)  # an async def is what APScheduler awaits
        schedule(functools.partial(hand_in, 1))  # and so is a partial of one
    assert set(scheduler.jobs) == {"mock-end:1", "daily:1", "sweep"}


async def test_the_adapter_awaits_an_action_that_returns_a_coroutine():
    """The port promises an action returning an awaitable; the adapter awaits it on the loop for
    any such callable (a lambda calling an `async def` included), for one-shot, daily and interval
    jobs, so a mistake in the core cannot silently drop a hand-in."""
    scheduler = ApsScheduler()
    scheduler.start()
    fired: dict[str, asyncio.Event] = {name: asyncio.Event() for name in ("at", "daily", "every")}
    threads: set[int] = set()

    async def fire(name: str) -> None:
        threads.add(threading.get_ident())
        fired[name].set()

    try:
        soon = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
        daily = DailySchedule(1, local_hms(soon, "Asia/Shanghai"), "Asia/Shanghai", 60)
        scheduler.at("mock-end:1", datetime.now(UTC), lambda: fire("at"))
        scheduler.daily("daily:1", daily, lambda: fire("daily"), 60)
        scheduler.every("sweep", 0.2, lambda: fire("every"))
        async with asyncio.timeout(10):
            for event in fired.values():
                await event.wait()
        assert threads == {threading.get_ident()}  # on the event loop, not in a worker thread
    finally:
        await scheduler.shutdown()
