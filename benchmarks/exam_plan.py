"""The exam plan's cost (bot/domain/exam_plan.plan_day): one learner's day planned over banks of
growing size, against the floor any per-card read of memory pays — FSRS retrievability of every
card at one date (what /weak and /ready compute) — measured in the same run. The plan adds two
FSRS review steps per candidate card (a review now, remembered or not), so its ratio to the floor
says what the planner itself costs; the absolute time says how long it holds a thread (it runs in
asyncio.to_thread, off the event loop).

    python -m benchmarks.exam_plan [--repeat 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from bot.domain.exam_plan import plan_day
from bot.domain.readiness import retrievability
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Card, Outcome, StudyAnswer

DAY0 = datetime(2026, 12, 4, 16, 0, tzinfo=UTC)
SIZES = (62, 500, 2000, 5000)


def cards_of(count: int, rng: random.Random) -> list[Card]:
    spaced, out = SpacedRepetition(), []
    for i in range(count):
        card = None
        for days_ago in sorted((rng.uniform(0.5, 40) for _ in range(3)), reverse=True):
            outcome = Outcome.RIGHT if rng.random() < 0.75 else Outcome.WRONG
            card = spaced.review(card, StudyAnswer(1, "b", f"q{i}", outcome, DAY0 - timedelta(days=days_ago)))
        assert card is not None
        out.append(card)
    return out


def timed(action, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(1)
    exam_at = DAY0 + timedelta(days=10)
    print("| cards | unseen | floor: every card's retrievability (ms) | plan_day, 30 min (ms) | ratio |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for size in SIZES:
        cards = cards_of(size, rng)
        unseen = [f"u{i}" for i in range(size // 2)]
        minutes = {c.question_id: 0.5 for c in cards} | dict.fromkeys(unseen, 0.5)

        def floor(cards: list[Card] = cards) -> None:
            for card in cards:
                retrievability(card, exam_at)

        def plan(cards: list[Card] = cards, unseen: list[str] = unseen, minutes: dict = minutes) -> None:
            plan_day(now=DAY0 + timedelta(hours=1), day_start=DAY0, day_end=DAY0 + timedelta(days=1),
                     exam_at=exam_at, days_left=10, unseen=unseen, cards=cards, minutes=minutes,
                     budget=30.0)  # fmt: skip

        base, cost = timed(floor, args.repeat), timed(plan, args.repeat)
        print(f"| {size} | {len(unseen)} | {base:.1f} | {cost:.1f} | {cost / base:.1f}× |")


if __name__ == "__main__":
    main()
