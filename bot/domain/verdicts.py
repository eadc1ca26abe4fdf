"""A grade: the verdict on one answer, the share of the question's points it earns, and the
answer's canonical form (what is stored and counted at the reveal)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Grade", "Verdict", "grade_of"]


class Verdict(StrEnum):
    CORRECT = "correct"
    PARTIAL = "partial"
    WRONG = "wrong"
    PENDING = "pending"  # short answer awaiting the learner's self-grade


@dataclass(frozen=True, slots=True)
class Grade:
    verdict: Verdict
    # share of the question's points earned: 0.0, 0.5 or 1.0 (multi and ordering partial credit
    # 0.5 too); for a PENDING short answer with key points, the share of them it covers
    # (bot/domain/key_points.py), provisional until the self-grade
    fraction: float
    response: str  # canonical form of the answer, to store and to count

    @property
    def is_final(self) -> bool:
        return self.verdict is not Verdict.PENDING


_FRACTION = {Verdict.CORRECT: 1.0, Verdict.PARTIAL: 0.5, Verdict.WRONG: 0.0, Verdict.PENDING: 0.0}


def grade_of(verdict: Verdict, response: str) -> Grade:
    return Grade(verdict, _FRACTION[verdict], response)
