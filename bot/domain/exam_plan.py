"""A plan to the exam date (`/exam`): what to do today so that expected recall on the exam day is
highest for the time the learner has each day.

A greedy planner, simple enough to explain in one paragraph (docs/exam-plan.md):

1. New items first. Every item the learner has never answered must be seen before the exam day,
   spread evenly over the days left (today included, the exam day not): today's quota is
   ceil(unseen / days left), counting the new items already answered today, in bank order.
2. Then reviews, by gain per minute. A card's gain is how much a review now raises its expected
   recall on the exam day: FSRS's retrievability at the exam if reviewed now (recalled with
   today's retrievability, rated Good; else Again) minus its retrievability there without the
   review. Candidates are the cards due by the end of today (a learning step due again later
   today too), and the cards whose next review falls on or after the exam (FSRS would not bring
   them back in time) that would be recalled there with less than TARGET.
3. With a time per day, new items and then reviews are taken while they fit; a day whose new
   quota alone does not fit says so (`short`) and how many minutes a day the quota needs.

Time per item: the learner's own median answer time for the item's type (practice answers, at
least OWN_TIMES of them, each under MAX_SECONDS), else the type's default
(`QuestionTypeRules.answer_seconds`), but never under MIN_SECONDS (5 s for a button, 10 s for
several, 20 s typed, 60 s for a self-graded short answer: answers piped in take no time, reading
does); a new item costs NEW_FACTOR times that (reading the explanation after a first answer).

Pure functions over plain values, like bot/domain/readiness.py.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import fsrs

from bot.domain.kinds import InputKind
from bot.domain.question_types import TYPES
from bot.domain.questions import Question
from bot.domain.readiness import retrievability, settled_recall
from bot.domain.study_records import Card

TARGET = 0.9  # a card due after the exam is a candidate when its exam-day recall is below this
NEW_FACTOR = 2.0  # a first sight costs twice an answer
OWN_TIMES = 3  # the learner's own times are used for a type from this many answers
MAX_SECONDS = 900.0  # a longer answer is a learner who walked away: not a measure
# The least one answer is counted at, however fast the learner's own were (a pasted or piped
# answer takes no time; reading the stem and the reveal does): by how the item is answered.
MIN_SECONDS = {
    InputKind.CHOOSE_ONE: 5.0, InputKind.TRUE_FALSE: 5.0, InputKind.CHOOSE_MANY: 10.0,
    InputKind.TYPED: 20.0, InputKind.SELF_GRADED: 60.0,
}  # fmt: skip
_SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)


@dataclass(frozen=True, slots=True)
class Review:
    question_id: str
    gain: float  # exam-day retrievability gained by reviewing now
    minutes: float
    due: bool  # due by the end of today (else an early review: due only after the exam)
    later: bool = False  # due later today, not yet now (a learning step): /review asks it once due


@dataclass(frozen=True, slots=True)
class DayPlan:
    """Today's plan."""

    days_left: int  # days to study before the exam: today and each day up to the exam's eve
    unseen: int  # items never answered
    quota: int  # new items to see today to see them all by the exam's eve (already-done ones too)
    to_see: int  # ... of which still to see today (the quota less the new items answered today)
    new: tuple[str, ...]  # the new items to see still today, in bank order
    new_minutes: float
    reviews: tuple[Review, ...]  # best gain per minute first
    review_minutes: float
    budget: float | None  # minutes a day, when the learner gave one
    needed: float  # minutes the new items still to see today take
    short: bool  # the time per day does not hold today's new quota
    recall: float  # mean exam-day recall of the seen cards without today's reviews
    recall_after: float  # ... and with them
    due_today: int = 0  # cards due by the end of today, as /stats and /review count them

    @property
    def due_planned(self) -> int:
        """How many of the plan's reviews are due today (the others are early reviews)."""
        return sum(1 for r in self.reviews if r.due)

    @property
    def minutes(self) -> float:
        return self.new_minutes + self.review_minutes

    @property
    def gain(self) -> float:
        return sum(r.gain for r in self.reviews)


def item_minutes(
    questions: Iterable[Question], times: Iterable[tuple[str, float | None]]
) -> dict[str, float]:
    """Minutes one answer takes, per question id: the learner's median per type from `times`
    ((question id, seconds) of their practice answers), else the type's default; never less
    than MIN_SECONDS for how the item is answered."""
    by_id = {q.id: q for q in questions}
    measured: dict[object, list[float]] = {}
    for question_id, seconds in times:
        question = by_id.get(question_id)
        if question is not None and seconds is not None and 0 < seconds <= MAX_SECONDS:
            measured.setdefault(question.type, []).append(seconds)
    out = {}
    for question in by_id.values():
        own = measured.get(question.type, [])
        rules = TYPES[question.type]
        seconds = statistics.median(own) if len(own) >= OWN_TIMES else rules.answer_seconds
        out[question.id] = max(seconds, MIN_SECONDS.get(rules.input_kind, 5.0)) / 60.0
    return out


def _fsrs_card(card: Card) -> fsrs.Card:
    assert card.last_review is not None
    return fsrs.Card(
        card_id=0, state=fsrs.State(card.state), step=card.step, stability=card.stability,
        difficulty=card.difficulty, due=card.due.astimezone(UTC),
        last_review=card.last_review.astimezone(UTC),
    )  # fmt: skip


def _recall_after(card: Card, rating: fsrs.Rating, now: datetime, exam_at: datetime) -> float:
    after, _ = _SCHEDULER.review_card(_fsrs_card(card), rating, review_datetime=now.astimezone(UTC))
    moved = replace(card, state=int(after.state), step=after.step, stability=after.stability,
                    difficulty=after.difficulty, last_review=now)  # fmt: skip
    return settled_recall(moved, exam_at) or 0.0


def review_gain(card: Card, now: datetime, exam_at: datetime) -> float:
    """How much reviewing `card` at `now` raises its expected recall at `exam_at`."""
    # Exam-day recall as /ready counts it (settled: never sooner than a day after a review).
    before, today = settled_recall(card, exam_at), retrievability(card, now)
    if before is None or today is None:
        return 0.0
    after = today * _recall_after(card, fsrs.Rating.Good, now, exam_at)
    after += (1.0 - today) * _recall_after(card, fsrs.Rating.Again, now, exam_at)
    return after - before


def plan_day(
    *,
    now: datetime,
    day_start: datetime,
    day_end: datetime,
    exam_at: datetime,
    days_left: int,
    unseen: Sequence[str],
    cards: Sequence[Card],
    minutes: Mapping[str, float],
    budget: float | None,
) -> DayPlan:
    """Today's plan (see the module's docstring). `unseen`: the never-answered items in bank
    order; `cards`: the learner's cards in the bank; `minutes`: one answer's minutes per item
    (item_minutes); `day_start`/`day_end`: today in the learner's days; `days_left` ≥ 1."""
    seen = [c for c in cards if c.stability is not None and c.last_review is not None]
    # A card whose one review is today is an item first seen today: it counts towards the quota.
    done_new = sum(
        1 for c in seen if c.reviews <= 1 and c.last_review is not None and c.last_review >= day_start
    )
    quota = math.ceil((len(unseen) + done_new) / days_left) if days_left > 0 else 0
    wanted = list(unseen[: max(0, quota - done_new)])
    new_cost = [NEW_FACTOR * minutes.get(q, 0.5) for q in wanted]
    needed = sum(new_cost)
    room = math.inf if budget is None else budget
    new: list[str] = []
    used = 0.0
    for question_id, cost in zip(wanted, new_cost, strict=True):
        if used + cost > room + 1e-9:
            break  # in bank order: the next day starts where this one stopped
        new.append(question_id)
        used += cost
    short = len(new) < len(wanted)
    candidates = []
    for card in seen:
        due_today = card.due < day_end  # a learning step due again later today counts, as in /stats
        if card.last_review is not None and card.last_review >= day_start and not due_today:
            continue  # done today
        if not due_today and not (card.due >= exam_at and (settled_recall(card, exam_at) or 0.0) < TARGET):
            continue
        gain = review_gain(card, now, exam_at)
        if gain > 1e-6:
            candidates.append(Review(card.question_id, gain, minutes.get(card.question_id, 0.5), due_today,
                                     later=due_today and card.due > now))  # fmt: skip
    candidates.sort(key=lambda r: (-r.gain / max(r.minutes, 1e-6), r.question_id))
    reviews: list[Review] = []
    review_used = 0.0
    for review in candidates:
        if short:
            break  # the new items come first, and they already take all the time
        if used + review_used + review.minutes > room + 1e-9:
            continue  # a shorter one further down may still fit
        reviews.append(review)
        review_used += review.minutes
    recall = [settled_recall(c, exam_at) or 0.0 for c in seen]
    before = sum(recall) / len(recall) if recall else 0.0
    after = (sum(recall) + sum(r.gain for r in reviews)) / len(recall) if recall else 0.0
    due_count = sum(1 for c in seen if c.due < day_end)  # due today, as /stats counts it
    return DayPlan(days_left, len(unseen), quota, len(wanted), tuple(new), used, tuple(reviews), review_used,
                   budget, needed, short, before, after, due_count)  # fmt: skip
