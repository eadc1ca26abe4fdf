"""Settling an item's type and normalised answer from a draft: the declared type if any, as that
type's module settles it (bot/domain/question_types), else the item's shape (options and letters, a
judge word, a blank, or free text). A type word no type accepts leaves the item out.
"""

from __future__ import annotations

import re

from bot.domain.question_types import TYPES
from bot.domain.question_types.base import trim_answer
from bot.domain.question_types.choice import picked_options
from bot.domain.question_types.fill import split_alternatives
from bot.domain.questions import QuestionType
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.reading.option_letters import pick_letters
from bot.domain.reading.vocabulary import read_judge

from .base import Draft
from .report import Report, Term

__all__ = ["has_blank", "parse_judge", "parse_letters", "settle", "split_alternatives"]

_T = QuestionType
_BLANK_RE = re.compile(r"_{2,}|＿{2,}|[（(][ \t\u3000]*[)）]")
trim = trim_answer


def has_blank(stem: str) -> bool:
    return bool(_BLANK_RE.search(stem))


def parse_letters(text: str, letters: tuple[str, ...]) -> tuple[str, ...] | None:
    """`A,B,D`, `A、B、D`, `ABD`, `A B D` -> ("A", "B", "D") if all are option letters; read by
    the grader's own reader (bot.domain.reading.option_letters), so a paper and a reply agree."""
    try:
        return pick_letters(text, letters)
    except InvalidResponse:
        return None


def parse_judge(text: str, *, loose: bool) -> bool | None:
    """正确/错误 and the like (bot.domain.reading.vocabulary, shared with grading); loose also admits the
    words that are true/false only where such an answer is expected (T/F, 是/否, Y/N, x)."""
    return read_judge(text, loose=loose)


def _judge(value: bool) -> tuple[str, ...]:
    return ("true",) if value else ("false",)


def _judge_from_options(draft: Draft, picked: tuple[str, ...] | None) -> bool | None:
    """Judge items written as choices: `A.正确 B.错误  答案：A`."""
    if not picked or len(picked) != 1:
        return None
    return parse_judge(dict(draft.options)[picked[0]], loose=False)


def _pick(draft: Draft, answer: str) -> tuple[str, ...] | None:
    """Letters from `A,B,D`-style answers, or the one option whose text is the answer."""
    return picked_options(draft.options, answer)


def _choice(draft: Draft, answer: str) -> tuple[QuestionType, tuple] | None:
    """An item of no declared type with options, by its answer: letters make a choice item
    (one or several), a lone pair of 正确/错误 options a judge item."""
    picked = _pick(draft, answer)
    if picked is None:
        return None
    if len(draft.options) == 2:
        value = _judge_from_options(draft, picked)
        if value is not None:
            return _T.JUDGE, _judge(value)
    return (_T.MULTI if len(picked) > 1 else _T.SINGLE), picked


def settle(draft: Draft, report: Report) -> tuple[QuestionType, tuple[str, ...]] | None:
    """The item's type and answer tuple, or None (with a warning) if it cannot be used.

    A type the source names wins over the item's shape, as that type settles it (its module in
    bot/domain/question_types); a type word the source gives that no type accepts leaves the item out,
    so that an ordering item is never taken for a multi (its order lost)."""
    if draft.type_word is not None:
        report.warn("type", "import.answers.unknown_type", draft.where, draft.number,
                    type=repr(draft.type_word), names=_type_names())
        return None
    if draft.answer is None or not trim(draft.answer):
        report.warn("no-answer", "import.answers.none", draft.where, draft.number)
        return None
    answer = draft.answer.strip()
    hint = draft.type_hint
    if hint is not None:
        settled = TYPES[hint].settle(answer, draft.options)
        if settled.warning:
            kind = "no-answer" if settled.drop else "type"
            report.warn(kind, settled.warning, draft.where, draft.number, answer=repr(answer),
                        letters="".join(letter for letter, _ in draft.options),
                        type=Term(f"import.type.{hint.value}"))
        if settled.qtype is not None:
            return settled.qtype, settled.answer
        return None if settled.drop else _by_shape(draft, answer)
    if draft.options:
        by_choice = _choice(draft, answer)
        if by_choice:
            return by_choice
        letters = "".join(letter for letter, _ in draft.options)
        report.warn("type", "import.answers.not_a_letter", draft.where, draft.number,
                    answer=repr(answer), letters=letters)
    return _by_shape(draft, answer)


def _type_names(types: tuple[QuestionType, ...] = tuple(TYPES)) -> Term:
    """The registry's types by name, for the unknown-type warning: "单选/多选/…" in the reader's
    language (one Term, the rest nested in it)."""
    first = Term(f"import.type.{types[0].value}")
    if len(types) == 1:
        return first
    return Term("import.answers.type_names", (("first", first), ("rest", _type_names(types[1:]))))


def _by_shape(draft: Draft, answer: str) -> tuple[QuestionType, tuple[str, ...]]:
    blank = has_blank(draft.stem)
    value = parse_judge(answer, loose=not (blank and "_" in draft.stem))
    if value is not None:
        return _T.JUDGE, _judge(value)
    if blank:
        return _T.FILL, split_alternatives(answer)
    return _T.SHORT, (answer,)
