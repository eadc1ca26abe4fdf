"""Leaderboard windows (all time, ISO week, month) as keys computed in a chat's timezone."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from bot.clock import require_aware, zone

ALL_TIME_KEY = "all"


class Window(StrEnum):
    ALL = "all"
    WEEK = "week"
    MONTH = "month"


def week_key(when: datetime, timezone: str) -> str:
    local = require_aware(when).astimezone(zone(timezone))
    year, week, _ = local.isocalendar()
    return f"w:{year}-W{week:02d}"


def month_key(when: datetime, timezone: str) -> str:
    local = require_aware(when).astimezone(zone(timezone))
    return f"m:{local.year}-{local.month:02d}"


def window_key(window: Window, when: datetime, timezone: str) -> str:
    if window is Window.ALL:
        return ALL_TIME_KEY
    if window is Window.WEEK:
        return week_key(when, timezone)
    return month_key(when, timezone)


def local_date(when: datetime, timezone: str) -> str:
    return require_aware(when).astimezone(zone(timezone)).date().isoformat()
