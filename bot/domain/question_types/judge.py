"""True/false (判断题): no options in the bank, a boolean answer; answered with two buttons or a
true/false word (bot.domain.reading.vocabulary, the list the importer reads answer lines with)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from bot.domain.kinds import InputKind, OptionCount, OptionView
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.invalid_response import InvalidResponse, quoted
from bot.domain.reading.vocabulary import STRICT_FALSE, STRICT_TRUE, read_judge
from bot.domain.verdicts import Verdict
from bot.locales.i18n import t

from .base import Example, QuestionTypeRules, Settled, got_phrase
from .choice import picked_options

__all__ = ["Judge"]

_TOKENS = ("true", "false")
# An answer key writes a judge answer as an unambiguous true/false word (bot.domain.reading.vocabulary, the
# list grading reads) or as T/F, TRUE/FALSE.
_KEY_WORDS = sorted(STRICT_TRUE | STRICT_FALSE | {"T", "F", "TRUE", "FALSE", "True", "False"},
                    key=lambda word: (-len(word), word))  # fmt: skip


class Judge(QuestionTypeRules):
    qtype = QuestionType.JUDGE
    answer_seconds = 20.0
    input_kind = InputKind.TRUE_FALSE
    words = ("truefalse", "true/false", "tf", "判断", "判断题", "是非题", "对错题",
             "判斷", "判斷題", "是非題", "對錯題")  # fmt: skip
    schema: ClassVar[dict[str, Any]] = {"properties": {"answer": {"type": "boolean"}}}
    key_pattern: ClassVar[str | None] = "|".join(map(re.escape, _KEY_WORDS))
    in_contests = True
    one_press = True
    check_texts = (
        (r"judge answer must be true or false, (?P<got>.*); write (?P<meant>true|false)", "check.judge_hint"),
        (r"judge answer must be true or false, (?P<got>.*)", "check.judge"),
    )
    examples = (
        Example({"stem": "ReLU 是一种激活函数。", "answer": True}, right="对", wrong="错"),
        Example({"stem": "Adam is a loss function.", "answer": False}, right="false", wrong="正确"),
    )

    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        if answer is None:
            return ["judge answer is empty"]
        if isinstance(answer, bool):
            return []
        meant = read_judge(answer) if isinstance(answer, str) else None
        hint = "" if meant is None else f"; write {str(meant).lower()}"
        return [f"judge answer must be true or false, {got_phrase(answer)}{hint}"]

    def bank_answer(self, answer: Any) -> tuple[str, ...]:
        return ("true",) if answer else ("false",)

    def yaml_answer(self, question: Question) -> Any:
        return question.answer == ("true",)

    def settle(self, answer: str, options: tuple[tuple[str, str], ...]) -> Settled:
        # A true/false word (loosely: T/F, 是/否 count here), or a judge written as choices:
        # `A.正确 B.错误  答案：A`.
        value = read_judge(answer, loose=True)
        if value is None and options:
            picked = picked_options(options, answer)
            if picked and len(picked) == 1:
                value = read_judge(dict(options)[picked[0]])
        if value is None:
            return Settled(None, warning="import.answers.judge_not")
        return Settled(self.qtype, ("true",) if value else ("false",))

    def table_answer(self, question: Question) -> str:
        return "TRUE" if question.answer == ("true",) else "FALSE"

    def gift_body(self, question: Question, escape: Callable[[str], str]) -> str:
        return self.table_answer(question)

    def read(self, question: Question, raw: str) -> str:
        if not raw.strip():
            raise InvalidResponse("empty", "answer.invalid.empty_judge")
        value = read_judge(raw)
        if value is None:
            raise InvalidResponse("not_judge", text=quoted(raw))
        return "true" if value else "false"

    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        return Verdict.CORRECT if (response,) == question.answer else Verdict.WRONG

    def option_views(self, question: Question, language: str) -> tuple[OptionView, ...]:
        return tuple(OptionView(token, t(language, f"judge.{token}"), "") for token in _TOKENS)

    def correct_tokens(self, question: Question) -> tuple[str, ...]:
        return question.answer

    def response_label(self, question: Question, response: str, language: str) -> str:
        return t(language, f"judge.{response}") if response in _TOKENS else response

    def correct_label(self, question: Question, language: str) -> str:
        return self.response_label(question, question.answer[0], language)

    def tally(
        self, question: Question, answers: Iterable[tuple[str, str]], language: str
    ) -> tuple[OptionCount, ...]:
        return self._option_tally(question, (response for response, _ in answers), language)
