"""Fakes of the core's own ports (not of any library): a hand-driven scheduler and a recording chat.

The scheduler fake keeps jobs in a dict and runs those due when the test says the time has come,
so scheduling logic is tested under a ManualClock without waiting; tests/test_scheduler_real.py
runs the same logic on real APScheduler jobs.

It is never kinder than APScheduler: APScheduler's asyncio executor awaits only a coroutine
function and runs anything else in a worker thread, throwing away what it returns, so an action
such as `lambda: self._time_up(id)` would build a coroutine nobody awaits and the job would do
nothing. The fake refuses such an action when it is scheduled (APScheduler's own test, so a
`functools.partial` of an `async def` passes), and the mistake fails a test instead of a timer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime

from apscheduler.util import iscoroutinefunction_partial

from bot.domain.clock import ManualClock
from bot.domain.daily_times import next_occurrence
from bot.domain.records import DailySchedule
from bot.ports.chat import PaceLimits, PostError
from bot.ports.scheduler import Action
from tests.waits import HANG


@dataclass
class _Job:
    when: datetime | None
    action: Action
    schedule: DailySchedule | None = None
    every: float | None = None


class DroppedAction(TypeError):
    """An action APScheduler would run in a thread and whose coroutine it would drop."""


def refuse_dropped(job_id: str, action: Action) -> Action:
    """`action` if APScheduler's executor would await it; otherwise raise DroppedAction."""
    if not iscoroutinefunction_partial(action):
        raise DroppedAction(
            f"job {job_id!r}: {action!r} is not a coroutine function; APScheduler would run it in a"
            " thread and drop the coroutine it returns (pass an `async def`)"
        )
    return action


class ManualScheduler:
    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.jobs: dict[str, _Job] = {}

    def at(self, job_id: str, when: datetime, action: Action) -> None:
        self.jobs[job_id] = _Job(when, refuse_dropped(job_id, action))

    def daily(self, job_id: str, schedule: DailySchedule, action: Action, grace_seconds: float) -> None:
        action = refuse_dropped(job_id, action)
        self.jobs[job_id] = _Job(next_occurrence(schedule, self.clock.now()), action, schedule)

    def every(self, job_id: str, seconds: float, action: Action) -> None:
        self.jobs[job_id] = _Job(None, refuse_dropped(job_id, action), every=seconds)

    def cancel(self, job_id: str) -> None:
        self.jobs.pop(job_id, None)

    def next_run(self, job_id: str) -> datetime | None:
        job = self.jobs.get(job_id)
        return job.when if job else None

    def due(self) -> list[str]:
        now = self.clock.now()
        return sorted(
            (k for k, j in self.jobs.items() if j.when is not None and j.when <= now),
            key=lambda k: self.jobs[k].when,  # type: ignore[arg-type, return-value]
        )

    async def run_due(self) -> int:
        """Run every job whose time has come (and those they schedule for now); return how many."""
        ran = 0
        while due := self.due():
            for job_id in due:
                job = self.jobs.get(job_id)
                if job is None or job.when is None or job.when > self.clock.now():
                    continue
                if job.schedule is not None:
                    job.when = next_occurrence(job.schedule, self.clock.now())
                else:
                    del self.jobs[job_id]
                await job.action()
                ran += 1
        return ran

    async def advance(self, seconds: float) -> int:
        self.clock.advance(seconds)
        return await self.run_due()


@dataclass
class RecordingPort:
    """A ChatPort that records what the core posted; `fail_with` makes the next posts raise."""

    platform: str = "console"
    limits: PaceLimits = field(default_factory=lambda: PaceLimits(1000, 1000, 1.0))
    posted: list[tuple[str, object, object]] = field(default_factory=list)
    fail_with: list[PostError | Exception] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def _record(self, kind: str, chat: object, view: object) -> None:
        if self.fail_with:
            raise self.fail_with.pop(0)
        self.posted.append((kind, chat, view))
        self.changed.set()

    async def wait_for(self, kind: str, count: int = 1, timeout: float = HANG) -> list:
        """Wait until `count` posts of `kind` were made (event-driven, bounded by timeout)."""
        async with asyncio.timeout(timeout):
            while len(self.of(kind)) < count:
                self.changed.clear()
                await self.changed.wait()
        return self.of(kind)

    async def post_question(self, chat, view) -> str:
        self._record("question", chat, view)
        return f"msg-{view.round_id}"

    async def post_reveal(self, chat, view) -> None:
        self._record("reveal", chat, view)

    async def post_standings(self, chat, view) -> None:
        self._record("standings", chat, view)

    async def post_notice(self, chat, notice) -> None:
        self._record("notice", chat, notice)

    def of(self, kind: str) -> list:
        return [view for k, _, view in self.posted if k == kind]
