"""The study feed: committed answers of every mode review FSRS cards and fill the mistake
notebook exactly once, on the real SQLite store; FSRS ratings and due times as a table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import fsrs
import pytest

from adapters.storage.sqlite.database import SqliteDatabase
from adapters.storage.study_store import SqlStudyStore
from bot.application.requests import SubmitAnswer
from bot.application.study.feed import StudyFeed
from bot.domain.kinds import AnswerPolicy, ChatKind, ChatRef, Platform, RoundKind, UserRef
from bot.domain.spaced import SpacedRepetition, rating
from bot.domain.study_records import Outcome, StudyAnswer

ME = UserRef(Platform.CONSOLE, "me", "Me")
PRIVATE = ChatRef(Platform.CONSOLE, "console", ChatKind.PRIVATE)
T0 = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)


def answer(outcome: Outcome, seconds: float | None = 5.0, at: datetime = T0) -> StudyAnswer:
    return StudyAnswer(1, "bank", "q1", outcome, at, seconds)


@pytest.mark.parametrize(
    ("outcome", "seconds", "expected"),
    [
        (Outcome.RIGHT, 5.0, fsrs.Rating.Good),
        (Outcome.RIGHT, 60.0, fsrs.Rating.Good),
        (Outcome.RIGHT, 61.0, fsrs.Rating.Hard),  # right, but slower than slow_seconds
        (Outcome.RIGHT, None, fsrs.Rating.Good),  # a daily: time taken means nothing
        (Outcome.PARTLY, 5.0, fsrs.Rating.Hard),  # partial credit, or a self-grade of "partly"
        (Outcome.WRONG, 5.0, fsrs.Rating.Again),
        (Outcome.WRONG, 500.0, fsrs.Rating.Again),
    ],
)
def test_rating_of_each_answer(outcome, seconds, expected):
    assert rating(answer(outcome, seconds), slow_seconds=60.0) is expected


# Each row: the answer given when the card falls due, and the next interval fsrs returns
# (FSRS-6 default parameters, no fuzzing, learning steps 1 and 10 minutes, relearning 10 minutes).
SCHEDULE = [
    (Outcome.RIGHT, 5.0, timedelta(minutes=10), 1),  # Good on a new card: learning step 2
    (Outcome.RIGHT, 5.0, timedelta(days=2), 2),  # Good on the last step: review
    (Outcome.WRONG, 5.0, timedelta(minutes=10), 3),  # Again in review: relearning
    (Outcome.RIGHT, 90.0, timedelta(minutes=15), 3),  # Hard while relearning
    (Outcome.RIGHT, 5.0, timedelta(days=1), 2),  # Good: back to review
]


def test_next_due_times_fsrs_returns():
    spaced = SpacedRepetition(slow_seconds=60.0)
    card, at = None, T0
    for outcome, seconds, interval, state in SCHEDULE:
        card = spaced.review(card, answer(outcome, seconds, at))
        assert (card.due - at, card.state) == (interval, state), (outcome, seconds)
        at = card.due
    assert card.reviews == len(SCHEDULE) and card.lapses == 1


def test_an_answer_older_than_the_last_review_changes_nothing():
    spaced = SpacedRepetition()
    card = spaced.review(None, answer(Outcome.RIGHT, at=T0 + timedelta(hours=1)))
    assert spaced.review(card, answer(Outcome.WRONG, at=T0)) == card


@pytest.fixture
async def study(store):
    return SqlStudyStore(SqliteDatabase(store))


async def _answer(quiz, clock, question_id: str, response: str, kind: RoundKind = RoundKind.PRACTICE):
    chat = await quiz.chat(PRIVATE)
    question = quiz.bank_for(chat).question(question_id)
    now = clock.now()
    round_ = await quiz.open_round(chat, question, kind, now, now + timedelta(hours=1))
    clock.advance(timedelta(seconds=8))
    receipt = await quiz.submit(SubmitAnswer(round_.id, ME, response))
    assert receipt.status == "accepted"
    return round_


async def test_wrong_answers_fill_the_notebook_and_two_right_in_a_row_empty_it(quiz, clock, study):
    feed = StudyFeed(study, SpacedRepetition(), graduate_after=2)
    user = await quiz.user_id(ME)
    await _answer(quiz, clock, "s-1", "A")  # wrong
    await _answer(quiz, clock, "s-3", "对")  # right: never in the notebook
    await quiz.flush()
    assert await feed.catch_up() == 2
    notebook = await study.notebook(user, "sample")
    assert [(m.question_id, m.misses, m.right_streak) for m in notebook] == [("s-1", 1, 0)]
    await _answer(quiz, clock, "s-1", "B")
    await feed.catch_up()
    assert [(m.question_id, m.right_streak) for m in await study.notebook(user, "sample")] == [("s-1", 1)]
    await _answer(quiz, clock, "s-1", "C")  # wrong again: the run starts over
    await _answer(quiz, clock, "s-1", "B")
    await _answer(quiz, clock, "s-1", "B")
    assert await feed.catch_up() == 3
    assert await study.notebook(user, "sample") == []
    cards = await study.cards([(user, "sample", "s-1"), (user, "sample", "s-3")])
    assert cards[(user, "sample", "s-1")].reviews == 5 and cards[(user, "sample", "s-3")].reviews == 1


async def test_every_mode_feeds_the_cards_once(quiz, clock, study):
    feed = StudyFeed(study, SpacedRepetition())
    user = await quiz.user_id(ME)
    await quiz.update_settings(PRIVATE, answer_policy=AnswerPolicy.CHANGEABLE)
    daily = await _answer(quiz, clock, "s-1", "B", kind=RoundKind.DAILY)
    await _answer(quiz, clock, "s-3", "错", kind=RoundKind.CONTEST)
    assert await feed.catch_up() == 1  # the contest answer; the daily's may still change
    await quiz.close_round(daily.id)
    assert await feed.catch_up() == 1
    assert await feed.catch_up() == 0  # nothing is fed twice
    due = await study.due_cards(user, "sample", clock.now() + timedelta(days=30), 10)
    assert sorted(c.question_id for c in due) == ["s-1", "s-3"]


async def test_a_self_graded_short_answer_is_fed_once_graded(quiz, clock, study):
    from bot.application.requests import SelfGrade

    feed = StudyFeed(study, SpacedRepetition())
    user = await quiz.user_id(ME)
    round_ = await _answer(quiz, clock, "s-5", "tokens relate")
    assert await feed.catch_up() == 0  # pending its self-grade
    await quiz.self_grade(SelfGrade(round_.id, ME, "zero"))
    assert await feed.catch_up() == 1
    assert [m.question_id for m in await study.notebook(user, "sample")] == ["s-5"]


async def test_due_counts_and_next_due(quiz, clock, study):
    feed = StudyFeed(study, SpacedRepetition())
    user = await quiz.user_id(ME)
    await _answer(quiz, clock, "s-1", "A")
    await _answer(quiz, clock, "s-3", "对")
    await feed.catch_up()
    now = clock.now()
    first = await study.next_due(user, "sample")
    assert first is not None and now < first <= now + timedelta(minutes=10)
    counts = await study.due_counts(user, "sample", [now, now + timedelta(hours=1), now + timedelta(days=7)])
    assert counts == [0, 2, 2]


async def test_favourites(quiz, clock, study):
    user = await quiz.user_id(ME)
    assert await study.set_favourite(user, "sample", "s-2", True, clock.now())
    assert not await study.set_favourite(user, "sample", "s-2", True, clock.now())
    assert await study.favourites(user, "sample") == ["s-2"]
    assert await study.set_favourite(user, "sample", "s-2", False, clock.now())
    assert await study.favourites(user, "sample") == []
