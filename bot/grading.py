"""Answer grading: read a learner's raw reply to a question, canonicalise it and score it.

Pure functions only (no I/O, clock or randomness), so every adapter grades the same way. Each
question type reads and grades in its own module (bot/question_types); this module is the one
entry point. The readers they share live with their concepts: option letters in
bot.option_letters, true/false words in bot.vocabulary, numbers in bot.numbers, units and
percentages in bot.quantities, text folding in bot.folding; a reply that can't be read raises
bot.invalid_response.InvalidResponse.
"""

from __future__ import annotations

from bot.folding import normalize_text
from bot.grades import Grade, Verdict, grade_of
from bot.invalid_response import InvalidResponse, quoted
from bot.model import Question
from bot.numbers import parse_number
from bot.question_types import TYPES
from bot.question_types.fill import answers_match

__all__ = [
    "Grade",
    "InvalidResponse",
    "Verdict",
    "answers_match",
    "canonical_response",
    "grade",
    "normalize_text",
    "parse_number",
    "prepare",
    "self_grade",
]


def canonical_response(question: Question, raw: str) -> str:
    """Parse raw as an answer to question and return its canonical form (see Grade.response).

    Raises InvalidResponse when raw can't be read as an answer of that type.
    """
    return TYPES[question.type].read(question, raw)


def grade(question: Question, raw: str, *, partial_credit: bool = False) -> Grade:
    """Grade raw against question. Short answers come back PENDING for self_grade(), with the
    share of the points their key points give as the fraction (0 for an item without them).

    partial_credit only affects multi: a non-empty proper subset of the key with no wrong
    letter then earns PARTIAL 0.5 instead of WRONG. A fill item with a tolerance accepts a
    number within it of an alternative.
    """
    rules = TYPES[question.type]
    response = rules.read(question, raw)
    verdict = rules.verdict(question, response, raw, partial_credit=partial_credit)
    covered = rules.coverage(question, response) if verdict is Verdict.PENDING else None
    if covered is not None:  # a provisional score until the learner grades it
        return Grade(verdict, covered.fraction, response)
    return grade_of(verdict, response)


async def prepare(question: Question) -> None:
    """Make ready what grading `question` needs, off the event loop (call before grade())."""
    await TYPES[question.type].prepare(question)


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
    return grade_of(verdict, response.strip())
