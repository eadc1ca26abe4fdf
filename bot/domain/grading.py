"""Answer grading: read a learner's raw reply to a question, canonicalise it and score it.

Pure functions only (no I/O, clock or randomness), so every adapter grades the same way. Each
question type reads and grades in its own module (bot/domain/question_types); this module is the one
entry point. The readers they share live with their concepts: option letters in
bot/domain/reading/: option letters in option_letters, true/false words in vocabulary, numbers
in numbers, units and percentages in quantities, text folding in folding; a reply that can't be
read raises reading.invalid_response.InvalidResponse.
"""

from __future__ import annotations

from bot.domain.kinds import SELF_GRADE_WORDS, SelfGrade
from bot.domain.question_types import TYPES
from bot.domain.question_types.fill import answers_match
from bot.domain.questions import Question
from bot.domain.reading.folding import normalize_text
from bot.domain.reading.invalid_response import InvalidResponse, quoted
from bot.domain.reading.numbers import parse_number
from bot.domain.verdicts import Grade, Verdict, grade_of

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


_VERDICT_OF = {
    SelfGrade.FULL: Verdict.CORRECT,
    SelfGrade.HALF: Verdict.PARTIAL,
    SelfGrade.ZERO: Verdict.WRONG,
}
_SELF_LEVELS = {
    **{level.value: verdict for level, verdict in _VERDICT_OF.items()},
    # the buttons' Chinese labels (the numbers are the typed prompt's, read before grading)
    **{w: _VERDICT_OF[level] for level, words in SELF_GRADE_WORDS.items() for w in words if not w.isdigit()},
    "correct": Verdict.CORRECT,  # the verdicts' own names
    "partial": Verdict.PARTIAL,
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
