"""Settling an item's type and normalised answer from a draft: the declared type if any, else
the item's shape (options and letters, a judge word, a blank, or free text).
"""

from __future__ import annotations

import re

from bot.invalid_response import InvalidResponse
from bot.model import QuestionType
from bot.option_letters import pick_letters
from bot.vocabulary import read_judge

from .base import Draft
from .report import Report, Term

__all__ = ["has_blank", "parse_judge", "parse_letters", "settle", "split_alternatives"]

_T = QuestionType
_BLANK_RE = re.compile(r"_{2,}|＿{2,}|[（(][ \t\u3000]*[)）]")
_TRIM = " \t\u3000\n。.；;，,"


def trim(text: str) -> str:
    text = text.strip(_TRIM)
    while len(text) >= 2 and text[0] in "（(【[" and text[-1] in "）)】]":
        text = text[1:-1].strip(_TRIM)
    return text


def has_blank(stem: str) -> bool:
    return bool(_BLANK_RE.search(stem))


def parse_letters(text: str, letters: tuple[str, ...]) -> tuple[str, ...] | None:
    """`A,B,D`, `A、B、D`, `ABD`, `A B D` -> ("A", "B", "D") if all are option letters; read by
    the grader's own reader (bot.option_letters), so a paper and a reply agree."""
    try:
        return pick_letters(text, letters)
    except InvalidResponse:
        return None


def parse_judge(text: str, *, loose: bool) -> bool | None:
    """正确/错误 and the like (bot.vocabulary, shared with grading); loose also admits the
    words that are true/false only where such an answer is expected (T/F, 是/否, Y/N, x)."""
    return read_judge(text, loose=loose)


def split_alternatives(text: str) -> tuple[str, ...]:
    """Fill answers: alternatives joined by `或` are each accepted."""
    seen: dict[str, None] = {}
    for part in trim(text).split("或"):
        part = trim(part)
        if part:
            seen.setdefault(part, None)
    return tuple(seen)


def _judge(value: bool) -> tuple[str, ...]:
    return ("true",) if value else ("false",)


def _judge_from_options(draft: Draft, picked: tuple[str, ...] | None) -> bool | None:
    """Judge items written as choices: `A.正确 B.错误  答案：A`."""
    if not picked or len(picked) != 1:
        return None
    return parse_judge(dict(draft.options)[picked[0]], loose=False)


def _pick(draft: Draft, answer: str) -> tuple[str, ...] | None:
    """Letters from `A,B,D`-style answers, or the one option whose text is the answer."""
    picked = parse_letters(answer, tuple(letter for letter, _ in draft.options))
    if picked is None:
        by_text = [letter for letter, text in draft.options if trim(text) == trim(answer)]
        picked = tuple(by_text) if len(by_text) == 1 else None
    return picked


def _choice(draft: Draft, answer: str, report: Report) -> tuple[QuestionType, tuple] | None:
    picked = _pick(draft, answer)
    if picked is None:
        return None
    if len(draft.options) == 2 and draft.type_hint is None:
        value = _judge_from_options(draft, picked)
        if value is not None:
            return _T.JUDGE, _judge(value)
    kind = _T.MULTI if len(picked) > 1 else _T.SINGLE
    if draft.type_hint is _T.SINGLE and kind is _T.MULTI:
        report.warn("type", "import.answers.single_several", draft.where, draft.number, answer=repr(answer))
    if draft.type_hint is _T.MULTI and kind is _T.SINGLE:
        report.warn("type", "import.answers.multi_one", draft.where, draft.number, answer=repr(answer))
    return kind, picked


def settle(draft: Draft, report: Report) -> tuple[QuestionType, tuple[str, ...]] | None:
    """The item's type and answer tuple, or None (with a warning) if it cannot be used."""
    if draft.answer is None or not trim(draft.answer):
        report.warn("no-answer", "import.answers.none", draft.where, draft.number)
        return None
    answer = draft.answer.strip()
    hint = draft.type_hint
    if hint is _T.JUDGE:
        value = parse_judge(answer, loose=True)
        if value is None and draft.options:
            value = _judge_from_options(draft, _pick(draft, answer))
        if value is not None:
            return _T.JUDGE, _judge(value)
        report.warn("type", "import.answers.judge_not", draft.where, draft.number, answer=repr(answer))
    elif hint is _T.FILL:
        return _T.FILL, split_alternatives(answer)
    elif hint is _T.SHORT:
        return _T.SHORT, (answer,)
    elif draft.options:
        settled = _choice(draft, answer, report)
        if settled:
            return settled
        letters = "".join(letter for letter, _ in draft.options)
        if hint is not None:
            report.warn("no-answer", "import.answers.not_an_option", draft.where, draft.number,
                        answer=repr(answer), letters=letters)
            return None
        report.warn("type", "import.answers.not_a_letter", draft.where, draft.number,
                    answer=repr(answer), letters=letters)
    elif hint is not None:
        report.warn("type", "import.answers.no_options", draft.where, draft.number,
                    type=Term(f"import.type.{hint.value}"))
    return _by_shape(draft, answer)


def _by_shape(draft: Draft, answer: str) -> tuple[QuestionType, tuple[str, ...]]:
    blank = has_blank(draft.stem)
    value = parse_judge(answer, loose=not (blank and "_" in draft.stem))
    if value is not None:
        return _T.JUDGE, _judge(value)
    if blank:
        return _T.FILL, split_alternatives(answer)
    return _T.SHORT, (answer,)
