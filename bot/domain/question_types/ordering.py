"""Ordering (排序题): options A–H to put in order, the answer their letters in the right order
(BADC); answered by tapping the options in order (InputKind.ORDER: a tap on a placed option
takes it out again, 撤销 the last one, 提交 once all are placed) or by typing the letters in
order. Graded by exact order; with partial credit an
answer with at least half of the places right (but not all) earns half."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from bot.domain.kinds import InputKind
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.reading.option_letters import split_letters
from bot.domain.verdicts import Verdict
from bot.locales.i18n import Listed

from .base import Example, QuestionTypeRules, Settled, got_phrase
from .choice import is_letter

__all__ = ["Ordering"]

_ARROWS = {ord(c): " " for c in "→>-"}  # B → A → D → C, B>A>D>C, B-A-D-C
_LETTERS_APART = re.compile(r"\s*[A-H](?:[\s,，、>→\-]*[A-H])+\s*")


def _order(answer: Any) -> list[Any] | None:
    """A bank's ordering answer as a list: "BADC", "B,A,D,C", "B → A → D → C" and [B, A, D, C]."""
    if isinstance(answer, str):
        return [c for c in answer if c.isalpha()] if _LETTERS_APART.fullmatch(answer) else [answer]
    return list(answer) if isinstance(answer, list) else None


class Ordering(QuestionTypeRules):
    qtype = QuestionType.ORDERING
    answer_seconds = 60.0
    input_kind = InputKind.ORDER
    words = ("排序", "排序题", "sequence", "排序題")
    takes_options: ClassVar[bool] = True
    ordered_answer: ClassVar[bool] = True
    schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "answer": {
                "anyOf": [
                    {"type": "string", "pattern": "^\\s*[A-H](?:[\\s,，、>→-]*[A-H])+\\s*$"},
                    {"type": "array", "minItems": 2, "uniqueItems": True,
                     "items": {"$ref": "#/$defs/letter"}},
                ]
            }
        }
    }
    check_texts = (
        (r"ordering answer must be the option letters in order, (?P<got>.*)", "check.ordering_letters"),
        (r"ordering answer must put every option in order once, got (?P<order>.*)", "check.ordering_all"),
    )
    examples = (
        Example({"stem": "把训练流程排好序",
                 "options": {"A": "清洗数据", "B": "收集数据", "C": "评估", "D": "训练"},
                 "answer": "BADC"}, right="BADC", wrong="ABCD"),
        Example({"stem": "Order the steps", "options": {"A": "deploy", "B": "build", "C": "test"},
                 "answer": ["B", "C", "A"]}, right="b, c, a", wrong="C B A"),
    )

    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        if answer is None:
            return ["ordering answer is empty"]
        order = _order(answer)
        if order is None or not all(is_letter(x) for x in order):
            return [f"ordering answer must be the option letters in order, {got_phrase(answer)}"]
        if len(set(order)) != len(order) or (letters and sorted(order) != sorted(letters)):
            return [f"ordering answer must put every option in order once, got {''.join(order)}"]
        return []

    def bank_answer(self, answer: Any) -> tuple[str, ...]:
        return tuple(_order(answer) or ())  # the order as written: never sorted

    def yaml_answer(self, question: Question) -> Any:
        return "".join(question.answer)

    def settle(self, answer: str, options: tuple[tuple[str, str], ...]) -> Settled:
        try:
            order = split_letters(answer.translate(_ARROWS))
        except InvalidResponse:
            order = []
        letters = [letter for letter, _ in options]
        if len(order) < 2 or len(set(order)) != len(order) or sorted(order) != sorted(letters):
            return Settled(None, warning="import.answers.not_an_order", drop=True)
        return Settled(self.qtype, tuple(order))

    def table_answer(self, question: Question) -> str:
        return "".join(question.answer)

    def gift_body(self, question: Question, escape: Callable[[str], str]) -> str | None:
        return None  # GIFT has no ordering question: a GIFT export is refused, naming the items

    def read(self, question: Question, raw: str) -> str:
        order = split_letters(raw.translate(_ARROWS))
        known = set(question.letters)
        if unknown := [x for x in order if x not in known]:
            raise InvalidResponse("unknown_letter", letters=Listed(tuple(unknown)),
                                  options=Listed(tuple(question.letters)))  # fmt: skip
        return "".join(order)

    def response_tokens(self, response: str) -> tuple[str, ...]:
        return tuple(response)  # BADC: the letters in their order

    def remap_letters(self, response: str, mapping: dict[str, str]) -> str:
        return "".join(mapping[x] for x in response) if all(x in mapping for x in response) else response

    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        if tuple(response) == question.answer:
            return Verdict.CORRECT
        placed = sum(1 for given, right in zip(response, question.answer, strict=False) if given == right)
        return Verdict.PARTIAL if partial_credit and 2 * placed >= len(question.answer) else Verdict.WRONG

    def response_label(self, question: Question, response: str, language: str) -> str:
        return " → ".join(response)

    def correct_label(self, question: Question, language: str) -> str:
        return " → ".join(question.answer)
