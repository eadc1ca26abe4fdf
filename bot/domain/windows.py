"""Leaderboard windows (all time, ISO week, month) as keys computed in a chat's timezone."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from functools import lru_cache

from bot.domain.clock import require_aware, zone

ALL_TIME_KEY = "all"


class Window(StrEnum):
    ALL = "all"
    WEEK = "week"
    MONTH = "month"


# Every UTC offset in the tz database is a whole number of quarter hours, so local dates (and so
# week and month) only change on a quarter-hour boundary in UTC: keys are cached per quarter.
_QUARTER = 900


def week_key(when: datetime, timezone: str) -> str:
    return _keys(int(require_aware(when).timestamp()) // _QUARTER, timezone)[0]


def month_key(when: datetime, timezone: str) -> str:
    return _keys(int(require_aware(when).timestamp()) // _QUARTER, timezone)[1]


@lru_cache(maxsize=4096)
def _keys(quarter: int, timezone: str) -> tuple[str, str]:
    local = datetime.fromtimestamp(quarter * _QUARTER, zone(timezone))
    year, week, _ = local.isocalendar()
    return f"w:{year}-W{week:02d}", f"m:{local.year}-{local.month:02d}"


def window_key(window: Window, when: datetime, timezone: str) -> str:
    if window is Window.ALL:
        return ALL_TIME_KEY
    if window is Window.WEEK:
        return week_key(when, timezone)
    return month_key(when, timezone)
