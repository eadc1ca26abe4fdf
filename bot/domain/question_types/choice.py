"""What the two option types (single, multi) share: options in the bank, letters read by
bot.domain.reading.option_letters, a button press taken as is, the right letters as the correct tokens, and
per-option counts at the reveal."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from bot.domain.kinds import InputKind, OptionCount
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.reading.option_letters import LETTERS, pick_letters

from .base import QuestionTypeRules, Settled, trim_answer

__all__ = ["ChoiceRules", "is_letter", "letter_set", "picked_options"]


def is_letter(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 1 and value in LETTERS


def letter_set(letters: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(letter.strip().upper() for letter in letters)


def picked_options(options: tuple[tuple[str, str], ...], answer: str) -> tuple[str, ...] | None:
    """The letters an answer picks: `A,B,D`, `A、B、D`, `ABD` (read by the grader's own reader,
    bot.domain.reading.option_letters, so a paper and a reply agree), or the one option whose text it is."""
    try:
        return pick_letters(answer, tuple(letter for letter, _ in options))
    except InvalidResponse:
        by_text = [letter for letter, text in options if trim_answer(text) == trim_answer(answer)]
        return tuple(by_text) if len(by_text) == 1 else None


class ChoiceRules(QuestionTypeRules):
    takes_options: ClassVar[bool] = True
    key_pattern: ClassVar[str | None] = r"[A-Ha-h]{1,8}"
    in_contests: ClassVar[bool] = True
    # The catalog key of the warning when the letters say the other choice type.
    other_count_warning: ClassVar[str]

    def settle(self, answer: str, options: tuple[tuple[str, str], ...]) -> Settled:
        if not options:
            return Settled(None, warning="import.answers.no_options")
        picked = picked_options(options, answer)
        if picked is None:
            return Settled(None, warning="import.answers.not_an_option", drop=True)
        # The letters decide between one right option and several: this type when its input
        # takes that many, else the option type that does (the source is told).
        several = len(picked) > 1
        if several == (self.input_kind is InputKind.CHOOSE_MANY):
            kind = self.qtype
        else:
            kind = QuestionType.MULTI if several else QuestionType.SINGLE
        return Settled(kind, picked, None if kind is self.qtype else self.other_count_warning)

    def table_answer(self, question: Question) -> str:
        return "".join(question.answer)

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
