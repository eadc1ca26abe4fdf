"""Question statistics for a bank's owners (classical item analysis), from every answer to its
items in every chat and mode: each item's difficulty (the share right), its discrimination
(the point-biserial correlation of the item's score with the learner's rest score), how often
each option was picked, and a flag on items whose key is probably wrong or that nobody gets
right. Pure: answers and the bank in, numbers out (text: bot/views/item_statistics_text.py).

Choices, and why:
- Each learner counts once per item, with their **first** answer to it. A later answer comes
  after the reveal showed the key (practice, review, a daily's reveal): it measures memory of
  the key, not the item, and a wrong key would teach itself to the learners who repeat it.
- A learner's ability is their **rest score**: their share of credit on the other items of the
  bank they answered (a share, not a sum, because learners answer different subsets in
  practice). The item itself is left out, or it would correlate with itself. Only learners
  with at least MIN_REST_ITEMS other items have one.
- An item's score is its answer's fraction (a multiple choice with partial credit, a
  self-graded short answer count their share), so for a right/wrong item the correlation is
  exactly the point-biserial.
- The key is probably wrong when the strong learners (TOP_SHARE of the item's learners by rest
  score) pick one option that is not in the key more often than an option of the key, by more
  than chance explains (a one-sided sign test between the two options' picks, at
  SIGNIFICANCE: with a small strong group 4 picks against 3 is noise, 27 against 12 is not). Nobody
  right: no first answer earned any credit. Neither flag is raised on an item with fewer than
  MIN_LEARNERS learners (it is shown as too few), nor the key flag with a top group of fewer
  than MIN_TOP.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question
from bot.domain.study_records import ItemAnswer

MIN_LEARNERS = 20  # first answers an item needs for its discrimination and its flags
MIN_REST_ITEMS = 5  # other items a learner must have answered to have a rest score
TOP_SHARE = 0.27  # the strong group: the top 27 % by rest score (Kelley's classic split)
MIN_TOP = 5  # strong learners the key flag needs at the least
SIGNIFICANCE = 0.05  # the key flag's sign test: how unlikely the rival's lead is by chance
# Where answers come from, as counted: a round's kind, or a mock; a kind added later is "other".
SOURCES = ("daily", "contest", "practice", "mock", "other")


class Flag(StrEnum):
    KEY = "key"  # strong learners prefer an option outside the key
    NONE_RIGHT = "none_right"  # no first answer earned any credit


@dataclass(frozen=True, slots=True)
class OptionPicks:
    """One option (a letter, or true/false): how many learners picked it on their first answer,
    of all and of the strong group."""

    token: str
    picks: int
    top_picks: int
    correct: bool


@dataclass(frozen=True, slots=True)
class ItemStats:
    question: Question
    answers: int  # every answer read (all attempts)
    learners: int  # first answers (one per learner)
    difficulty: float | None  # mean credit of the first answers; None without any
    discrimination: float | None  # point-biserial against the rest score; None: too few or undefined
    rest_learners: int  # learners with a rest score (the discrimination's sample)
    top_group: int  # strong learners (0: too few for the key flag)
    options: tuple[OptionPicks, ...]  # empty for a typed item
    rival: str | None  # the option the strong learners prefer over the key (with Flag.KEY)
    flags: tuple[Flag, ...]

    @property
    def enough(self) -> bool:
        return self.learners >= MIN_LEARNERS

    @property
    def key_picks(self) -> int:
        """The strong learners' picks of the key's least-picked option."""
        return min((o.top_picks for o in self.options if o.correct), default=0)

    @property
    def rival_picks(self) -> int:
        return next((o.top_picks for o in self.options if o.token == self.rival), 0)


@dataclass(frozen=True, slots=True)
class BankStatistics:
    bank: Bank
    items: tuple[ItemStats, ...]  # flagged first (key, then nobody right), then in bank order
    learners: int  # distinct learners with any answer to the bank's items
    answers: int  # answers read to the bank's current items
    by_source: tuple[tuple[str, int], ...]  # (source, answers), SOURCES order
    left_out: int  # answers to items no longer in the bank

    @property
    def flagged(self) -> tuple[ItemStats, ...]:
        return tuple(item for item in self.items if item.flags)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The correlation of two equally long series; None when either does not vary (or n < 2)."""
    n = len(xs)
    if n < 2 or len(ys) != n:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    # Rounding can carry |r| a hair past 1; the correlation is bounded by definition.
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def sign_test(more: int, fewer: int) -> float:
    """The one-sided p-value of `more` against `fewer` picks if the strong learners had no
    preference between the two options: P(X ≥ more) for X ~ Binomial(more + fewer, 1/2)."""
    n = more + fewer
    return sum(math.comb(n, k) for k in range(more, n + 1)) / (1 << n)


def first_answers(answers: Iterable[ItemAnswer], known: set[str]) -> dict[tuple[int, str], ItemAnswer]:
    """Each learner's first answer to each item of `known` (by time, then the order read)."""
    first: dict[tuple[int, str], ItemAnswer] = {}
    for answer in sorted(answers, key=lambda a: a.answered_at):  # stable: ties keep their order
        if answer.question_id in known:
            first.setdefault((answer.user_id, answer.question_id), answer)
    return first


def _credit(answer: ItemAnswer) -> float:
    return min(1.0, max(0.0, answer.fraction)) if math.isfinite(answer.fraction) else 0.0


def _tokens(question: Question, response: str) -> set[str]:
    """The option tokens a response picked, as the type's own reveal tally counts them."""
    tally = TYPES[question.type].tally(question, [(response, "")], "en")
    return {count.token for count in tally if count.count}


def compute(bank: Bank, answers: Iterable[ItemAnswer]) -> BankStatistics:
    """The statistics of every item of `bank` from `answers` (any order, any mix of modes)."""
    answers = list(answers)
    questions = {q.id: q for q in bank.questions}
    first = first_answers(answers, set(questions))
    read = [a for a in answers if a.question_id in questions]
    all_counts = Counter(a.question_id for a in read)
    sources = Counter(a.source if a.source in SOURCES else "other" for a in read)

    # Each learner's credit total and item count over the bank, for the rest scores.
    totals: dict[int, float] = {}
    counts: Counter[int] = Counter()
    for (user, _), answer in first.items():
        totals[user] = totals.get(user, 0.0) + _credit(answer)
        counts[user] += 1
    by_item: dict[str, list[ItemAnswer]] = {}
    for (_, question_id), answer in first.items():
        by_item.setdefault(question_id, []).append(answer)

    items = [_item(q, by_item.get(q.id, []), all_counts[q.id], totals, counts) for q in bank.questions]
    items.sort(key=_order)
    return BankStatistics(
        bank,
        tuple(items),
        len(counts),
        len(read),
        tuple((source, sources[source]) for source in SOURCES if sources[source]),
        len(answers) - len(read),
    )


def _item(question: Question, firsts: list[ItemAnswer], answers: int, totals: dict[int, float],
          counts: Counter[int]) -> ItemStats:  # fmt: skip
    scores = [_credit(a) for a in firsts]
    difficulty = sum(scores) / len(scores) if scores else None
    # Rest scores: the learner's share on the bank's other items they answered.
    rested = [
        (a, score, (totals[a.user_id] - score) / (counts[a.user_id] - 1))
        for a, score in zip(firsts, scores, strict=True)
        if counts[a.user_id] - 1 >= MIN_REST_ITEMS
    ]
    discrimination = None
    if len(rested) >= MIN_LEARNERS:
        discrimination = pearson([score for _, score, _ in rested], [rest for _, _, rest in rested])

    rules = TYPES[question.type]
    key = set(rules.correct_tokens(question))
    strong: list[ItemAnswer] = []
    if len(firsts) >= MIN_LEARNERS:
        size = math.ceil(TOP_SHARE * len(rested))
        if size >= MIN_TOP:
            ranked = sorted(rested, key=lambda row: (-row[2], row[0].user_id))
            strong = [a for a, _, _ in ranked[:size]]
    options: tuple[OptionPicks, ...] = ()
    rival = None
    if key:
        # A bank's responses repeat (a letter or two): each is read once, by the type's tally.
        read = {response: _tokens(question, response) for response in {a.response for a in firsts}}
        picks = Counter(t for a in firsts for t in read[a.response])
        top = Counter(t for a in strong for t in read[a.response])
        tokens = [view.token for view in rules.option_views(question, "en")]
        options = tuple(OptionPicks(tok, picks[tok], top[tok], tok in key) for tok in tokens)
        if strong:
            others = [o for o in options if not o.correct]
            best = max(others, key=lambda o: o.top_picks, default=None)
            least_key = min((o.top_picks for o in options if o.correct), default=0)
            if (
                best is not None
                and best.top_picks > least_key
                and sign_test(best.top_picks, least_key) < SIGNIFICANCE
            ):
                rival = best.token
    flags: list[Flag] = []
    if len(firsts) >= MIN_LEARNERS:
        if rival is not None:
            flags.append(Flag.KEY)
        if difficulty == 0.0:
            flags.append(Flag.NONE_RIGHT)
    return ItemStats(question, answers, len(firsts), difficulty, discrimination, len(rested),
                     len(strong), options, rival, tuple(flags))  # fmt: skip


def _order(item: ItemStats) -> tuple[int, float, int]:
    """Key-flagged items first, the clearest first (how far the rival leads among the strong
    learners); then nobody-right items; then the rest in bank order."""
    if Flag.KEY in item.flags:
        lead = (item.rival_picks - item.key_picks) / max(1, item.top_group)
        return (0, -lead, item.question.number)
    if Flag.NONE_RIGHT in item.flags:
        return (1, 0.0, item.question.number)
    return (2, 0.0, item.question.number)
