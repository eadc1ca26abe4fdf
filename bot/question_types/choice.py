"""What the two option types (single, multi) share: options in the bank, letters read by
bot.option_letters, a button press taken as is, the right letters as the correct tokens, and
per-option counts at the reveal."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from bot.messages import OptionCount
from bot.model import Question
from bot.option_letters import LETTERS, pick_letters

from .base import QuestionTypeRules

__all__ = ["ChoiceRules", "is_letter", "letter_set"]


def is_letter(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 1 and value in LETTERS


def letter_set(letters: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(letter.strip().upper() for letter in letters)


class ChoiceRules(QuestionTypeRules):
    takes_options: ClassVar[bool] = True
    key_pattern: ClassVar[str | None] = r"[A-Ha-h]{1,8}"

    def letters(self, question: Question, raw: str) -> list[str]:
        """The distinct option letters in raw (canonical spelling, sorted)."""
        return sorted(pick_letters(raw, question.letters))

    def correct_tokens(self, question: Question) -> tuple[str, ...]:
        return question.answer

    def correct_label(self, question: Question, language: str) -> str:
        return self.response_label(question, ",".join(question.answer), language)

    def tally(
        self, question: Question, answers: Iterable[tuple[str, str]], language: str
    ) -> tuple[OptionCount, ...]:
        tokens = (token for response, _ in answers for token in response.split(","))
        return self._option_tally(question, tokens, language)
