"""Short answer (简答题): one reference text, typed; the learner grades their own answer
against the reference (bot.domain.grading.self_grade), so grading leaves it pending. An item with key
points (得分点) is also scored by the points the answer covers (bot/domain/key_points.py): a
provisional share of the points, shown with the covered and missed points, that counts until
the learner's own grade replaces it."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.domain import key_points
from bot.domain.key_points import KEY_POINTS_SCHEMA, Coverage
from bot.domain.kinds import InputKind
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.verdicts import Verdict
from bot.locales.i18n import bank_text

from .base import Example, QuestionTypeRules, got_phrase

__all__ = ["Short"]


class Short(QuestionTypeRules):
    qtype = QuestionType.SHORT
    answer_seconds = 180.0
    input_kind = InputKind.SELF_GRADED
    words = ("essay", "简答", "简答题", "问答", "问答题", "论述题", "案例分析题", "计算题", "综合题",
             "名词解释", "簡答", "簡答題", "問答題", "論述題")  # fmt: skip
    own_keys: ClassVar[dict[str, dict[str, Any]]] = {"key_points": KEY_POINTS_SCHEMA}
    schema: ClassVar[dict[str, Any]] = {"properties": {"answer": {"$ref": "#/$defs/text"}}}
    reveal_key = "reveal.reference"
    check_texts = ((r"short answer must be one reference text, (?P<got>.*)", "check.short_text"),)
    examples = (
        Example({"stem": "简述过拟合及一种缓解方法。",
                 "answer": "模型在训练集上表现好、在新数据上差；可用正则化缓解。",
                 "key_points": ["训练集好、新数据差", "正则化"]},
                right="训练好测试差，用正则化", wrong="不知道"),
        Example({"stem": "What is a learning rate?", "answer": "The step size of each update."},
                right="the step size", wrong="no idea"),
    )

    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        if answer is None:
            return ["short answer is empty"]
        if not isinstance(answer, str):
            return [f"short answer must be one reference text, {got_phrase(answer, quote=True)}"]
        return [] if answer.strip() else ["short answer is empty"]

    def read(self, question: Question, raw: str) -> str:
        if not raw.strip():
            raise InvalidResponse("empty", "answer.invalid.empty_short")
        return raw.strip()

    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        return Verdict.PENDING

    async def prepare(self, question: Question) -> None:
        if question.key_points:
            await key_points.prepare()

    def grades_by_key_points(self, question: Question) -> bool:
        return bool(question.key_points)

    def coverage(self, question: Question, response: str) -> Coverage | None:
        return key_points.cover(question, response) if question.key_points else None

    def reference(self, question: Question, language: str) -> str:
        return bank_text(language, question.answer[0])
