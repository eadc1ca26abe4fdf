"""Single choice (单选题): options A–H, one right letter; answered with one button."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from bot.domain.kinds import InputKind
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.verdicts import Verdict
from bot.locales.i18n import Listed

from .base import Example, got_phrase
from .choice import ChoiceRules, is_letter, letter_set

__all__ = ["Single"]


class Single(ChoiceRules):
    qtype = QuestionType.SINGLE
    input_kind = InputKind.CHOOSE_ONE
    words = ("单选", "单选题", "单项选择", "单项选择题", "radio", "單選", "單選題", "單項選擇題")
    schema: ClassVar[dict[str, Any]] = {"properties": {"answer": {"$ref": "#/$defs/letter"}}}
    other_count_warning = "import.answers.single_several"
    check_texts = (
        (r"single answer must be one option letter, (?P<got>.*)", "check.single_text"),
        (r"single answer must be one option letter A–H, got (?P<value>.*)", "check.single_letter"),
    )
    examples = (
        Example({"stem": "下列哪个是激活函数？", "options": {"A": "ReLU", "B": "SGD", "C": "Dropout"},
                 "answer": "A"}, right="A", wrong="B"),
        Example({"stem": "Which optimizer keeps per-weight learning rates?",
                 "options": {"A": "SGD", "B": "Momentum", "C": "Adam", "D": "None"}, "answer": "C"},
                right="c", wrong="选 A"),
    )
    one_press = True

    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        if answer is None:
            return ["single answer is empty"]
        if not isinstance(answer, str):
            return [f"single answer must be one option letter, {got_phrase(answer, quote=True)}"]
        if not is_letter(answer):
            return [f"single answer must be one option letter A–H, got {answer!r}"]
        among = f"the options {', '.join(letters)}" if letters else "the options"
        return [f"answer {answer} is not among {among}"] if letters and answer not in letters else []

    def read(self, question: Question, raw: str) -> str:
        if raw in question.letters:
            return raw  # a button press: already canonical
        letters = self.letters(question, raw)
        if len(letters) > 1:
            raise InvalidResponse("multiple_letters", letters=Listed(tuple(letters)))
        return letters[0]

    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        right = letter_set(response.split(",")) == letter_set(question.answer)
        return Verdict.CORRECT if right else Verdict.WRONG

    def gift_body(self, question: Question, escape: Callable[[str], str]) -> str:
        right = set(question.answer)
        marks = ["=" if letter in right else "~" for letter, _ in question.options]
        return " ".join(mark + escape(text) for mark, (_, text) in zip(marks, question.options, strict=True))
