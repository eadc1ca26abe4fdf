"""How ready a learner is: each item's chance of a right answer, the paper's expected score, and
the chance of reaching its pass mark (the `/ready` command), today or on any later date.

The chance of one item, at a date:
- an item the learner has a review card for (bot/domain/spaced.py): its FSRS retrievability at
  that date, the model's probability of recalling it then without another review (with the
  learner's own fitted parameters once they have them, bot/application/study/memory_fit.py: the forgetting
  curve's shape, FSRS-6's decay, is fitted per learner too);
- a self-graded item (short answer): the mean of the learner's own grades of it (full 1, half ½,
  none 0), the last `SELF_GRADES` of them; the grade says more than a recall the learner rated.
  An answer to an item with key points that still awaits its self-grade counts with its
  key-point score (bot/domain/key_points.py), after the graded ones;
- an item never answered: the mean of a Beta prior fitted on the learner's first answers (the
  first answer to an item is the best evidence of how they do on one they have not seen),
  Beta(1, 1) before any, so a few first answers do not make a certain 0 or 1.

A paper (bot/domain/paper.py) draws `count` items of a type from the bank's pool of that type.
When the pool holds no more than `count`, the paper is the pool, item by item; when it holds
more, each of the `count` slots is one item drawn at random, right with the pool's mean chance.
The score is then a sum of independent "right or not" items each worth its points: a
Poisson-binomial distribution, computed exactly by dynamic programming over the points (points
may be fractional: they are scaled to whole units first). Its mean is the expected score, its
10th and 90th percentiles the 80 % band, and its mass at or above the pass mark the pass chance.

Pure functions over plain values: no storage, no platform. The only library is `fsrs`, which the
review cards already use.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import fsrs

from bot.domain.kinds import InputKind
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Paper, Question
from bot.domain.spaced import scheduler_for, valid_parameters
from bot.domain.study_records import Card

MIN_ANSWERS = 20  # below this many answers /ready shows no estimate, only how many more it needs
SELF_GRADES = 5  # a self-graded item's chance: the mean of its last this many grades
BAND = (0.1, 0.9)  # the 80 % band: the score's 10th and 90th percentiles


@dataclass(frozen=True, slots=True)
class Prior:
    """Beta(alpha, beta) over the chance of getting a never-seen item right."""

    alpha: float = 1.0
    beta: float = 1.0

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


def fit_prior(first_answers: Iterable[float]) -> Prior:
    """The prior from the learner's first answers (each a share of the points, 0 to 1), on top
    of a flat Beta(1, 1)."""
    right = wrong = 0.0
    for fraction in first_answers:
        right += fraction
        wrong += 1.0 - fraction
    return Prior(1.0 + right, 1.0 + wrong)


def retrievability(card: Card, at: datetime, parameters: Sequence[float] | None = None) -> float | None:
    """FSRS's probability of recalling the card's item at `at` (None: the card has no memory
    state yet), with the learner's fitted `parameters` (None: FSRS's defaults)."""
    if card.stability is None or card.last_review is None:
        return None
    state = fsrs.Card(
        card_id=0, state=fsrs.State(card.state), step=card.step, stability=card.stability,
        difficulty=card.difficulty, due=card.due.astimezone(UTC),
        last_review=card.last_review.astimezone(UTC),
    )  # fmt: skip
    scheduler = scheduler_for(valid_parameters(parameters), 0.9)  # retention plays no part here
    return float(scheduler.get_card_retrievability(state, at.astimezone(UTC)))


SETTLE = timedelta(days=1)  # a review's recall is counted from a day after it: see settled_recall


def settled_recall(card: Card, at: datetime, parameters: Sequence[float] | None = None) -> float | None:
    """The card's recall at `at`, but never sooner than a day after its last review: FSRS counts
    elapsed time in whole days, so an item answered minutes (or hours) before `at` — even wrongly
    — would count as certain. An exam is not sat in the minutes after reading the key; a day on,
    the curve says what stayed (docs/readiness.md, "Today")."""
    if card.last_review is not None:
        at = max(at, card.last_review + SETTLE)
    return retrievability(card, at, parameters)


def item_chance(question: Question, card: Card | None, grades: Sequence[float], prior: Prior, at: datetime,
                parameters: Sequence[float] | None = None) -> float:  # fmt: skip
    """The chance of a right answer to `question` at `at` (see the module's docstring).
    `grades`: the learner's answers to it so far, oldest first, each a share of the points."""
    if TYPES[question.type].input_kind is InputKind.SELF_GRADED:
        recent = list(grades)[-SELF_GRADES:]
        return sum(recent) / len(recent) if recent else prior.mean
    if card is not None:
        recall = settled_recall(card, at, parameters)
        if recall is not None:
            return recall
    return prior.mean


# ---------------------------------------------------------------- the score's distribution


def _scale(points: Sequence[float]) -> int:
    """The smallest whole factor that makes every item's points whole (0.5 → 2, 1.25 → 4)."""
    factor = 1
    for value in points:
        denominator = Fraction(value).limit_denominator(1000).denominator
        factor = factor * denominator // math.gcd(factor, denominator)
    return factor


def score_distribution(items: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The exact distribution of the score of independent items, each `(points, chance)`: right
    with its chance (and worth its points), else worth nothing. (score, probability) pairs in
    rising score, only the reachable scores."""
    factor = _scale([points for points, _ in items])
    units = [round(points * factor) for points, _ in items]
    mass = [0.0] * (sum(units) + 1)
    mass[0] = 1.0
    top = 0
    for unit, (_, chance) in zip(units, items, strict=True):
        chance = min(1.0, max(0.0, chance))
        # From the top down, so each item is added once: mass[s] is "score s with the items so far".
        for score in range(top, -1, -1):
            here = mass[score]
            if here:
                mass[score + unit] += here * chance
                mass[score] = here * (1.0 - chance)
        top += unit
    return [(score / factor, p) for score, p in enumerate(mass) if p > 0.0]


def chance_at_least(distribution: Sequence[tuple[float, float]], mark: float) -> float:
    # A hair under the mark counts as reaching it: 59.999… from float points is 60.
    return min(1.0, sum(p for score, p in distribution if score >= mark - 1e-9))


def quantile(distribution: Sequence[tuple[float, float]], share: float) -> float:
    """The lowest score with at least `share` of the probability at or below it."""
    total = 0.0
    for score, p in distribution:
        total += p
        if total >= share - 1e-12:
            return score
    return distribution[-1][0] if distribution else 0.0


# ---------------------------------------------------------------- a paper's forecast


@dataclass(frozen=True, slots=True)
class SectionForecast:
    question_type: str
    count: int  # items on the paper (cut to what the bank has)
    full: float  # its full marks
    expected: float


@dataclass(frozen=True, slots=True)
class DayForecast:
    """The paper's score if sat at `at`."""

    at: datetime
    expected: float
    low: float  # the 80 % band
    high: float
    pass_chance: float
    sections: tuple[SectionForecast, ...]


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the learner's forecast rests on."""

    cards: Mapping[str, Card]  # by question id
    grades: Mapping[str, Sequence[float]]  # by question id: every final answer's share, oldest first
    prior: Prior
    parameters: tuple[float, ...] | None = None  # the learner's fitted FSRS parameters (None: defaults)

    @property
    def answers(self) -> int:
        return sum(len(g) for g in self.grades.values())


def with_key_point_scores(
    bank: Bank, grades: Mapping[str, Sequence[float]], ungraded: Mapping[str, Sequence[str]]
) -> dict[str, list[float]]:
    """The final answers' shares, followed by the key-point scores of the answers still awaiting
    their self-grade to items scored by key points (the graded score where there is one)."""
    out = {qid: list(shares) for qid, shares in grades.items()}
    for qid, responses in ungraded.items():
        try:
            question = bank.question(qid)
        except KeyError:
            continue
        rules = TYPES[question.type]
        if rules.grades_by_key_points(question):
            scores = (rules.coverage(question, r) for r in responses)
            out.setdefault(qid, []).extend(s.fraction for s in scores if s is not None)
    return out


def evidence(cards: Mapping[str, Card], grades: Mapping[str, Sequence[float]],
             parameters: Sequence[float] | None = None) -> Evidence:  # fmt: skip
    """The cards and answers, with the prior fitted on each item's first answer."""
    fitted = tuple(parameters) if parameters is not None else None
    return Evidence(cards, grades, fit_prior(g[0] for g in grades.values() if g), fitted)


def forecast(bank: Bank, paper: Paper, seen: Evidence, at: datetime) -> DayForecast:
    """The paper's expected score, 80 % band and pass chance at `at` (no review in between)."""
    slots: list[tuple[float, float]] = []
    sections = []
    for section in paper.sections:
        pool = [q for q in bank.questions if q.type is section.type]
        if not pool:
            continue  # the paper as drawn drops a type the bank lacks (bot/domain/paper.py)
        chances = [
            item_chance(q, seen.cards.get(q.id), seen.grades.get(q.id, ()), seen.prior, at, seen.parameters)
            for q in pool
        ]
        count = min(section.count, len(pool))
        if len(pool) <= section.count:
            section_slots = [(section.points, c) for c in chances]
        else:  # a random draw of `count`: each slot is right with the pool's mean chance
            mean = sum(chances) / len(chances)
            section_slots = [(section.points, mean)] * count
        slots += section_slots
        expected = sum(points * c for points, c in section_slots)
        sections.append(SectionForecast(str(section.type), count, count * section.points, expected))
    distribution = score_distribution(slots)
    return DayForecast(
        at, sum(s.expected for s in sections),
        quantile(distribution, BAND[0]), quantile(distribution, BAND[1]),
        chance_at_least(distribution, paper.pass_mark), tuple(sections),
    )  # fmt: skip


def forecasts(bank: Bank, paper: Paper, seen: Evidence, start: datetime, until: datetime | None,
              days: int = 30) -> list[DayForecast]:  # fmt: skip
    """A forecast per day from `start`: up to `until` (an exam date) when given, else `days`
    days on; without further reviews, so the curve shows what forgetting alone would do."""
    span = days if until is None else max(0, math.ceil((until - start).total_seconds() / 86400))
    return [forecast(bank, paper, seen, start + timedelta(days=d)) for d in range(span + 1)]
