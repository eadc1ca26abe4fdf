"""The answer rules of a bank item, by its type: each type's module under bot/domain/question_types
says what its answer must be (answer_problems) and reads a multi answer written as "ABD",
"A,B,D" or a list (multi_letters); this module is the bank's entry point to them."""

from __future__ import annotations

from typing import Any

from bot.domain.question_types import TYPES
from bot.domain.question_types.base import got_phrase
from bot.domain.question_types.multi import multi_letters
from bot.domain.questions import QuestionType
from bot.domain.reading.option_letters import LETTERS

__all__ = ["LETTERS", "answer_problems", "got_phrase", "multi_letters"]


def answer_problems(kind: QuestionType, answer: Any, letters: list[str] | None) -> list[str]:
    """What is wrong with `answer` for an item of type `kind` whose option letters are given."""
    return TYPES[kind].answer_problems(answer, letters)
