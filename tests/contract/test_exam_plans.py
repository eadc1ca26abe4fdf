"""Contract: what the exam plan stores (exam dates, learner settings) and the answer times it
reads, on both backends."""

from __future__ import annotations

from datetime import date, timedelta

from bot.domain.exam_records import ExamDate, LearnerSettings
from bot.domain.kinds import RevealPolicy, RoundKind
from tests.contract.helpers import SETTINGS, T0, answer, chat_ref, new_round, user_ref


async def test_an_exam_date_is_set_replaced_read_and_cleared_per_bank(storage):
    exams = storage.exams
    (me, other) = await storage.store.ensure_users([user_ref("me"), user_ref("other")])
    assert await exams.exam(me, "sample") is None
    await exams.set_exam(ExamDate(me, "sample", date(2026, 12, 20), 30), T0)
    await exams.set_exam(ExamDate(me, "other-bank", date(2027, 1, 5)), T0)
    assert await exams.exam(me, "sample") == ExamDate(me, "sample", date(2026, 12, 20), 30)
    await exams.set_exam(ExamDate(me, "sample", date(2026, 12, 21), None), T0 + timedelta(hours=1))
    assert await exams.exam(me, "sample") == ExamDate(me, "sample", date(2026, 12, 21), None)
    assert await exams.exam(me, "other-bank") == ExamDate(me, "other-bank", date(2027, 1, 5))
    assert await exams.exam(other, "sample") is None
    assert await exams.clear_exam(me, "sample") is True
    assert await exams.clear_exam(me, "sample") is False
    assert await exams.exam(me, "sample") is None
    assert await exams.exam(me, "other-bank") is not None


async def test_learner_settings_default_then_kept(storage):
    exams = storage.exams
    (me,) = await storage.store.ensure_users([user_ref("me")])
    assert await exams.learner_settings(me) == LearnerSettings(me)
    await exams.set_learner_settings(LearnerSettings(me, "22:30", "07:00", "04:00"))
    assert await exams.learner_settings(me) == LearnerSettings(me, "22:30", "07:00", "04:00")
    await exams.set_learner_settings(LearnerSettings(me, None, None, "04:00"))
    assert await exams.learner_settings(me) == LearnerSettings(me, None, None, "04:00")


async def test_answer_times_are_each_final_answer_with_the_practice_seconds(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await store.ensure_users([user_ref("me")])
    practice = await store.open_round(
        new_round(chat.id, kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE)
    )
    daily = await store.open_round(new_round(chat.id, question="s-2", opened=T0 + timedelta(minutes=1)))
    await store.record_answers([
        answer(practice.id, me, "A", right=True, at=T0 + timedelta(seconds=25)),
        answer(daily.id, me, "B", at=T0 + timedelta(minutes=2)),
    ])  # fmt: skip
    times = await storage.exams.answer_times(me, "sample")
    assert [(q, at, s) for q, at, s in times] == [
        ("s-1", T0 + timedelta(seconds=25), 25.0),
        ("s-2", T0 + timedelta(minutes=2), None),
    ]
    assert await storage.exams.answer_times(me, "elsewhere") == []
