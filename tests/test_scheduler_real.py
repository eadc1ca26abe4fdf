"""Real APScheduler jobs, real clock, short real intervals: dailies fire and deadlines reveal."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

from adapters.scheduling.aps import ApsScheduler
from bot.clock import SystemClock, zone
from bot.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.messages import SubmitAnswer
from studybot.bootstrap import bootstrap
from studybot.config import Config
from tests.fakes.ports import RecordingPort

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
