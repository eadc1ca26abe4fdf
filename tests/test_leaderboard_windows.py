"""Leaderboard windows follow the chat's timezone across a week (and month) boundary."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.application.requests import Ask, ShowLeaderboard, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.windows import Window, month_key, week_key

ALICE = UserRef(Platform.TELEGRAM, "1", "Alice")
BOB = UserRef(Platform.TELEGRAM, "2", "Bob")


@pytest.mark.parametrize(
    ("utc", "tz", "week", "month"),
    [
        # Sunday 23:30 in Shanghai is still ISO week 49; half an hour later it is week 50.
        (datetime(2026, 12, 6, 15, 30, tzinfo=UTC), "Asia/Shanghai", "w:2026-W49", "m:2026-12"),
        (datetime(2026, 12, 6, 16, 30, tzinfo=UTC), "Asia/Shanghai", "w:2026-W50", "m:2026-12"),
        # The same instants in Los Angeles are Sunday morning: week 49 for both.
        (datetime(2026, 12, 6, 15, 30, tzinfo=UTC), "America/Los_Angeles", "w:2026-W49", "m:2026-12"),
        (datetime(2026, 12, 7, 7, 59, tzinfo=UTC), "America/Los_Angeles", "w:2026-W49", "m:2026-12"),
        (datetime(2026, 12, 7, 8, 0, tzinfo=UTC), "America/Los_Angeles", "w:2026-W50", "m:2026-12"),
        # Month: 30 Nov 23:30 in LA is already December in UTC and in Shanghai.
        (datetime(2026, 12, 1, 7, 30, tzinfo=UTC), "America/Los_Angeles", "w:2026-W49", "m:2026-11"),
        (datetime(2026, 12, 1, 7, 30, tzinfo=UTC), "Asia/Shanghai", "w:2026-W49", "m:2026-12"),
        # ISO years: 2026-12-31 falls in 2026-W53; 2027-01-04 is 2027-W01.
        (datetime(2027, 1, 1, 3, 0, tzinfo=UTC), "Asia/Shanghai", "w:2026-W53", "m:2027-01"),
        (datetime(2027, 1, 4, 3, 0, tzinfo=UTC), "Asia/Shanghai", "w:2027-W01", "m:2027-01"),
    ],
)
def test_window_keys(utc, tz, week, month):
    assert (week_key(utc, tz), month_key(utc, tz)) == (week, month)


def test_naive_datetimes_are_refused():
    with pytest.raises(ValueError, match="naive"):
        week_key(datetime(2026, 12, 6, 12), "Asia/Shanghai")


@pytest.mark.parametrize(
    ("tz", "week_names"),
    [
        # Alice answers Sunday 23:30 local time, Bob Monday 00:30 local time (Shanghai).
        ("Asia/Shanghai", ["Bob"]),
        # In Los Angeles both instants are on Sunday: the same week as each other.
        ("America/Los_Angeles", ["Alice", "Bob"]),
    ],
)
async def test_week_board_across_the_boundary(quiz, clock, tz, week_names):
    chat = ChatRef(Platform.TELEGRAM, f"chat-{tz}", ChatKind.GROUP)
    await quiz.update_settings(chat, timezone=tz)
    for when, user in (
        (datetime(2026, 12, 6, 15, 30, tzinfo=UTC), ALICE),
        (datetime(2026, 12, 6, 16, 30, tzinfo=UTC), BOB),
    ):
        clock.set(when)
        view = await quiz.ask(Ask(chat, tag="physics"))
        await quiz.submit(SubmitAnswer(view.round_id, user, "对"))
    clock.set(datetime(2026, 12, 7, 4, 0, tzinfo=UTC))  # Monday noon in Shanghai, Sunday 20:00 in LA
    week = await quiz.leaderboard(ShowLeaderboard(chat, window=Window.WEEK))
    month = await quiz.leaderboard(ShowLeaderboard(chat, window=Window.MONTH))
    everything = await quiz.leaderboard(ShowLeaderboard(chat, window=Window.ALL))
    assert sorted(r.name for r in week.rows) == week_names
    assert sorted(r.name for r in month.rows) == ["Alice", "Bob"]
    assert [r.name for r in everything.rows] == ["Alice", "Bob"]  # tie: Alice reached it first
