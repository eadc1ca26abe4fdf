"""The scheduler port: run an action at a time, every day at a local time, or every interval."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol

from bot.domain.records import (
    DailySchedule,
)
from bot.ports.missing_extra import MissingExtra as MissingExtra  # re-exported: a backend raises it

Action = Callable[[], Awaitable[None]]


class Scheduler(Protocol):
    """Runs actions at times; holds no state of its own that the database does not also hold."""

    def at(self, job_id: str, when: datetime, action: Action) -> None:
        """Run once at `when` (at once if past), replacing any job with that id; never skipped."""
        ...

    def daily(self, job_id: str, schedule: DailySchedule, action: Action, grace_seconds: float) -> None:
        """Run at the schedule's local time on its weekdays; a run later than the grace is skipped."""
        ...

    def every(self, job_id: str, seconds: float, action: Action) -> None: ...
    def cancel(self, job_id: str) -> None: ...
    def next_run(self, job_id: str) -> datetime | None: ...
