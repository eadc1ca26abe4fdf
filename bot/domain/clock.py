"""The one place that owns time and randomness: an injectable clock and random source.

Domain code never calls datetime.now(), time.time() or the random module directly; it is
handed a Clock and a random.Random so tests can pin both.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to (tests, benchmarks, simulations)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start time")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        if not isinstance(delta, timedelta):
            delta = timedelta(seconds=delta)
        self._now += delta
        return self._now

    def set(self, when: datetime) -> None:
        if when.tzinfo is None:
            raise ValueError("ManualClock needs timezone-aware times")
        self._now = when.astimezone(UTC)


def make_rng(seed: int | None = None) -> random.Random:
    return random.Random(seed)


def zone(name: str) -> ZoneInfo:
    """The IANA zone `name`, or ValueError with a message fit for a user."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:  # OSError: a tzdata folder, a long name
        raise ValueError(f"unknown timezone {name[:80]!r}; use an IANA name like Asia/Shanghai") from exc


def require_aware(when: datetime) -> datetime:
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("naive datetime: all times must be timezone-aware")
    return when
