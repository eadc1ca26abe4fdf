"""Quiet hours: when a learner wants no reminder (`/settings quiet 22:30 07:00`)."""

from __future__ import annotations

from bot.domain.daily_times import parse_local_time
from bot.domain.exam_records import LearnerSettings


def quiet_end(at_time: str, settings: LearnerSettings) -> str:
    """The reminder's time with the quiet hours kept: `at_time` (HH:MM), or the end of the quiet
    hours when it falls inside them (they may wrap midnight: 22:00–07:00)."""
    if not settings.quiet_from or not settings.quiet_until:
        return at_time
    at = parse_local_time(at_time)
    start, until = parse_local_time(settings.quiet_from), parse_local_time(settings.quiet_until)
    inside = start <= at < until if start < until else (at >= start or at < until)
    return settings.quiet_until if inside else at_time
