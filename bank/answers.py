"""The answer rules of each question type (single, multi, judge, fill, short) and the reading of
a multi answer written as "ABD", "A,B,D" or a list."""

from __future__ import annotations

import re
from typing import Any

from bot.invalid_response import InvalidResponse
from bot.model import QuestionType
from bot.option_letters import LETTERS, split_letters
from bot.vocabulary import read_judge

__all__ = ["LETTERS", "answer_problems", "got_phrase", "multi_letters"]

# A bank writes a multi answer's letters in capitals, together or apart: ABD, A,B,D, A、B、D.
_CAPITALS_APART = re.compile(r"[A-Z]+(?:[\s,，、]+[A-Z]+)*")


def got_phrase(value: Any, quote: bool = False) -> str:
    """'got the boolean true', plus a hint to quote it where text was expected."""
    if value is None:
        return "got nothing (an empty value)"
    if isinstance(value, str):
        return f"got the string {value!r}"
    if not isinstance(value, bool | int | float):
        return "got a list" if isinstance(value, list) else "got a mapping"
    text = str(value).lower() if isinstance(value, bool) else str(value)
    kind = "boolean" if isinstance(value, bool) else "number"
    hint = f'; quote it ("{text}") if it is meant as text' if quote else ""
    return f"got the {kind} {text}{hint}"


def _is_letter(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 1 and value in LETTERS


def answer_problems(kind: QuestionType, answer: Any, letters: list[str] | None) -> list[str]:
    """What is wrong with `answer` for an item of type `kind` whose option letters are given."""
    if answer is None:
        return [f"{kind} answer is empty"]
    among = f"the options {', '.join(letters)}" if letters else "the options"
    if kind is QuestionType.JUDGE:
        if isinstance(answer, bool):
            return []
        meant = read_judge(answer) if isinstance(answer, str) else None
        hint = "" if meant is None else f"; write {str(meant).lower()}"
        return [f"judge answer must be true or false, {got_phrase(answer)}{hint}"]
    if kind is QuestionType.SINGLE:
        if not isinstance(answer, str):
            return [f"single answer must be one option letter, {got_phrase(answer, quote=True)}"]
        if not _is_letter(answer):
            return [f"single answer must be one option letter A–H, got {answer!r}"]
        return [f"answer {answer} is not among {among}"] if letters and answer not in letters else []
    if kind is QuestionType.MULTI:
        picked = multi_letters(answer)
        if picked is None:
            return [f"multi answer must be a list of option letters, {got_phrase(answer)}"]
        if bad := [x for x in picked if not _is_letter(x)]:
            return [f"multi answer must be option letters A–H, got {', '.join(map(repr, bad))}"]
        problems, distinct = [], list(dict.fromkeys(picked))
        if repeated := [x for x in distinct if picked.count(x) > 1]:
            problems.append(f"multi answer repeats {', '.join(repeated)}")
        if len(distinct) < 2:
            problems.append(
                f"multi answer needs at least 2 different letters, got {len(distinct)} "
                f"({', '.join(distinct)}); use type single for one correct option"
            )
        if letters and (missing := [x for x in distinct if x not in letters]):
            problems.append(f"answer {', '.join(missing)} not among {among}")
        return problems
    if kind is QuestionType.FILL:
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
    if not isinstance(answer, str):
        return [f"short answer must be one reference text, {got_phrase(answer, quote=True)}"]
    return [] if answer.strip() else ["short answer is empty"]


def multi_letters(answer: Any) -> list[Any] | None:
    """A multi answer as a list: "ABD", "A,B,D", "A、B、D" and [A, B, D] all give [A, B, D]; read
    by the grader's letter reader (bot.option_letters), held to capitals and plain separators."""
    if isinstance(answer, str):
        if not _CAPITALS_APART.fullmatch(answer.strip()):
            return [answer]
        try:
            return split_letters(answer)
        except InvalidResponse:
            return [answer]
    return list(answer) if isinstance(answer, list) else None
