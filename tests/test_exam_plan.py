"""The plan to the exam date (bot/domain/exam_plan.py): a learner who follows it sees every unseen
item by the exam's eve when the time a day allows, never plans more than that time, and is told
plainly when it does not allow. Days are simulated: each day's plan is carried out (new items
answered, planned reviews done) and the next day planned from the cards that leaves."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.domain.exam_plan import NEW_FACTOR, DayPlan, item_minutes, plan_day, review_gain
from bot.domain.questions import Bank
from bot.domain.readiness import retrievability
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Card, Outcome, StudyAnswer
from bot.locales.i18n import t
from bot.views.exam_text import plan_lines

SPACED = SpacedRepetition()
DAY0 = datetime(2026, 12, 4, 16, 0, tzinfo=UTC)  # midnight in Asia/Shanghai
MORNING = timedelta(hours=1)  # the learner studies an hour into their day


def _card(question_id: str, history: list[tuple[float, bool]]) -> Card:
    """A card from answers `history` (days before DAY0, right or not), oldest first."""
    card: Card | None = None
    for days_ago, right in sorted(history, key=lambda h: -h[0]):
        at = DAY0 - timedelta(days=days_ago)
        card = _answer(card, question_id, at, right)
    assert card is not None
    return card


def _answer(card: Card | None, question_id: str, at: datetime, right: bool = True) -> Card:
    outcome = Outcome.RIGHT if right else Outcome.WRONG
    return SPACED.review(card, StudyAnswer(1, "b", question_id, outcome, at))


@dataclass
class Run:
    plans: list[DayPlan]
    unseen_left: list[str]  # on the exam's eve, after its plan


def follow(unseen: list[str], cards: dict[str, Card], minutes: dict[str, float], days: int,
           budget: float | None, seed: int = 0) -> Run:  # fmt: skip
    """Carry out each day's plan from DAY0 to the exam's eve (the exam on day `days`)."""
    rng = random.Random(seed)
    unseen, cards = list(unseen), dict(cards)
    exam_at = DAY0 + timedelta(days=days)
    plans = []
    for day in range(days):
        start = DAY0 + timedelta(days=day)
        now = start + MORNING
        plan = plan_day(now=now, day_start=start, day_end=start + timedelta(days=1), exam_at=exam_at,
                        days_left=days - day, unseen=unseen, cards=list(cards.values()), minutes=minutes,
                        budget=budget)  # fmt: skip
        plans.append(plan)
        for index, question_id in enumerate(plan.new):
            at = now + timedelta(seconds=index)
            cards[question_id] = _answer(None, question_id, at, rng.random() < 0.7)
            unseen.remove(question_id)
        for review in plan.reviews:
            recall = retrievability(cards[review.question_id], now) or 0.0
            at = now + timedelta(minutes=30)
            cards[review.question_id] = _answer(cards[review.question_id], review.question_id, at,
                                                rng.random() < recall)  # fmt: skip
    return Run(plans, unseen)


HISTORY = st.lists(st.tuples(st.floats(0.01, 60.0), st.booleans()), min_size=1, max_size=5)


@st.composite
def learners(draw):
    seen = draw(st.integers(0, 12))
    cards = {f"c{i}": _card(f"c{i}", draw(HISTORY)) for i in range(seen)}
    unseen = [f"u{i}" for i in range(draw(st.integers(0, 30)))]
    minutes = {q: draw(st.floats(0.2, 3.0)) for q in [*cards, *unseen]}
    days = draw(st.integers(1, 14))
    budget = draw(st.one_of(st.none(), st.floats(2.0, 90.0)))
    return unseen, cards, minutes, days, budget


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(learners(), st.integers(0, 2**16))
def test_the_plan_covers_unseen_items_by_the_eve_when_time_allows_and_never_exceeds_the_budget(learner, seed):
    unseen, cards, minutes, days, budget = learner
    run = follow(unseen, cards, minutes, days, budget, seed)
    for plan in run.plans:
        if budget is not None:
            assert plan.minutes <= budget + 1e-6  # never more than the time a day
        assert plan.new_minutes == sum(NEW_FACTOR * minutes[q] for q in plan.new)
        assert all(r.gain > 0 for r in plan.reviews)
    # Time allows when a day's even share of the new items fits the budget on the first day: the
    # share never grows while the plan is kept, so no day falls short and nothing is left.
    quota = math.ceil(len(unseen) / days)
    dearest = max((NEW_FACTOR * minutes[q] for q in unseen), default=0.0)
    if budget is None or quota * dearest <= budget:
        assert not any(p.short for p in run.plans)
    # Every day that was not short kept pace, so a run without a short day leaves nothing unseen.
    if not any(p.short for p in run.plans):
        assert run.unseen_left == []
    else:  # ... and a short day says so, in words, with the minutes the day's new items need
        short = next(p for p in run.plans if p.short)
        assert budget is not None and short.needed > budget
        text = "\n".join(plan_lines("zh-CN", _bank(), short))
        assert "时间不够" in text and f"{round(short.needed)}" in text


def _bank(count: int = 60) -> Bank:
    """A bank holding every item id the tests use (u0…, c0…), numbered in that order."""
    from tests.conftest import make_bank

    item = make_bank().questions[0]
    ids = [f"u{i}" for i in range(count)] + [f"c{i}" for i in range(count)]
    items = tuple(replace(item, id=q, number=n + 1) for n, q in enumerate(ids))
    return Bank("b", "bank", "zh-CN", "test", items)


def test_ten_days_out_every_unseen_item_is_seen_before_the_date_and_the_reviews_fit_30_minutes():
    """The issue's case: 60 items never seen, 20 learnt over the last weeks, 30 minutes a day,
    the exam 10 days away."""
    rng = random.Random(7)
    cards = {f"c{i}": _card(f"c{i}", [(rng.uniform(1, 30), rng.random() < 0.7) for _ in range(3)])
             for i in range(20)}  # fmt: skip
    unseen = [f"u{i}" for i in range(60)]
    minutes = dict.fromkeys([*cards, *unseen], 0.5)  # 30 s an answer, a minute a new item
    run = follow(unseen, cards, minutes, days=10, budget=30.0)
    assert run.unseen_left == []
    assert [len(p.new) for p in run.plans] == [6] * 10  # 60 over 10 days, evenly
    assert all(p.minutes <= 30.0 for p in run.plans) and not any(p.short for p in run.plans)
    assert all(p.reviews for p in run.plans[1:])  # the time left over goes to reviews
    assert run.plans[-1].days_left == 1  # the last plan is the exam's eve


def test_too_little_time_says_so_and_takes_what_fits():
    unseen = [f"u{i}" for i in range(40)]
    plan = follow(unseen, {}, dict.fromkeys(unseen, 1.0), days=4, budget=10.0).plans[0]
    assert plan.quota == 10 and len(plan.new) == 5 and plan.short and plan.needed == 20.0
    text = "\n".join(plan_lines("zh-CN", _bank(), plan))
    expected = t("zh-CN", "exam.plan_short", count=20, budget=10, quota=10, unseen=40)
    assert expected in text
    assert "Not enough time" in "\n".join(plan_lines("en", _bank(), plan))


def test_a_review_is_worth_more_the_more_it_was_forgotten():
    fresh = _card("a", [(1.0, True)])
    stale = _card("b", [(20.0, True)])
    exam = DAY0 + timedelta(days=7)
    assert review_gain(stale, DAY0, exam) > review_gain(fresh, DAY0, exam) > 0


def test_own_answer_times_replace_the_types_default_once_there_are_three():
    from bot.domain.question_types import TYPES
    from tests.conftest import make_bank

    bank = make_bank()
    first = bank.questions[0]
    other = next(q for q in bank.questions if q.type is not first.type)
    default = item_minutes(bank.questions, [])
    assert default[first.id] == TYPES[first.type].answer_seconds / 60
    own = item_minutes(bank.questions, [(first.id, 12.0), (first.id, 18.0), (first.id, 15.0)])
    assert own[first.id] == 15.0 / 60 and own[other.id] == default[other.id]  # per type
    few = item_minutes(bank.questions, [(first.id, 12.0), (first.id, 18.0), (first.id, 5000.0)])
    assert few[first.id] == default[first.id]  # one walked away: two measures are not enough


def test_reviews_due_later_today_are_said_to_be_so_since_review_has_nothing_yet():
    """A console session answered four items wrong and then right in /review; /exam then said
    "复习：5 道，发送 /review 开始" while /review said "现在没有到期的卡片": the planned reviews were
    learning steps due minutes later. The plan now says how many come due later today."""
    now = DAY0 + MORNING
    cards = [_answer(_answer(None, f"c{i}", now - timedelta(minutes=3), right=False), f"c{i}",
                     now - timedelta(minutes=2)) for i in range(3)]  # fmt: skip
    assert all(now < c.due < DAY0 + timedelta(days=1) for c in cards)  # due later today, not now

    def plan_at(moment: datetime) -> DayPlan:
        return plan_day(now=moment, day_start=DAY0, day_end=DAY0 + timedelta(days=1),
                        exam_at=DAY0 + timedelta(days=14), days_left=14, unseen=[], cards=cards,
                        minutes={}, budget=30.0)  # fmt: skip

    plan = plan_at(now)
    assert plan.reviews and all(r.due and r.later for r in plan.reviews)
    text = "\n".join(plan_lines("zh-CN", _bank(), plan))
    assert t("zh-CN", "exam.plan_later", count=len(plan.reviews)) in text
    assert "今天稍后才到期，到期后 /review 才会出这些题" in text
    # an hour on they are due now: /review asks them and nothing more is said
    assert not any(r.later for r in plan_at(now + timedelta(hours=1)).reviews)
