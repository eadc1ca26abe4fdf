"""When dailies fall: local times across DST, in our pure functions and in APScheduler's triggers."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from adapters.scheduling.aps import daily_trigger
from bot.domain.daily_times import (
    last_occurrence,
    next_occurrence,
    occurrence_on,
    parse_duration,
    parse_local_time,
    parse_weekdays,
)
from bot.domain.records import DailySchedule


def daily(local_time="09:00", tz="America/New_York", weekdays=(0, 1, 2, 3, 4, 5, 6)) -> DailySchedule:
    return DailySchedule(
        chat_id=1, local_time=local_time, timezone=tz, deadline_seconds=3600, weekdays=weekdays
    )


@pytest.mark.parametrize(
    ("day", "utc_hour"),
    [
        (date(2026, 3, 7), 14),  # EST, UTC-5
        (date(2026, 3, 8), 13),  # the spring-forward day: EDT, UTC-4
        (date(2026, 3, 9), 13),
        (date(2026, 10, 31), 13),
        (date(2026, 11, 1), 14),  # fall back: EST again
    ],
)
def test_nine_oclock_new_york_stays_nine_across_dst(day, utc_hour):
    when = occurrence_on(day, daily())
    assert when.hour == utc_hour and when.minute == 0
    assert when.astimezone(daily_trigger(daily()).timezone).hour == 9


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (datetime(2026, 3, 7, 15, 0, tzinfo=UTC), datetime(2026, 3, 8, 13, 0, tzinfo=UTC)),
        (datetime(2026, 10, 31, 14, 0, tzinfo=UTC), datetime(2026, 11, 1, 14, 0, tzinfo=UTC)),
    ],
)
def test_apscheduler_trigger_agrees_with_our_occurrences(after, expected):
    schedule = daily()
    trigger = daily_trigger(schedule)
    fired = trigger.get_next_fire_time(None, after)
    assert fired == expected == next_occurrence(schedule, after)


def test_shanghai_has_no_dst_and_weekdays_filter():
    schedule = daily("08:30", "Asia/Shanghai", weekdays=(0, 1, 2, 3, 4))
    friday = datetime(2026, 12, 4, 1, 0, tzinfo=UTC)  # Friday 09:00 in Shanghai
    assert next_occurrence(schedule, friday) == datetime(2026, 12, 7, 0, 30, tzinfo=UTC)  # Monday
    assert last_occurrence(schedule, friday) == datetime(2026, 12, 4, 0, 30, tzinfo=UTC)
    trigger = daily_trigger(schedule)
    assert trigger.get_next_fire_time(None, friday) == datetime(2026, 12, 7, 0, 30, tzinfo=UTC)


def test_parsers():
    assert parse_local_time("8:05").hour == 8 and parse_local_time("23:59:30").second == 30
    assert (parse_duration("12h"), parse_duration("30m"), parse_duration("90s"), parse_duration("2")) == (
        43200, 1800, 90, 7200,
    )  # fmt: skip
    assert parse_weekdays("mon-fri") == (0, 1, 2, 3, 4)
    assert parse_weekdays("sat,sun") == (5, 6) == parse_weekdays("weekends")
    assert parse_weekdays("fri-mon") == (0, 4, 5, 6)
    for bad in ("25:00", "9", "noon"):
        with pytest.raises(ValueError, match="HH:MM"):
            parse_local_time(bad)
    for bad in ("0s", "8d", "soon"):
        with pytest.raises(ValueError):
            parse_duration(bad)
    with pytest.raises(ValueError, match=r"mon\.\.sun"):
        parse_weekdays("someday")
