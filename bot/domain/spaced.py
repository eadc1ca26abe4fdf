"""Spaced repetition with FSRS (the `fsrs` package): how an answer rates, and the next due time.

A right answer rates Good, or Hard when it took longer than `slow_seconds`; a wrong one Again;
a self-graded short answer full / partial / none rates Good / Hard / Again. Fuzzing is off so a
review's next due time is the same every time it is computed (tests, restarts, several processes).

A learner's own memory model (bot/application/study/memory_fit.py), when given, schedules their cards: the
FSRS parameters fitted on their history (the defaults before) and the retention they asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

import fsrs

from bot.domain.study_records import Card, LearnerMemory, Outcome, StudyAnswer


@functools.lru_cache(maxsize=1024)
def scheduler_for(parameters: tuple[float, ...] | None, desired_retention: float) -> fsrs.Scheduler:
    """FSRS's scheduler for these parameters (None: its defaults) and retention, built once: a
    learner's parameters change weekly at most, and every answer of theirs uses them."""
    if parameters is None:
        return fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=False)
    return fsrs.Scheduler(parameters=parameters, desired_retention=desired_retention, enable_fuzzing=False)


def valid_parameters(parameters: Sequence[float] | None) -> tuple[float, ...] | None:
    """The parameters if FSRS's scheduler takes them (its own bounds), else None (the defaults):
    a stored set from another FSRS version never stops a learner's reviews."""
    if parameters is None:
        return None
    values = tuple(float(p) for p in parameters)
    try:
        scheduler_for(values, 0.9)
    except (ValueError, TypeError):
        return None
    return values


def rating(answer: StudyAnswer, slow_seconds: float) -> fsrs.Rating:
    if answer.outcome is Outcome.WRONG:
        return fsrs.Rating.Again
    if answer.outcome is Outcome.PARTLY:
        return fsrs.Rating.Hard
    if answer.seconds is not None and answer.seconds > slow_seconds:
        return fsrs.Rating.Hard
    return fsrs.Rating.Good


class SpacedRepetition:
    def __init__(self, *, desired_retention: float = 0.9, slow_seconds: float = 60.0) -> None:
        self.slow_seconds = slow_seconds
        self.desired_retention = desired_retention
        self._scheduler = scheduler_for(None, desired_retention)

    def scheduler(self, memory: LearnerMemory | None) -> fsrs.Scheduler:
        """The scheduler of one learner: their parameters and retention, or the bot's defaults."""
        if memory is None:
            return self._scheduler
        return scheduler_for(valid_parameters(memory.parameters), memory.desired_retention)

    def new_card(self, answer: StudyAnswer) -> Card:
        return Card(answer.user_id, answer.bank_id, answer.question_id, int(fsrs.State.Learning), 0,
                    None, None, answer.answered_at, None)  # fmt: skip

    def review(self, card: Card | None, answer: StudyAnswer, memory: LearnerMemory | None = None) -> Card:
        """The card after this answer (a new card for a first answer), scheduled with the
        learner's own memory model when given."""
        card = card or self.new_card(answer)
        when = answer.answered_at.astimezone(UTC)
        if card.last_review is not None and when < card.last_review:
            return card  # an older answer processed late changes nothing already reviewed after it
        last = card.last_review.astimezone(UTC) if card.last_review else None
        # card_id given: without one fsrs.Card stamps the clock and time.sleep()s 1 ms so the
        # next id differs, which stalled the event loop 1 ms for every answer. The id is unused.
        state = fsrs.Card(
            card_id=0, state=fsrs.State(card.state), step=card.step, stability=card.stability,
            difficulty=card.difficulty, due=card.due.astimezone(UTC), last_review=last,
        )  # fmt: skip
        rated = rating(answer, self.slow_seconds)
        after, _ = self.scheduler(memory).review_card(state, rated, review_datetime=when)
        return replace(
            card, state=int(after.state), step=after.step, stability=after.stability,
            difficulty=after.difficulty, due=_aware(after.due), last_review=_aware(after.last_review or when),
            reviews=card.reviews + 1, lapses=card.lapses + (rated is fsrs.Rating.Again and card.reviews > 0),
        )  # fmt: skip


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
