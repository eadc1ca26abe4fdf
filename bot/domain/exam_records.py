"""What the exam plan keeps per learner: the exam date (and time per day) they set for a bank,
and their own study settings (quiet hours, the hour their day starts). Plain frozen records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True, slots=True)
class ExamDate:
    """A learner's exam on a bank's paper: its local date, and the minutes they have a day."""

    user_id: int
    bank_id: str
    on: date
    minutes: int | None = None  # None: no limit given


@dataclass(frozen=True, slots=True)
class LearnerSettings:
    """A learner's own settings. Quiet hours `quiet_from`–`quiet_until` (HH:MM, local; they may
    wrap midnight): no reminder inside them, it moves to their end. `day_start` (HH:MM): when
    the learner's day begins, for "today" in the plan and the due counts."""

    user_id: int
    quiet_from: str | None = None
    quiet_until: str | None = None
    day_start: str = "00:00"
