"""The quiz core end to end over a real SQLite store: asking, answering, closing, scoring."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.application.quiz import QuizError
from bot.application.requests import Ask, SelfGrade, ShowLeaderboard, ShowStats, SubmitAnswer
from bot.domain.kinds import (
    AnswerPolicy,
    AnswerStatus,
    ChatKind,
    ChatRef,
    Platform,
    RoundKind,
    UserRef,
)
from bot.ports.storage import DuplicateDaily

CHAT = ChatRef(Platform.TELEGRAM, "-100", ChatKind.GROUP, title="group")
ALICE = UserRef(Platform.TELEGRAM, "1", "Alice")
BOB = UserRef(Platform.TELEGRAM, "2", "Bob")
CAROL = UserRef(Platform.TELEGRAM, "3", "Carol")


async def open_daily(quiz, question_id: str, clock, hours: float = 12, date: str = "2026-12-02"):
    chat = await quiz.chat(CHAT)
    question = quiz.banks["sample"].question(question_id)
    now = clock.now()
    return await quiz.open_round(
        chat, question, RoundKind.DAILY, now, now + timedelta(hours=hours), daily_date=date
    )


async def test_practice_question_is_graded_at_once(quiz):
    view = await quiz.ask(Ask(CHAT, ALICE, tag="math", qtype=None))
    assert view.kind is RoundKind.PRACTICE
    question = quiz.banks["sample"].question(
        {1: "s-1", 2: "s-2"}[view.number]
    )
    right = ",".join(question.answer)
    receipt = await quiz.submit(SubmitAnswer(view.round_id, ALICE, right))
    assert receipt.status is AnswerStatus.ACCEPTED
    assert receipt.graded and receipt.verdict == "correct"
    assert receipt.explanation == question.explanation
    board = await quiz.leaderboard(ShowLeaderboard(CHAT, ALICE))
    assert [(r.name, r.points) for r in board.rows] == [("Alice", question.points)]
    assert board.own is not None and board.own.rank == 1


async def test_no_repeats_until_the_bank_is_used_up(quiz):
    seen = [(await quiz.ask(Ask(CHAT))).number for _ in range(5)]
    assert sorted(seen) == [1, 2, 3, 4, 5]
    sixth = (await quiz.ask(Ask(CHAT))).number
    assert sixth in seen


async def test_filters_and_an_unknown_tag(quiz):
    view = await quiz.ask(Ask(CHAT, tag="physics"))
    assert view.number == 3 and [o.token for o in view.options] == ["true", "false"]
    with pytest.raises(QuizError) as err:
        await quiz.ask(Ask(CHAT, tag="astrology"))
    assert "astrology" in err.value.render("en")


async def test_hundred_concurrent_submissions_by_one_user_count_once(quiz):
    view = await quiz.ask(Ask(CHAT, tag="physics"))
    receipts = await asyncio.gather(
        *(quiz.submit(SubmitAnswer(view.round_id, ALICE, "对" if i % 2 else "错")) for i in range(100))
    )
    statuses = [r.status for r in receipts]
    assert statuses.count(AnswerStatus.ACCEPTED) == 1
    assert statuses.count(AnswerStatus.DUPLICATE) == 99
    assert len({r.response for r in receipts}) == 1  # everyone is told the one stored answer
    assert await quiz.store.answer_count(view.round_id) == 1
    board = await quiz.leaderboard(ShowLeaderboard(CHAT))
    assert board.rows[0].answers == 1


async def test_answer_after_close_or_deadline_is_refused(quiz, clock):
    round_ = await open_daily(quiz, "s-1", clock, hours=1)
    assert (await quiz.submit(SubmitAnswer(round_.id, ALICE, "B"))).status is AnswerStatus.ACCEPTED
    clock.advance(timedelta(hours=1))
    late = await quiz.submit(SubmitAnswer(round_.id, BOB, "B"))
    assert late.status is AnswerStatus.CLOSED
    assert await quiz.close_round(round_.id) is not None
    after = await quiz.submit(SubmitAnswer(round_.id, CAROL, "B"))
    assert after.status is AnswerStatus.CLOSED
    from bot.views.quiz_text import receipt_headline

    assert receipt_headline(after) == "This question is closed."
    assert await quiz.store.answer_count(round_.id) == 1


async def test_store_refuses_an_answer_the_cache_thought_open(quiz, clock):
    round_ = await open_daily(quiz, "s-1", clock)
    await quiz.store.close_round(round_.id, clock.now())  # closed behind the core's back
    receipt = await quiz.submit(SubmitAnswer(round_.id, ALICE, "B"))
    assert receipt.status is AnswerStatus.CLOSED


async def test_daily_round_reveals_only_at_close(quiz, clock):
    round_ = await open_daily(quiz, "s-1", clock)
    r1 = await quiz.submit(SubmitAnswer(round_.id, ALICE, "b"))
    clock.advance(60)
    r2 = await quiz.submit(SubmitAnswer(round_.id, BOB, "A"))
    clock.advance(60)
    r3 = await quiz.submit(SubmitAnswer(round_.id, CAROL, "B"))
    assert not r1.graded and r1.verdict is None and r1.response_label == "B"
    assert not r2.graded and not r3.graded
    assert (await quiz.leaderboard(ShowLeaderboard(CHAT))).rows == ()
    reveal = await quiz.close_round(round_.id)
    assert reveal is not None
    assert reveal.correct_tokens == ("B",)
    assert {c.token: c.count for c in reveal.counts} == {"A": 1, "B": 2, "C": 0, "D": 0}
    assert reveal.right == ("Alice", "Carol")
    assert reveal.total_answers == 3
    assert await quiz.close_round(round_.id) is None  # closing twice reveals once
    board = await quiz.leaderboard(ShowLeaderboard(CHAT, BOB))
    assert [r.name for r in board.rows] == ["Alice", "Carol", "Bob"]  # ties: who reached it first
    assert board.own is not None and board.own.rank == 3


async def test_changeable_policy_keeps_the_last_answer(quiz, clock):
    await quiz.update_settings(CHAT, answer_policy=AnswerPolicy.CHANGEABLE)
    round_ = await open_daily(quiz, "s-1", clock)
    first = await quiz.submit(SubmitAnswer(round_.id, ALICE, "A"))
    second = await quiz.submit(SubmitAnswer(round_.id, ALICE, "B"))
    assert first.status is AnswerStatus.ACCEPTED and second.status is AnswerStatus.CHANGED
    reveal = await quiz.close_round(round_.id)
    assert reveal.right == ("Alice",)
    assert {c.token: c.count for c in reveal.counts}["A"] == 0


async def test_invalid_answers_store_nothing(quiz, clock):
    round_ = await open_daily(quiz, "s-1", clock)
    receipt = await quiz.submit(SubmitAnswer(round_.id, ALICE, "E"))
    assert receipt.status == "invalid" and receipt.detail
    assert await quiz.store.answer_count(round_.id) == 0
    assert (await quiz.submit(SubmitAnswer(round_.id, ALICE, "B"))).status is AnswerStatus.ACCEPTED


async def test_unknown_round_is_closed_not_an_error(quiz):
    receipt = await quiz.submit(SubmitAnswer(424242, ALICE, "B"))
    assert receipt.status is AnswerStatus.UNKNOWN_ROUND


async def test_multi_partial_credit(quiz, clock):
    await quiz.update_settings(CHAT, partial_credit=True)
    round_ = await open_daily(quiz, "s-2", clock)
    await quiz.submit(SubmitAnswer(round_.id, ALICE, "AB"))
    await quiz.submit(SubmitAnswer(round_.id, BOB, "ABC"))
    await quiz.submit(SubmitAnswer(round_.id, CAROL, "D,B,A"))
    reveal = await quiz.close_round(round_.id)
    assert reveal.right == ("Carol",)
    board = await quiz.leaderboard(ShowLeaderboard(CHAT))
    assert [(r.name, r.points) for r in board.rows] == [("Carol", 2.0), ("Alice", 1.0), ("Bob", 0.0)]


async def test_fill_numbers_by_value(quiz, clock):
    round_ = await open_daily(quiz, "s-4", clock)
    for user, text in ((ALICE, "0.0005"), (BOB, "5×10⁻⁴"), (CAROL, "5e-3")):
        await quiz.submit(SubmitAnswer(round_.id, user, text))
    reveal = await quiz.close_round(round_.id)
    assert reveal.right == ("Alice", "Bob")


async def test_short_answer_self_grade(quiz):
    view = await quiz.ask(Ask(CHAT, tag="transformer"))
    receipt = await quiz.submit(SubmitAnswer(view.round_id, ALICE, "It relates all tokens at once."))
    assert receipt.verdict == "pending" and receipt.reference and receipt.key_points
    graded = await quiz.self_grade(SelfGrade(view.round_id, ALICE, "部分"))
    assert graded.verdict == "partial" and graded.points == 5.0
    again = await quiz.self_grade(SelfGrade(view.round_id, ALICE, "full"))
    assert again.status is AnswerStatus.DUPLICATE
    stats = await quiz.stats(ShowStats(CHAT, ALICE))
    assert (stats.answers, stats.points) == (1, 5.0)


async def test_one_daily_per_chat_and_date(quiz, clock):
    await open_daily(quiz, "s-1", clock)
    with pytest.raises(DuplicateDaily):
        await open_daily(quiz, "s-2", clock)


async def test_streaks_count_consecutive_dailies(quiz, clock):
    for day, answer in enumerate(["B", "B", "A", "B"]):
        round_ = await open_daily(quiz, "s-1", clock, date=f"2026-12-0{day + 2}")
        await quiz.submit(SubmitAnswer(round_.id, ALICE, answer))
        await quiz.submit(SubmitAnswer(round_.id, BOB, "B"))
        reveal = await quiz.close_round(round_.id)
        clock.advance(timedelta(days=1))
    assert dict(reveal.streaks) == {"Bob": 4}
    alice = await quiz.stats(ShowStats(CHAT, ALICE))
    bob = await quiz.stats(ShowStats(CHAT, BOB))
    assert (alice.streak, alice.best_streak) == (1, 2)
    assert (bob.streak, bob.best_streak) == (4, 4)


async def test_guild_leaderboard_spans_channels(quiz, clock):
    one = ChatRef(Platform.DISCORD, "c1", ChatKind.GROUP, guild_key="g1")
    two = ChatRef(Platform.DISCORD, "c2", ChatKind.GROUP, guild_key="g1")
    alice = UserRef(Platform.DISCORD, "1", "Alice")
    bob = UserRef(Platform.DISCORD, "2", "Bob")
    for chat, user in ((one, alice), (two, bob), (two, alice)):
        view = await quiz.ask(Ask(chat, tag="physics"))
        await quiz.submit(SubmitAnswer(view.round_id, user, "true"))
        clock.advance(1)
    guild = await quiz.leaderboard(ShowLeaderboard(two, alice, guild_wide=True))
    assert guild.guild_wide and [(r.name, r.points) for r in guild.rows] == [("Alice", 2.0), ("Bob", 1.0)]
    channel = await quiz.leaderboard(ShowLeaderboard(two, alice))
    assert [(r.name, r.points) for r in channel.rows] == [("Bob", 1.0), ("Alice", 1.0)]


async def test_quiz_is_limited_per_user(quiz, clock):
    for _ in range(6):
        await quiz.ask(Ask(CHAT, ALICE))
    with pytest.raises(QuizError) as err:
        await quiz.ask(Ask(CHAT, ALICE))
    assert err.value.key == "error.rate_limited" and err.value.params["seconds"] == 60
    await quiz.ask(Ask(CHAT, BOB))  # others are not held up
    clock.advance(60)
    await quiz.ask(Ask(CHAT, ALICE))


async def test_review_asks_only_my_mistakes(quiz):
    with pytest.raises(QuizError) as err:
        await quiz.ask(Ask(CHAT, ALICE, review=True))
    assert err.value.key == "review.none"
    view = await quiz.ask(Ask(CHAT, ALICE, tag="physics"))
    await quiz.submit(SubmitAnswer(view.round_id, ALICE, "错"))
    for _ in range(3):
        again = await quiz.ask(Ask(CHAT, ALICE, review=True))
        assert again.number == 3


async def test_round_found_by_its_message_and_a_second_self_grade_names_the_answer(quiz):
    view = await quiz.ask(Ask(CHAT, ALICE, tag="transformer"))
    await quiz.set_message_ref(view.round_id, "-100:55")
    assert (await quiz.round_for_message(CHAT, "-100:55")).id == view.round_id
    assert await quiz.round_for_message(CHAT, "-100:56") is None
    await quiz.submit(SubmitAnswer(view.round_id, ALICE, "attention relates tokens"))
    await quiz.self_grade(SelfGrade(view.round_id, ALICE, "full"))
    again = await quiz.self_grade(SelfGrade(view.round_id, ALICE, "zero"))
    assert again.status is AnswerStatus.DUPLICATE and again.response_label == "attention relates tokens"
    never = await quiz.self_grade(SelfGrade(view.round_id, BOB, "full"))
    assert never.status == "invalid"
