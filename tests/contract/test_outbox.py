"""Contract: the outbox keeps what is owed to chats, oldest first, written with the unit of work."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.domain.kinds import AnswerPolicy, InputKind, RevealPolicy, RoundKind
from bot.domain.questions import QuestionType
from bot.views.quiz import QuestionView, RevealView, StandingRow, StandingsView, notice
from tests.contract.helpers import SETTINGS, T0, chat_ref, new_round


def reveal(round_id: int, chat_id: int) -> RevealView:
    return RevealView(
        round_id, chat_id, RoundKind.CONTEST, QuestionType.SINGLE, 3, "stem <b>", (), ("A",), "A",
        "because", (), 2, ("Alice",), (("Alice", 4),), "zh_CN",
    )  # fmt: skip


def standings(contest_id: int) -> StandingsView:
    rows = (StandingRow(1, "Alice", 950, 1, 1, 2),)
    return StandingsView(contest_id, rows, 1, 5, False, False, "en")


async def test_posts_come_back_as_written_oldest_first_per_chat(storage):
    one = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    two = await storage.store.ensure_chat(chat_ref("c2"), SETTINGS)
    round_ = await storage.store.open_round(new_round(one.id))
    await storage.outbox.add_post(one.id, reveal(round_.id, one.id), round_.id, T0)
    await storage.outbox.add_post(two.id, notice("contest.started", "en", count=3, seconds=20), None, T0)
    await storage.outbox.add_post(one.id, standings(7), None, T0 + timedelta(seconds=1))
    first = await storage.outbox.next_post(one.id)
    assert first is not None and first.view == reveal(round_.id, one.id) and first.round_id == round_.id
    assert first.what == "reveal" and first.created_at == T0 and first.attempts == 0
    await storage.outbox.post_failed(first.id, "Flood control exceeded")
    again = await storage.outbox.next_post(one.id)
    assert again is not None and again.id == first.id and again.attempts == 1
    assert again.last_error == "Flood control exceeded"
    await storage.outbox.post_delivered(first.id)
    second = await storage.outbox.next_post(one.id)
    assert second is not None and second.view == standings(7)
    assert await storage.outbox.pending_chats() == sorted([one.id, two.id])
    assert await storage.outbox.oldest_pending() == T0
    assert await storage.outbox.pending_count() == 2
    listed = await storage.outbox.pending_posts()
    assert [(p.chat_id, p.what) for p in listed] == [(one.id, "standings"), (two.id, "notice")]
    assert listed[1].view == notice("contest.started", "en", count=3, seconds=20)


async def test_a_rolled_back_unit_owes_nothing_and_drops_are_counted(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    round_ = await storage.store.open_round(new_round(chat.id))
    with pytest.raises(RuntimeError):
        async with storage.unit_of_work():
            await storage.store.close_round(round_.id, T0)
            await storage.outbox.add_post(chat.id, reveal(round_.id, chat.id), round_.id, T0)
            raise RuntimeError("crash before the commit")
    assert await storage.outbox.next_post(chat.id) is None
    assert await storage.outbox.oldest_pending() is None
    view = reveal(round_.id, chat.id)
    await storage.outbox.add_post(chat.id, view, round_.id, T0)
    assert await storage.outbox.drop_questions(round_.id) == 0  # a reveal is not a question
    assert await storage.outbox.drop_posts(chat.id) == 1
    assert await storage.outbox.pending_chats() == []
    assert await storage.outbox.pending_count() == 0
    await storage.ping()  # the database answers


async def test_a_question_is_owed_until_delivered_or_dropped(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    round_ = await storage.store.open_round(new_round(chat.id, kind=RoundKind.CONTEST))
    question = QuestionView(
        round_.id, chat.id, RoundKind.CONTEST, QuestionType.SINGLE, InputKind.CHOOSE_ONE, 1, "stem", (),
        1.0, T0, T0 + timedelta(seconds=20), RevealPolicy.ROUND, AnswerPolicy.FIRST, "en", "UTC",
    )  # fmt: skip
    assert not await storage.outbox.question_owed(round_.id)
    await storage.outbox.add_post(chat.id, reveal(round_.id, chat.id), round_.id, T0)
    assert not await storage.outbox.question_owed(round_.id)  # a reveal is not a question
    await storage.outbox.add_post(chat.id, question, round_.id, T0)
    assert await storage.outbox.question_owed(round_.id)
    post = await storage.outbox.next_post(chat.id)
    await storage.outbox.post_delivered(post.id)  # the reveal, first in line
    assert await storage.outbox.question_owed(round_.id)
    post = await storage.outbox.next_post(chat.id)
    await storage.outbox.post_delivered(post.id)
    assert not await storage.outbox.question_owed(round_.id)
