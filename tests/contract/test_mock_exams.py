"""Contract: mock exams kept from the first click (paper, clock, answers, flags), one open mock per
person, handed in or quit once, short answers self-graded after hand-in."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.domain.mock_exam_records import MockAnswer, MockItem, MockState, NewMock
from bot.domain.questions import PaperSection, QuestionType
from bot.ports.study_storage import MockOpen
from tests.contract.helpers import SETTINGS, T0, chat_ref, user_ref

PAPER = (PaperSection(QuestionType.SINGLE, 2, 2.0), PaperSection(QuestionType.SHORT, 1, 5.0))


def new_mock(user_id: int, chat_id: int, *, at=T0) -> NewMock:
    items = (MockItem("s-1", 0), MockItem("s-2", 0), MockItem("s-9", 1))
    return NewMock(user_id, chat_id, "sample", items, PAPER, 0.6, at, at + timedelta(minutes=30))


async def people(storage, *keys: str) -> tuple[int, list[int]]:
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    return chat.id, await storage.store.ensure_users([user_ref(k) for k in keys])


async def test_a_mock_is_stored_whole_and_one_is_open_per_person(storage):
    mocks = storage.mocks
    chat_id, (me, you) = await people(storage, "me", "you")
    mock = await mocks.create_mock(new_mock(me, chat_id))
    expected = (me, chat_id, "sample", MockState.OPEN, 0)
    assert (mock.user_id, mock.chat_id, mock.bank_id, mock.state, mock.position) == expected
    assert [i.question_id for i in mock.items] == ["s-1", "s-2", "s-9"]
    assert mock.sections == PAPER and mock.total == 9.0 and mock.points(2) == 5.0
    assert (mock.started_at, mock.ends_at, mock.pass_mark) == (T0, T0 + timedelta(minutes=30), 0.6)
    assert mock.submitted_at is None and mock.score is None
    with pytest.raises(MockOpen):
        await mocks.create_mock(new_mock(me, chat_id))
    theirs = await mocks.create_mock(new_mock(you, chat_id))
    assert await mocks.get_mock(mock.id) == mock and await mocks.open_mock(me) == mock
    assert sorted(m.id for m in await mocks.open_mocks()) == sorted([mock.id, theirs.id])
    assert await mocks.get_mock(theirs.id + 100) is None and await mocks.open_mock(you + 100) is None


async def test_a_refused_mock_leaves_the_unit_of_work_usable(storage):
    chat_id, (me,) = await people(storage, "me")
    await storage.mocks.create_mock(new_mock(me, chat_id))
    async with storage.unit_of_work():
        with pytest.raises(MockOpen):
            await storage.mocks.create_mock(new_mock(me, chat_id))
        await storage.study.set_favourite(me, "sample", "s-1", True, T0)
    assert await storage.study.favourites(me, "sample") == ["s-1"]


async def test_answers_and_flags_are_kept_while_open_and_hand_in_happens_once(storage):
    mocks = storage.mocks
    chat_id, (me,) = await people(storage, "me")
    mock = await mocks.create_mock(new_mock(me, chat_id))
    assert await mocks.save_answer(mock.id, 0, "A", 1) is True
    assert await mocks.save_answer(mock.id, 0, "B", 1) is True
    assert await mocks.set_flag(mock.id, 1, True) is True
    assert await mocks.save_answer(mock.id, 2, "because", 2) is True
    await mocks.set_position(mock.id, 1)
    assert (await mocks.open_mock(me)).position == 1
    assert await mocks.answers(mock.id) == {
        0: MockAnswer(0, "B"), 1: MockAnswer(1, None, True), 2: MockAnswer(2, "because"),
    }  # fmt: skip
    grades = {0: ("correct", 1.0), 1: ("wrong", 0.0), 2: ("pending", 0.0)}
    handed = T0 + timedelta(minutes=20)
    assert await mocks.hand_in(mock.id, handed, grades, 2.0, MockState.GRADING) is True
    assert await mocks.hand_in(mock.id, handed, grades, 9.0, MockState.DONE) is False
    assert await mocks.save_answer(mock.id, 0, "C", 0) is False
    assert await mocks.set_flag(mock.id, 0, True) is False
    assert await mocks.open_mock(me) is None
    done = await mocks.get_mock(mock.id)
    assert (done.state, done.submitted_at, done.score, done.position) == (MockState.GRADING, handed, 2.0, 1)
    answers = await mocks.answers(mock.id)
    assert answers[0] == MockAnswer(0, "B", False, "correct", 1.0)
    assert answers[1] == MockAnswer(1, None, True, "wrong", 0.0)
    assert await mocks.grade_item(mock.id, 0, "wrong", 0.0, 0.0, MockState.DONE) is False  # not pending
    assert await mocks.grade_item(mock.id, 2, "correct", 1.0, 7.0, MockState.DONE) is True
    assert await mocks.grade_item(mock.id, 2, "wrong", 0.0, 2.0, MockState.DONE) is False
    graded = await mocks.get_mock(mock.id)
    assert (graded.state, graded.score) == (MockState.DONE, 7.0)
    assert (await mocks.answers(mock.id))[2] == MockAnswer(2, "because", False, "correct", 1.0)


async def test_history_lists_handed_in_mocks_newest_first_and_not_quit_ones(storage):
    mocks = storage.mocks
    chat_id, (me,) = await people(storage, "me")
    assert await mocks.last_handed_in(me) is None and await mocks.history(me, 5) == []
    first = await mocks.create_mock(new_mock(me, chat_id))
    assert await mocks.hand_in(first.id, T0 + timedelta(minutes=5), {}, 4.0, MockState.DONE)
    quit_one = await mocks.create_mock(new_mock(me, chat_id, at=T0 + timedelta(hours=1)))
    assert await mocks.quit(quit_one.id, T0 + timedelta(hours=1, minutes=1)) is True
    assert await mocks.quit(quit_one.id, T0 + timedelta(hours=1, minutes=2)) is False
    assert (await mocks.get_mock(quit_one.id)).state == MockState.QUIT
    second = await mocks.create_mock(new_mock(me, chat_id, at=T0 + timedelta(hours=2)))
    assert await mocks.hand_in(second.id, T0 + timedelta(hours=2, minutes=5), {}, 9.0, MockState.DONE)
    assert (await mocks.last_handed_in(me)).id == second.id
    assert [m.id for m in await mocks.history(me, 5)] == [second.id, first.id]
    assert [m.id for m in await mocks.history(me, 1)] == [second.id]
