"""The core's Scheduler port on one APScheduler 3.x AsyncIOScheduler per process.

Jobs live in memory only: the database is the source of truth and the core rebuilds every job
from it at start-up. Misfire handling is deliberate rather than APScheduler's default (which
silently skips a job more than one second late): deadlines and contest steps run however late
they are, and a daily runs if it is less late than the configured grace, once (coalesced).

APScheduler runs at most `max_instances` runs of one job id at a time and skips (with a warning)
a run due while that many are still running. A one-shot job (`at`) is often replaced under its
own id by the very run it belongs to (a contest step schedules the next step, then waits for its
posts to go out; in a 429 storm that takes longer than the pause), so one-shot jobs may overlap:
otherwise the next step would be skipped and the contest would stall for good.

Every action is handed to APScheduler wrapped in a coroutine function that awaits what the action
returns. APScheduler's asyncio executor awaits only a coroutine *function*; anything else it runs in
a worker thread and throws its result away, so `lambda: self._time_up(id)` would build a coroutine
nobody awaits ("coroutine … was never awaited") and the job would silently do nothing.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.domain.clock import zone
from bot.domain.daily_times import WEEKDAY_NAMES, parse_local_time
from bot.domain.records import DailySchedule
from bot.ports.scheduler import Action

log = logging.getLogger("studybot.scheduler")
ONE_SHOT_OVERLAP = 1_000  # runs of one one-shot job id at once: in effect, never skipped


def daily_trigger(schedule: DailySchedule) -> CronTrigger:
    at = parse_local_time(schedule.local_time)
    return CronTrigger(
        day_of_week=",".join(WEEKDAY_NAMES[d] for d in schedule.weekdays),
        hour=at.hour,
        minute=at.minute,
        second=at.second,
        timezone=zone(schedule.timezone),
    )


def awaited(action: Callable[[], object]) -> Callable[[], object]:
    """`action` as a coroutine function APScheduler awaits on the loop, whatever it returns: a
    coroutine (an `async def`, or a lambda calling one) is awaited; a plain result is dropped."""

    @functools.wraps(action)  # APScheduler's log lines name the action, not this wrapper
    async def run() -> None:
        result = action()
        if inspect.isawaitable(result):
            await result

    return run


class ApsScheduler:
    def __init__(self) -> None:
        self._scheduler = AsyncIOScheduler(
            timezone=UTC,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )

    def start(self) -> None:
        """Start on the running asyncio loop (call from inside it)."""
        if not self._scheduler.running:
            self._scheduler.start()

    async def shutdown(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)

    def at(self, job_id: str, when: datetime, action: Action) -> None:
        self._scheduler.add_job(
            awaited(action), DateTrigger(run_date=when), id=job_id, replace_existing=True,
            misfire_grace_time=None, max_instances=ONE_SHOT_OVERLAP,
        )  # fmt: skip

    def daily(self, job_id: str, schedule: DailySchedule, action: Action, grace_seconds: float) -> None:
        trigger = daily_trigger(schedule)
        self._scheduler.add_job(
            awaited(action),
            trigger,
            id=job_id,
            replace_existing=True,
            misfire_grace_time=max(int(grace_seconds), 1),
            coalesce=True,
            # Set even before the scheduler starts, so next_run() answers for a pending job too.
            next_run_time=trigger.get_next_fire_time(None, datetime.now(UTC)),
        )

    def every(self, job_id: str, seconds: float, action: Action) -> None:
        trigger = IntervalTrigger(seconds=seconds)
        self._scheduler.add_job(awaited(action), trigger, id=job_id, replace_existing=True)

    def cancel(self, job_id: str) -> None:
        try:
            self._scheduler.remove_job(job_id)
        except JobLookupError:
            pass

    def next_run(self, job_id: str) -> datetime | None:
        job = self._scheduler.get_job(job_id)
        return job.next_run_time if job else None

    def job_ids(self) -> list[str]:
        return [job.id for job in self._scheduler.get_jobs()]
