"""Contest scoring, Kahoot's published rule, as pure functions.

A correct answer after t seconds of a T-second timer earns round(1000 × (1 − (t / T) / 2)),
plus +100 for each consecutive correct answer after the first, capped at +500. A wrong or
missing answer earns 0 and resets the streak.
"""

from __future__ import annotations

from dataclasses import dataclass

BASE = 1000
STREAK_STEP = 100
STREAK_CAP = 500


def answer_points(elapsed: float, timer: float) -> int:
    t = min(max(elapsed, 0.0), timer)
    # Python's round() is banker's rounding; Kahoot rounds half up.
    return int(BASE * (1 - (t / timer) / 2) + 0.5)


def streak_bonus(streak: int) -> int:
    """Bonus for an answer that makes the streak `streak` long (1 = first correct)."""
    return min(STREAK_STEP * max(streak - 1, 0), STREAK_CAP)


@dataclass(frozen=True, slots=True)
class PlayerState:
    points: int = 0
    correct: int = 0
    answered: int = 0
    streak: int = 0


def score_question(
    before: PlayerState, *, answered: bool, correct: bool, elapsed: float, timer: float
) -> PlayerState:
    if not (answered and correct):
        return PlayerState(before.points, before.correct, before.answered + int(answered), 0)
    streak = before.streak + 1
    gained = answer_points(elapsed, timer) + streak_bonus(streak)
    return PlayerState(before.points + gained, before.correct + 1, before.answered + 1, streak)
