"""Contract: daily schedules and contests on every storage backend."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from bot.domain.kinds import AnswerMode, RevealPolicy, RoundKind
from bot.domain.records import ContestPhase, ContestScore, DailySchedule
from bot.ports.storage import ContestRunning
from tests.contract.helpers import SETTINGS, T0, chat_ref, new_round, user_ref


async def test_daily_schedules_are_saved_replaced_and_listed(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    other = await storage.store.ensure_chat(chat_ref("c2"), SETTINGS)
    schedule = DailySchedule(chat.id, "09:00", "Asia/Shanghai", 3600, (0, 1, 2, 3, 4), None,
                             AnswerMode.BUTTONS, True, T0)  # fmt: skip
    await storage.schedules.save_daily(schedule)
    await storage.schedules.save_daily(replace(schedule, chat_id=other.id, enabled=False))
    assert await storage.schedules.get_daily(chat.id) == schedule
    moved = replace(schedule, local_time="20:30", tag="math", mode=AnswerMode.REACTIONS)
    await storage.schedules.save_daily(moved)
    assert await storage.schedules.get_daily(chat.id) == moved
    assert await storage.schedules.enabled_dailies() == [moved]
    assert await storage.schedules.get_daily(other.id + 100) is None


async def test_daily_rounds_by_date_and_the_practice_sweep(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    daily = await store.open_round(new_round(chat.id, daily_date="2026-12-02"))
    assert (await storage.schedules.daily_round(chat.id, "2026-12-02")).id == daily.id
    assert await storage.schedules.daily_round(chat.id, "2026-12-03") is None
    practice = [
        await store.open_round(
            new_round(chat.id, kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE, minutes=m)
        )
        for m in (5, 10, 120)
    ]
    assert await storage.schedules.close_expired_practice(T0 + timedelta(minutes=30)) == 2
    assert [r.id for r in await store.open_rounds()] == [daily.id, practice[2].id]


async def test_a_contest_runs_alone_and_scores_each_question_once(storage):
    store, contests = storage.store, storage.schedules
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    a, b = await store.ensure_users([user_ref("a"), user_ref("b")])
    contest = await contests.create_contest(chat.id, ["s-1", "s-2"], 20, 3.0, T0)
    assert contest.phase is ContestPhase.QUESTION and contest.question_ids == ("s-1", "s-2")
    with pytest.raises(ContestRunning):
        await contests.create_contest(chat.id, ["s-3"], 20, 3.0, T0)
    rnd = await store.open_round(new_round(chat.id, kind=RoundKind.CONTEST))
    pause_until = T0 + timedelta(seconds=23)
    await contests.set_contest_phase(
        contest.id, position=0, phase=ContestPhase.PAUSE, phase_until=pause_until, round_id=rnd.id, now=T0
    )
    running = await contests.running_contest(chat.id)
    assert (running.phase, running.round_id, running.phase_until) == (
        ContestPhase.PAUSE, rnd.id, T0 + timedelta(seconds=23),
    )  # fmt: skip
    scores = [ContestScore(a, "user a", 100, 1, 1, 1), ContestScore(b, "user b", 0, 0, 1, 0)]
    assert await contests.save_contest_scores(contest.id, 0, scores) is True
    assert await contests.save_contest_scores(contest.id, 0, scores) is False
    assert await contests.contest_scores(contest.id) == scores
    assert [c.id for c in await contests.running_contests()] == [contest.id]
    await contests.set_contest_phase(contest.id, position=1, phase=ContestPhase.FINISHED, phase_until=None,
                                     round_id=None, now=T0 + timedelta(minutes=1))  # fmt: skip
    assert await contests.running_contest(chat.id) is None
    latest = await contests.latest_contest(chat.id)
    assert (latest.phase, latest.finished_at) == (ContestPhase.FINISHED, T0 + timedelta(minutes=1))
    assert (await contests.create_contest(chat.id, ["s-3"], 20, 3.0, T0)).id != contest.id
