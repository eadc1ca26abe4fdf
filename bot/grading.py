"""Answer grading: read a learner's raw reply to a question, canonicalise it and score it.

Pure functions only (no I/O, clock or randomness), so every adapter grades the same way. The
readers live with their concepts: option letters in bot.option_letters, true/false words in
bot.vocabulary, numbers in bot.numbers, units and percentages in bot.quantities, text folding in
bot.folding; a reply that can't be read raises bot.invalid_response.InvalidResponse.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.folding import normalize_text
from bot.invalid_response import InvalidResponse, quoted
from bot.model import Question, QuestionType
from bot.numbers import parse_number
from bot.option_letters import pick_letters
from bot.quantities import fold_numerals, quantities_match, read_quantity
from bot.vocabulary import read_judge

__all__ = [
    "Grade",
    "InvalidResponse",
    "Verdict",
    "answers_match",
    "canonical_response",
    "grade",
    "normalize_text",
    "parse_number",
    "self_grade",
]


class Verdict(StrEnum):
    CORRECT = "correct"
    PARTIAL = "partial"
    WRONG = "wrong"
    PENDING = "pending"  # short answer awaiting the learner's self-grade


@dataclass(frozen=True, slots=True)
class Grade:
    verdict: Verdict
    fraction: float  # 0.0, 0.5 or 1.0: share of the question's points earned
    response: str  # canonical form of the answer, to store and to count

    @property
    def is_final(self) -> bool:
        return self.verdict is not Verdict.PENDING


_FRACTION = {Verdict.CORRECT: 1.0, Verdict.PARTIAL: 0.5, Verdict.WRONG: 0.0, Verdict.PENDING: 0.0}


def _grade(verdict: Verdict, response: str) -> Grade:
    return Grade(verdict, _FRACTION[verdict], response)


# --- fill answers ------------------------------------------------------------------------------


def answers_match(expected: str, given: str) -> bool:
    """One accepted fill alternative against a response: folded text first, then as quantities
    when both sides are a number with at most a unit (bot.quantities: "lr=1e-3" stays text, so it
    won't match "1e-3"), then as text with Chinese numerals before measure words in digits."""
    a, b = normalize_text(expected), normalize_text(given)
    if a == b:
        return True
    x, y = read_quantity(a), read_quantity(b)
    if x is not None and y is not None:
        return quantities_match(x, y)
    return fold_numerals(a) == fold_numerals(b)


# --- choice letters and judge words ------------------------------------------------------------


def _read_letters(question: Question, raw: str) -> list[str]:
    """The distinct option letters in raw (canonical spelling, sorted)."""
    return sorted(pick_letters(raw, question.letters))


def _letter_set(letters: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(letter.strip().upper() for letter in letters)


def _read_judge(raw: str) -> str:
    if not raw.strip():
        raise InvalidResponse("empty", "answer.invalid.empty_judge")
    value = read_judge(raw)
    if value is None:
        raise InvalidResponse("not_judge", text=quoted(raw))
    return "true" if value else "false"


# --- public API --------------------------------------------------------------------------------


def canonical_response(question: Question, raw: str) -> str:
    """Parse raw as an answer to question and return its canonical form (see Grade.response).

    Raises InvalidResponse when raw can't be read as an answer of that type.
    """
    if question.type.has_options and raw in question.letters:
        return raw  # a button press: already canonical
    match question.type:
        case QuestionType.SINGLE:
            letters = _read_letters(question, raw)
            if len(letters) > 1:
                raise InvalidResponse("multiple_letters", letters=", ".join(letters))
            return letters[0]
        case QuestionType.MULTI:
            return ",".join(_read_letters(question, raw))
        case QuestionType.JUDGE:
            return _read_judge(raw)
        case QuestionType.FILL:
            if not normalize_text(raw):
                raise InvalidResponse("empty", "answer.invalid.empty_fill")
            return raw.strip()
        case QuestionType.SHORT:
            if not raw.strip():
                raise InvalidResponse("empty", "answer.invalid.empty_short")
            return raw.strip()
    raise AssertionError(f"unhandled question type {question.type!r}")


def grade(question: Question, raw: str, *, partial_credit: bool = False) -> Grade:
    """Grade raw against question. Short answers come back PENDING for self_grade().

    partial_credit only affects multi: a non-empty proper subset of the key with no wrong
    letter then earns PARTIAL 0.5 instead of WRONG.
    """
    response = canonical_response(question, raw)
    match question.type:
        case QuestionType.SINGLE | QuestionType.MULTI:
            chosen, key = _letter_set(response.split(",")), _letter_set(question.answer)
            if chosen == key:
                return _grade(Verdict.CORRECT, response)
            partial = question.type is QuestionType.MULTI and partial_credit and chosen < key
            return _grade(Verdict.PARTIAL if partial else Verdict.WRONG, response)
        case QuestionType.JUDGE:
            correct = (response == "true") == question.judge_answer
        case QuestionType.FILL:
            correct = any(answers_match(alternative, raw) for alternative in question.answer)
        case QuestionType.SHORT:
            return _grade(Verdict.PENDING, response)
    return _grade(Verdict.CORRECT if correct else Verdict.WRONG, response)


_SELF_LEVELS = {
    "full": Verdict.CORRECT,
    "全对": Verdict.CORRECT,
    "correct": Verdict.CORRECT,
    "half": Verdict.PARTIAL,
    "部分": Verdict.PARTIAL,
    "partial": Verdict.PARTIAL,
    "zero": Verdict.WRONG,
    "不会": Verdict.WRONG,
    "wrong": Verdict.WRONG,
}


def self_grade(level: str, *, response: str = "") -> Grade:
    """The final grade of a short answer from the learner's own verdict.

    level: full/全对 -> CORRECT 1.0, half/部分 -> PARTIAL 0.5, zero/不会 -> WRONG 0.0 (the Verdict
    values correct/partial/wrong are accepted too). Pass the PENDING grade's response to keep it.
    """
    verdict = _SELF_LEVELS.get(level.strip().casefold())
    if verdict is None:
        raise InvalidResponse("unknown_level", level=quoted(level))
    return _grade(verdict, response.strip())
