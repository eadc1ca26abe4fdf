"""Fill in the blank (填空题): one or more accepted alternatives, typed. An alternative matches
as folded text, as a quantity (bot.domain.reading.quantities), or — when the item has a tolerance (GIFT's
numeric questions) — as a number within that distance."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from bot.domain.kinds import InputKind
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.folding import normalize_text
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.reading.quantities import fold_numerals, quantities_match, quantities_within, read_quantity
from bot.domain.verdicts import Verdict
from bot.locales.i18n import bank_text

from .base import Example, QuestionTypeRules, Settled, got_phrase, trim_answer

__all__ = ["Fill", "answers_match", "split_alternatives"]


def split_alternatives(text: str) -> tuple[str, ...]:
    """A source's fill answer: alternatives joined by `或` are each accepted."""
    seen: dict[str, None] = {}
    for part in trim_answer(text).split("或"):
        part = trim_answer(part)
        if part:
            seen.setdefault(part, None)
    return tuple(seen)


def answers_match(expected: str, given: str, tolerance: float | None = None) -> bool:
    """One accepted fill alternative against a response: folded text first, then as quantities
    when both sides are a number with at most a unit (bot.domain.reading.quantities: "lr=1e-3"
    stays text, so it won't match "1e-3") — within `tolerance` when one is given — then as text with Chinese
    numerals before measure words in digits."""
    a, b = normalize_text(expected), normalize_text(given)
    if a == b:
        return True
    x, y = read_quantity(a), read_quantity(b)
    if x is not None and y is not None:
        return quantities_match(x, y) if tolerance is None else quantities_within(x, y, tolerance)
    return fold_numerals(a) == fold_numerals(b)


class Fill(QuestionTypeRules):
    qtype = QuestionType.FILL
    answer_seconds = 40.0
    input_kind = InputKind.TYPED
    words = ("blank", "填空", "填空题", "填空題")
    own_keys: ClassVar[dict[str, dict[str, Any]]] = {"tolerance": {"type": "number", "minimum": 0}}
    check_texts = (
        (r"fill answer needs at least one accepted alternative", "check.fill_none"),
        (r"fill answer item (?P<n>\d+) must be text, (?P<got>.*)", "check.fill_item_text"),
        (r"fill answer item (?P<n>\d+) is empty", "check.fill_item_empty"),
        (r"fill answer must be text, (?P<got>.*)", "check.fill_text"),
    )
    examples = (
        Example({"stem": "Transformer 的核心机制是____。", "answer": ["注意力机制", "自注意力"]},
                right="自注意力", wrong="卷积"),
        Example({"stem": "π ≈ ____（保留两位小数）", "answer": "3.14", "tolerance": 0.01},
                right="3.141", wrong="3.2"),
        Example({"stem": "The base of natural logarithms, to one decimal: ____", "answer": ["2.7"]},
                right="2.7", wrong="3"),
    )
    schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "answer": {
                "anyOf": [
                    {"$ref": "#/$defs/text"},
                    {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/text"}},
                ]
            }
        }
    }

    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        if answer is None:
            return ["fill answer is empty"]
        items = answer if isinstance(answer, list) else [answer]
        if not items:
            return ["fill answer needs at least one accepted alternative"]
        problems = []
        for n, item in enumerate(items, 1):
            which = f"fill answer item {n}" if isinstance(answer, list) else "fill answer"
            if not isinstance(item, str):
                problems.append(f"{which} must be text, {got_phrase(item, quote=True)}")
            elif not item.strip():
                problems.append(f"{which} is empty")
        return problems

    def yaml_answer(self, question: Question) -> Any:
        return list(question.answer)

    def settle(self, answer: str, options: tuple[tuple[str, str], ...]) -> Settled:
        return Settled(self.qtype, split_alternatives(answer))

    def table_answer(self, question: Question) -> str:
        # `|` separates alternatives; a lone one gets a trailing `|` so that a `或` in it is
        # not read as a separator.
        joined = "|".join(question.answer)
        return joined + "|" if len(question.answer) == 1 and "或" in joined else joined

    def gift_body(self, question: Question, escape: Callable[[str], str]) -> str | None:
        if question.tolerance is None:
            return super().gift_body(question, escape)
        return "#" + " ".join(f"={a}:{question.tolerance:g}" for a in question.answer)

    def read(self, question: Question, raw: str) -> str:
        if not normalize_text(raw):
            raise InvalidResponse("empty", "answer.invalid.empty_fill")
        return raw.strip()

    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        right = any(answers_match(alternative, raw, question.tolerance) for alternative in question.answer)
        return Verdict.CORRECT if right else Verdict.WRONG

    def correct_label(self, question: Question, language: str) -> str:
        return bank_text(language, " / ".join(question.answer))
