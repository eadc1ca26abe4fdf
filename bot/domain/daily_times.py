"""When a daily falls: its occurrences in the chat's timezone, DST-correct, as aware UTC times.

Pure functions; the scheduler adapter fires the jobs, these decide what a missed one was.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from bot.domain.clock import require_aware, zone
from bot.domain.records import DailySchedule

_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$")
# At most 9 digits before the point and 6 after: anything longer is far beyond 7 days (or below a
# second), and a number of 309 digits would read as float infinity.
_DURATION = re.compile(r"^(\d{1,9}(?:\.\d{1,6})?)\s*([smhd]?)$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 3600}


def parse_local_time(text: str) -> time:
    """HH:MM or HH:MM:SS (24-hour); ValueError with a message fit for a user."""
    match = _TIME.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a time of day; write HH:MM, e.g. 08:30")
    hour, minute, second = match.groups()
    return time(int(hour), int(minute), int(second or 0))


def parse_duration(text: str) -> int:
    """'12h', '30m', '90s', '1d' or a bare number of hours, in seconds."""
    match = _DURATION.match(text.strip())
    if not match:
        raise ValueError(f"{text[:40]!r} is not a duration; write e.g. 12h, 30m or 90s")
    seconds = int(float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()])
    if not 0 < seconds <= 7 * 86400:
        raise ValueError(f"{text!r}: a deadline must be between 1 second and 7 days")
    return seconds


def occurrence_on(day: date, schedule: DailySchedule) -> datetime:
    """The UTC instant of the daily on a local calendar day.

    A wall time that does not exist that day (inside a spring-forward gap) is read with the
    offset from before the gap, i.e. it lands just after the clocks jump.
    """
    local = datetime.combine(day, parse_local_time(schedule.local_time), tzinfo=zone(schedule.timezone))
    return local.astimezone(UTC)


def last_occurrence(schedule: DailySchedule, now: datetime) -> datetime | None:
    """The most recent occurrence at or before `now` (within the last 8 days)."""
    today = require_aware(now).astimezone(zone(schedule.timezone)).date()
    for back in range(0, 8):
        day = today - timedelta(days=back)
        if day.weekday() not in schedule.weekdays:
            continue
        when = occurrence_on(day, schedule)
        if when <= now:
            return when
    return None


def next_occurrence(schedule: DailySchedule, now: datetime) -> datetime | None:
    today = require_aware(now).astimezone(zone(schedule.timezone)).date()
    for ahead in range(0, 8):
        day = today + timedelta(days=ahead)
        if day.weekday() not in schedule.weekdays:
            continue
        when = occurrence_on(day, schedule)
        if when > now:
            return when
    return None


def local_date_of(when: datetime, timezone: str) -> str:
    return require_aware(when).astimezone(zone(timezone)).date().isoformat()


WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def parse_weekdays(text: str) -> tuple[int, ...]:
    """'mon-fri', 'mon,wed,fri', 'all', 'weekdays', 'weekends' -> indexes (Monday=0)."""
    text = text.strip().lower()
    named = {"all": range(7), "daily": range(7), "weekdays": range(5), "weekends": range(5, 7)}
    if text in named:
        return tuple(named[text])
    days: set[int] = set()
    for part in text.split(","):
        ends = part.strip().split("-")
        try:
            idx = [WEEKDAY_NAMES.index(e.strip()[:3]) for e in ends]
        except ValueError:
            raise ValueError(f"{text!r}: weekdays are mon..sun, e.g. mon-fri or mon,wed,fri") from None
        if len(idx) == 1:
            days.add(idx[0])
        else:
            lo, hi = idx[0], idx[-1]
            days.update(range(lo, hi + 1) if lo <= hi else [*range(lo, 7), *range(0, hi + 1)])
    return tuple(sorted(days))
