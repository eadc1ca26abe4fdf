"""Multiple choice (多选题): options A–H, two or more right letters; answered by toggling
options and submitting. With partial credit a proper subset of the key with no wrong letter
earns half."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from bot.domain.kinds import InputKind
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.reading.option_letters import split_letters
from bot.domain.verdicts import Verdict

from .base import Example, got_phrase
from .choice import ChoiceRules, is_letter, letter_set

__all__ = ["Multi", "multi_letters"]

# A bank writes a multi answer's letters in capitals, together or apart: ABD, A,B,D, A、B、D.
_CAPITALS_APART = re.compile(r"[A-Z]+(?:[\s,，、]+[A-Z]+)*")


def multi_letters(answer: Any) -> list[Any] | None:
    """A multi answer as a list: "ABD", "A,B,D", "A、B、D" and [A, B, D] all give [A, B, D]; read
    by the grader's letter reader (bot.domain.reading.option_letters), held to capitals and plain
    separators."""
    if isinstance(answer, str):
        if not _CAPITALS_APART.fullmatch(answer.strip()):
            return [answer]
        try:
            return split_letters(answer)
        except InvalidResponse:
            return [answer]
    return list(answer) if isinstance(answer, list) else None


class Multi(ChoiceRules):
    qtype = QuestionType.MULTI
    answer_seconds = 45.0
    input_kind = InputKind.CHOOSE_MANY
    words = ("multiple", "多选", "多选题", "多项选择", "多项选择题", "不定项", "不定项选择题", "checkbox",
             "多選", "多選題", "多項選擇題")  # fmt: skip
    schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "answer": {
                "anyOf": [
                    {"type": "string", "pattern": "^\\s*[A-H](?:[\\s,，、]*[A-H])+\\s*$"},
                    {
                        "type": "array",
                        "minItems": 2,
                        "uniqueItems": True,
                        "items": {"$ref": "#/$defs/letter"},
                    },
                ]
            }
        }
    }

    other_count_warning = "import.answers.multi_one"
    check_texts = (
        (r"multi answer must be a list of option letters, (?P<got>.*)", "check.multi_list"),
        (r"multi answer must be option letters A–H, got (?P<bad>.*)", "check.multi_letters"),
        (r"multi answer repeats (?P<letters>.*)", "check.multi_repeats"),
        (r"multi answer needs at least 2 different letters, got (?P<count>\d+) \((?P<letters>.*)\); "
         r"use type single for one correct option", "check.multi_two"),
    )
    examples = (
        Example({"stem": "下列属于优化器的有",
                 "options": {"A": "SGD", "B": "ReLU", "C": "Adam", "D": "Dropout"},
                 "answer": ["A", "C"]}, right="AC", wrong="A"),
        Example({"stem": "Which are regularisers?",
                 "options": {"A": "L2", "B": "Dropout", "C": "ReLU", "D": "Early stopping"},
                 "answer": ["A", "B", "D"]}, right="A、B、D", wrong="ABCD"),
    )

    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        if answer is None:
            return ["multi answer is empty"]
        picked = multi_letters(answer)
        if picked is None:
            return [f"multi answer must be a list of option letters, {got_phrase(answer)}"]
        if bad := [x for x in picked if not is_letter(x)]:
            return [f"multi answer must be option letters A–H, got {', '.join(map(repr, bad))}"]
        problems, distinct = [], list(dict.fromkeys(picked))
        if repeated := [x for x in distinct if picked.count(x) > 1]:
            problems.append(f"multi answer repeats {', '.join(repeated)}")
        if len(distinct) < 2:
            problems.append(
                f"multi answer needs at least 2 different letters, got {len(distinct)} "
                f"({', '.join(distinct)}); use type single for one correct option"
            )
        among = f"the options {', '.join(letters)}" if letters else "the options"
        if letters and (missing := [x for x in distinct if x not in letters]):
            problems.append(f"answer {', '.join(missing)} not among {among}")
        return problems

    def bank_answer(self, answer: Any) -> tuple[str, ...]:
        return tuple(sorted(multi_letters(answer) or ()))  # canonical: option order

    def yaml_answer(self, question: Question) -> Any:
        return tuple(question.answer)  # one line: [A, B, D]

    def read(self, question: Question, raw: str) -> str:
        if raw in question.letters:
            return raw
        return ",".join(self.letters(question, raw))

    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        chosen, key = letter_set(response.split(",")), letter_set(question.answer)
        if chosen == key:
            return Verdict.CORRECT
        return Verdict.PARTIAL if partial_credit and chosen < key else Verdict.WRONG

    def gift_body(self, question: Question, escape: Callable[[str], str]) -> str:
        # Moodle's weighted answers: each right option its share of 100 %, a wrong one -100 %.
        right = set(question.answer)
        share = f"{100 / len(right):g}"
        marks = [f"~%{share if letter in right else '-100'}%" for letter, _ in question.options]
        return " ".join(mark + escape(text) for mark, (_, text) in zip(marks, question.options, strict=True))

    def response_label(self, question: Question, response: str, language: str) -> str:
        letters = response.split(",")
        return ", ".join(letters) if language == "en" else "、".join(letters)
