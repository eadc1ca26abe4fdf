"""A calendar date and a study time per day as a person types them (`/exam 2026-12-20 30min`).

Total like every argument reader (bot/application/commands/arguments.py): a string is a value or a
ValueError, never another exception; lengths and magnitudes are bounded before any arithmetic.
"""

from __future__ import annotations

import re
from datetime import date

# 2026-12-20, 2026/12/20, 2026.12.20, 2026年12月20日 (ASCII digits only: ١٢ is no month here)
_DATE = re.compile(r"^([0-9]{4})\s*[-/.年]\s*([0-9]{1,2})\s*[-/.月]\s*([0-9]{1,2})\s*日?$")
# 30min, 45m, 1h, 1.5h, 90 (minutes), 半小时 is not taken: a number and a unit
_MINUTES = re.compile(r"^([0-9]{1,4}(?:\.[0-9]{1,3})?)\s*([a-z\u4e00-\u9fff]{0,7})$", re.IGNORECASE)
_UNIT_MINUTES = {
    "": 1, "m": 1, "min": 1, "mins": 1, "minute": 1, "minutes": 1, "分": 1, "分钟": 1, "分鐘": 1,
    "h": 60, "hr": 60, "hrs": 60, "hour": 60, "hours": 60, "小时": 60, "小時": 60, "个小时": 60, "個小時": 60,
}  # fmt: skip
MINUTES_LOW, MINUTES_HIGH = 5, 16 * 60  # a study time per day: 5 minutes to 16 hours


def parse_date(text: str) -> date:
    """A calendar date, year first; ValueError when it is none."""
    match = _DATE.match(text.strip()) if len(text) <= 40 else None
    if match is None:
        raise ValueError("not a date")
    year, month, day = (int(g) for g in match.groups())
    return date(year, month, day)  # ValueError for 2026-02-30


def parse_minutes(text: str) -> int:
    """Minutes a day (a bare number is minutes), within [MINUTES_LOW, MINUTES_HIGH]."""
    match = _MINUTES.match(text.strip()) if len(text) <= 40 else None
    if match is None or match.group(2).lower() not in _UNIT_MINUTES:
        raise ValueError("not a time per day")
    minutes = round(float(match.group(1)) * _UNIT_MINUTES[match.group(2).lower()])
    if not MINUTES_LOW <= minutes <= MINUTES_HIGH:
        raise ValueError("out of range")
    return minutes
