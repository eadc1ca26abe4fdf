"""FSRS that learns the learner (bot/application/study/memory_fit.py): do per-learner parameters predict a
learner's recall better than FSRS's defaults, and does /ready's pass chance get better calibrated?

    python -m benchmarks.fsrs_fit [--learners 80] [--seed 20261204]

Simulated learners, each with true memory parameters of their own, drawn around FSRS's defaults
(first stabilities 0.25–2× the crowd's, a forgetting-curve decay from 0.1 to 0.6, a different
growth of stability on success; FSRS's defaults are the *mean of Anki users*, so a learner of
one exam is rarely that mean). Each studies a bank of 400 single-choice items for 110 days: a
few new items a day (a first answer right with the learner's own chance), then the cards the
bot schedules with FSRS's defaults, on the days they come to the bot (each day with a chance of
skipping it). An answer is right with the learner's *true* recall probability; a right one is
slow (rated Hard) 15 % of the time.

Measured on held-out later reviews: reviews before day 80 are the history, those after it the
test set (repeat reviews only: a first answer has no memory to predict from). Three predictors of
each test review's recall:
- naive: the learner's share of right answers in the history (what /stats shows);
- default: FSRS's retrievability with the default parameters, every card replayed in full;
- per learner: the same with parameters fitted (fsrs-rs-python, adapters/optimizer/fsrs_rs.py)
  on the history only.
Log-loss and RMSE (of predicted recall against the 0/1 outcome) over every test review, as ratios
against the naive predictor. A sweep fits on each learner's first 200, 400, …, 1,600 answers
only (MIN_REVIEWS in bot/application/study/memory_fit.py comes from it).

/ready's calibration: each learner sits simulated exams (50 items drawn from the bank, pass at
70 %) at day 80 and 7, 14 and 30 days later without reviews in between, 20 draws each, every item
right with the learner's true recall then (or their first-answer chance for an item never seen);
/ready's pass chance (bot/domain/readiness.forecast, as the command computes it) with default and
per-learner parameters, and from the naive share, against the exams' pass / fail: the Brier score.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import fsrs

from adapters.optimizer.fsrs_rs import fit_parameters
from bot.application.study.memory_fit import MIN_REVIEWS, card_histories
from bot.domain.questions import Bank, Paper, PaperSection, Question, QuestionType
from bot.domain.readiness import evidence, forecast, retrievability
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Card, LearnerMemory, Outcome, StudyAnswer

START = datetime(2026, 1, 5, tzinfo=UTC)
BANK_SIZE, DAYS, SPLIT_DAY = 400, 110, 80
EXAM_ITEMS, PASS_SHARE, EXAM_DRAWS = 50, 0.7, 20
EXAM_OFFSETS = (0, 7, 14, 30)  # days after the split
SWEEP = (200, 400, 600, 800, 1000, 1200, 1600)
DEFAULTS = tuple(fsrs.Scheduler().parameters)
LOW = fsrs.scheduler.LOWER_BOUNDS_PARAMETERS
HIGH = fsrs.scheduler.UPPER_BOUNDS_PARAMETERS
EPS = 1e-6


@dataclass
class Learner:
    user_id: int
    true: tuple[float, ...]
    first_right: float  # chance of knowing an item never seen
    new_per_day: int
    attendance: float  # chance of studying on a given day
    answers: list[StudyAnswer] = field(default_factory=list)
    true_cards: dict[str, Card] = field(default_factory=dict)  # the true memory at the split


def draw_learner(user_id: int, rng: random.Random) -> Learner:
    w = list(DEFAULTS)
    first = math.exp(rng.uniform(math.log(0.25), math.log(2.0)))
    for i in range(4):
        w[i] *= first
    w[8] = w[8] + rng.uniform(-0.6, 0.4)  # how much a success grows stability
    w[11] *= rng.uniform(0.6, 1.4)  # stability after a lapse
    w[20] = rng.uniform(0.1, 0.6)  # the forgetting curve's decay
    true = tuple(min(HIGH[i], max(LOW[i], v)) for i, v in enumerate(w))
    return Learner(user_id, true, rng.uniform(0.35, 0.7), rng.randint(3, 7), rng.uniform(0.6, 0.95))


def simulate(learner: Learner, rng: random.Random, spaced: SpacedRepetition) -> None:
    """The learner's answers for DAYS days; their true memory of every item at the split."""
    truth = LearnerMemory(learner.user_id, parameters=learner.true)
    bot: dict[str, Card] = {}
    true: dict[str, Card] = {}
    next_new = 0
    for day in range(DAYS):
        if day == SPLIT_DAY:
            learner.true_cards = dict(true)
        if rng.random() > learner.attendance:
            continue
        session = START + timedelta(days=day, hours=rng.uniform(7, 22))
        due = sorted((q for q, c in bot.items() if c.due <= session), key=lambda q: bot[q].due)
        new = [f"q{n}" for n in range(next_new, min(BANK_SIZE, next_new + learner.new_per_day))]
        next_new += len(new)
        for offset, qid in enumerate(due + new):
            at = session + timedelta(seconds=40 * offset)
            card = true.get(qid)
            chance = learner.first_right if card is None else retrievability(card, at, learner.true)
            right = rng.random() < (learner.first_right if chance is None else chance)
            slow = right and rng.random() < 0.15
            answer = StudyAnswer(learner.user_id, "bench", qid, Outcome.RIGHT if right else Outcome.WRONG, at,
                                 90.0 if slow else 10.0)  # fmt: skip
            learner.answers.append(answer)
            true[qid] = spaced.review(card, answer, truth)
            bot[qid] = spaced.review(bot.get(qid), answer)
    if SPLIT_DAY >= DAYS:
        learner.true_cards = dict(true)


def replay(answers: Sequence[StudyAnswer], parameters: tuple[float, ...] | None, spaced: SpacedRepetition,
           split: datetime) -> tuple[list[tuple[float, int]], dict[str, Card]]:  # fmt: skip
    """Each test review's predicted recall with `parameters` and its outcome; the cards as they
    stood at the split."""
    memory = LearnerMemory(0, parameters=parameters)
    cards: dict[str, Card] = {}
    at_split: dict[str, Card] | None = None
    out = []
    for answer in answers:
        if at_split is None and answer.answered_at >= split:
            at_split = dict(cards)
        card = cards.get(answer.question_id)
        if card is not None and answer.answered_at >= split:
            chance = retrievability(card, answer.answered_at, parameters)
            if chance is not None:
                out.append((chance, int(answer.outcome is Outcome.RIGHT)))
        cards[answer.question_id] = spaced.review(card, answer, memory)
    return out, at_split if at_split is not None else cards


def log_loss(pairs: Sequence[tuple[float, int]]) -> float:
    return -statistics.fmean(math.log(max(p if y else 1 - p, EPS)) for p, y in pairs)


def rmse(pairs: Sequence[tuple[float, int]]) -> float:
    return math.sqrt(statistics.fmean((p - y) ** 2 for p, y in pairs))


def fit(answers: Sequence[StudyAnswer], spaced: SpacedRepetition) -> tuple[float, ...]:
    return fit_parameters(card_histories(answers, spaced.slow_seconds))


PAPER = Paper((PaperSection(QuestionType.SINGLE, EXAM_ITEMS, 1.0),), 60, EXAM_ITEMS * PASS_SHARE)
BANK = Bank("bench", "bench", "en", "simulated", tuple(
    Question(f"q{n}", n + 1, QuestionType.SINGLE, f"item {n}", ("A",), options=(("A", "a"), ("B", "b")))
    for n in range(BANK_SIZE)
), PAPER)  # fmt: skip


def exams(learner: Learner, at: datetime, rng: random.Random) -> list[int]:
    """EXAM_DRAWS exams sat at `at`: passed (1) or not."""
    chances = []
    for n in range(BANK_SIZE):
        card = learner.true_cards.get(f"q{n}")
        recall = retrievability(card, at, learner.true) if card is not None else None
        chances.append(learner.first_right if recall is None else recall)
    out = []
    for _ in range(EXAM_DRAWS):
        score = sum(rng.random() < chances[i] for i in rng.sample(range(BANK_SIZE), EXAM_ITEMS))
        out.append(int(score >= PAPER.pass_mark))
    return out


def pass_chance(cards: dict[str, Card], answers: Sequence[StudyAnswer], parameters: tuple[float, ...] | None,
                at: datetime, naive: float | None = None) -> float:  # fmt: skip
    grades: dict[str, list[float]] = {}
    for a in answers:
        grades.setdefault(a.question_id, []).append(1.0 if a.outcome is Outcome.RIGHT else 0.0)
    if naive is not None:  # every item right with the learner's overall share
        cards = {}
        grades = {f"q{n}": [naive] for n in range(BANK_SIZE)}
    seen = evidence(cards, grades, parameters)
    return forecast(BANK, PAPER, seen, at).pass_chance


def brier(pairs: Sequence[tuple[float, int]]) -> float:
    return statistics.fmean((p - y) ** 2 for p, y in pairs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, default=80)
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    spaced = SpacedRepetition()
    split = START + timedelta(days=SPLIT_DAY)
    started = time.perf_counter()
    learners = [draw_learner(i + 1, rng) for i in range(args.learners)]
    for learner in learners:
        simulate(learner, rng, spaced)
    simulated = time.perf_counter() - started

    pooled: dict[str, list[tuple[float, int]]] = {"naive": [], "default": [], "per learner": []}
    sweep: dict[int, list[tuple[float, float]]] = {k: [] for k in SWEEP}  # (fitted, default) log-loss
    calibration: dict[str, list[tuple[float, int]]] = {"naive": [], "default": [], "per learner": []}
    fit_seconds: list[float] = []
    history_sizes = []
    better = 0
    for learner in learners:
        history = [a for a in learner.answers if a.answered_at < split]
        history_sizes.append(len(history))
        tic = time.perf_counter()
        fitted = fit(history, spaced)
        fit_seconds.append(time.perf_counter() - tic)
        share = statistics.fmean(a.outcome is Outcome.RIGHT for a in history)
        default_pairs, default_cards = replay(learner.answers, None, spaced, split)
        fitted_pairs, fitted_cards = replay(learner.answers, fitted, spaced, split)
        pooled["default"] += default_pairs
        pooled["per learner"] += fitted_pairs
        pooled["naive"] += [(share, y) for _, y in default_pairs]
        better += log_loss(fitted_pairs) < log_loss(default_pairs)
        for k in SWEEP:
            if len(history) >= k:
                early = fit(history[:k], spaced)
                pairs, _ = replay(learner.answers, early, spaced, split)
                sweep[k].append((log_loss(pairs), log_loss(default_pairs)))
        for offset in EXAM_OFFSETS:
            at = split + timedelta(days=offset)
            outcomes = exams(learner, at, rng)
            chances = {
                "naive": pass_chance({}, history, None, at, naive=share),
                "default": pass_chance(default_cards, history, None, at),
                "per learner": pass_chance(fitted_cards, history, fitted, at),
            }
            for name, chance in chances.items():
                calibration[name] += [(chance, y) for y in outcomes]

    tests = len(pooled["default"])
    sizes = f"{min(history_sizes)}–{max(history_sizes)} (median {statistics.median(history_sizes):.0f})"
    print(f"FSRS per learner: {len(learners)} simulated learners, {DAYS} days, split at day {SPLIT_DAY}; "
          f"history {sizes} answers; {tests} held-out repeat reviews; seed {args.seed}")  # fmt: skip
    print(
        f"simulation {simulated:.1f} s; fit per learner (fsrs-rs-python, in process) "
        f"median {statistics.median(fit_seconds) * 1000:.0f} ms, max {max(fit_seconds) * 1000:.0f} ms"
    )
    print()
    base_ll, base_rmse = log_loss(pooled["naive"]), rmse(pooled["naive"])
    print("| predictor of recall | log-loss | ratio | RMSE | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, pairs in pooled.items():
        ll, r = log_loss(pairs), rmse(pairs)
        print(f"| {name} | {ll:.4f} | {ll / base_ll:.3f} | {r:.4f} | {r / base_rmse:.3f} |")
    print(f"\nper-learner parameters beat the defaults' log-loss for {better} of {len(learners)} learners")
    print()
    print(
        "| fitted on the first N answers | learners | log-loss, fitted / default (median) | worst | "
        "learners better than default |"
    )
    print("| --- | --- | --- | --- | --- |")
    for k, rows in sweep.items():
        if not rows:
            continue
        ratios = [f / d for f, d in rows]
        wins = sum(r < 1 for r in ratios)
        print(
            f"| {k}{' (MIN_REVIEWS)' if k == MIN_REVIEWS else ''} | {len(rows)} | "
            f"{statistics.median(ratios):.3f} | {max(ratios):.3f} | {wins} of {len(rows)} |"
        )
    print()
    exams_sat = len(calibration["naive"])
    passed = sum(y for _, y in calibration["naive"])
    print(
        f"/ready's pass chance against {exams_sat} simulated exams ({passed} passed), "
        f"at the split and {', '.join(str(o) for o in EXAM_OFFSETS[1:])} days later:"
    )
    print()
    base_brier = brier(calibration["naive"])
    print("| pass chance from | Brier score | ratio |")
    print("| --- | --- | --- |")
    for name, pairs in calibration.items():
        b = brier(pairs)
        print(f"| {name} | {b:.4f} | {b / base_brier:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
