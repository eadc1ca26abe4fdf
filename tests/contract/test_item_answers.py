"""Contract: the question statistics' read — every graded answer to a bank's items, from the
rounds of every kind and chat and from handed-in mocks (by the mock's own item list), oldest
first; pending self-grades, blank mock items, open mocks and other banks are left out."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.domain.kinds import RoundKind
from bot.domain.mock_exam_records import MockItem, MockState, NewMock
from bot.domain.questions import PaperSection, QuestionType
from bot.domain.study_records import ItemAnswer
from tests.contract.helpers import SETTINGS, T0, answer, chat_ref, new_round, user_ref


async def test_answers_of_every_mode_and_chat_are_read_for_one_bank(storage):
    store = storage.store
    group = await store.ensure_chat(chat_ref("g1", guild="s1"), SETTINGS)
    other = await store.ensure_chat(chat_ref("g2"), SETTINGS)
    me, you = await store.ensure_users([user_ref("me"), user_ref("you")])
    daily = await store.open_round(new_round(group.id, question="s-1", daily_date="2026-12-02"))
    contest = await store.open_round(new_round(other.id, question="s-2", kind=RoundKind.CONTEST))
    practice = await store.open_round(new_round(other.id, question="s-9", kind=RoundKind.PRACTICE))
    elsewhere = await store.open_round(replace(new_round(group.id, question="s-1"), bank_id="another"))
    minute = timedelta(minutes=1)
    await store.record_answers([
        answer(daily.id, me, "B", at=T0 + minute),
        answer(daily.id, you, "A", at=T0 + 2 * minute, right=False),
        answer(contest.id, me, "A,C", at=T0 + 3 * minute),
        answer(elsewhere.id, me, "B", at=T0 + 4 * minute),
    ])  # fmt: skip
    pending = replace(answer(practice.id, you, "因为…", at=T0 + 5 * minute), verdict="pending", fraction=0.0)
    await store.record_answers([pending])

    paper = (PaperSection(QuestionType.SINGLE, 2, 1.0), PaperSection(QuestionType.SHORT, 1, 5.0))
    items = (MockItem("s-2", 0, "BADC"), MockItem("s-1", 0), MockItem("s-9", 1))
    handed = T0 + timedelta(hours=1)
    mock = await storage.mocks.create_mock(
        NewMock(you, other.id, "sample", items, paper, 0.6, T0, T0 + timedelta(minutes=30))
    )
    await storage.mocks.save_answer(mock.id, 0, "C", 1)  # kept in the bank's letters
    await storage.mocks.save_answer(mock.id, 2, "要点", 2)
    grades = {0: ("wrong", 0.0), 1: ("wrong", 0.0), 2: ("partial", 0.5)}  # item 1 left blank
    assert await storage.mocks.hand_in(mock.id, handed, grades, 2.5, MockState.DONE)
    still_open = await storage.mocks.create_mock(
        NewMock(me, other.id, "sample", items, paper, 0.6, T0, T0 + timedelta(minutes=30))
    )
    await storage.mocks.save_answer(still_open.id, 0, "A", 1)

    read = await storage.item_answers.item_answers("sample")
    assert read == [
        ItemAnswer(me, "s-1", "B", "correct", 1.0, T0 + minute, "daily"),
        ItemAnswer(you, "s-1", "A", "wrong", 0.0, T0 + 2 * minute, "daily"),
        ItemAnswer(me, "s-2", "A,C", "correct", 1.0, T0 + 3 * minute, "contest"),
        ItemAnswer(you, "s-2", "C", "wrong", 0.0, handed, "mock"),
        ItemAnswer(you, "s-9", "要点", "partial", 0.5, handed, "mock"),
    ]
    # The self-grade makes the practice answer count, at its own time.
    assert await store.self_grade(practice.id, you, "correct", 1.0, 1.0) is True
    read = await storage.item_answers.item_answers("sample")
    assert ItemAnswer(you, "s-9", "因为…", "correct", 1.0, T0 + 5 * minute, "practice") in read
    assert [a.question_id for a in await storage.item_answers.item_answers("another")] == ["s-1"]
    assert await storage.item_answers.item_answers("nothing") == []
