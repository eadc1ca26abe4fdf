"""Inline-button payloads: short, versioned strings (≤ 64 bytes) built and strictly parsed here.

Anything that does not parse exactly — a wrong version, a stray character, a round id with a
leading zero — is refused (`parse` returns None), so a tampered payload never reaches the core.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64
LANGUAGE_CODES = {"zh": "zh-CN", "tw": "zh-TW", "en": "en"}

_ROUND = r"([1-9][0-9]{0,14})"
_TOKEN = r"([A-Z]|true|false)"
_PATTERNS = {
    "a1": re.compile(rf"a1:{_ROUND}:{_TOKEN}"),
    "t1": re.compile(rf"t1:{_ROUND}:([A-Z])"),
    "s1": re.compile(rf"s1:{_ROUND}"),
    "u1": re.compile(rf"u1:{_ROUND}"),  # an ordering's last placed option out again
    "g1": re.compile(rf"g1:{_ROUND}:(full|half|zero)"),
    "f1": re.compile(rf"f1:{_ROUND}"),
    "n1": re.compile(rf"n1:{_ROUND}"),
    # a mistake's cause under a wrong answer's receipt (bot/domain/mastery.py CAUSES)
    "c1": re.compile(rf"c1:{_ROUND}:(concept|careless|unseen|misremembered)"),
    # "practise these" under /weak: names nothing; the clicker's own weak points
    "w1": re.compile(r"w1"),
    "l1": re.compile(rf"l1:({'|'.join(LANGUAGE_CODES)})"),
    # a mock exam's button: m1:<mock>:<item>:<act>[:<token>] (bot/clicks.MockAct)
    "m1": re.compile(rf"m1:{_ROUND}:([1-9][0-9]{{0,3}}):([pnbsghcr])(?::{_TOKEN})?"),
}


@dataclass(frozen=True, slots=True)
class AnswerChoice:
    """A single-choice or true/false button: answer `token`."""

    round_id: int
    token: str


@dataclass(frozen=True, slots=True)
class ToggleOption:
    """A multiple-choice option or an ordering's option: add `token` to the clicker's selection
    (at the end: an ordering's next place), or take it out again."""

    round_id: int
    token: str


@dataclass(frozen=True, slots=True)
class SubmitSelection:
    round_id: int


@dataclass(frozen=True, slots=True)
class UndoSelection:
    """撤销 under an ordering: the last option placed comes out again."""

    round_id: int


@dataclass(frozen=True, slots=True)
class SelfGradeLevel:
    round_id: int
    level: str  # full | half | zero


@dataclass(frozen=True, slots=True)
class Favourite:
    """The ☆ under a question or its reveal: star the round's question for the clicker."""

    round_id: int


@dataclass(frozen=True, slots=True)
class NextQuestion:
    """下一题 ▶ under a graded practice answer: the clicker's next practice question."""

    round_id: int


@dataclass(frozen=True, slots=True)
class MistakeCause:
    """A cause button under a wrong answer's receipt: the clicker's cause of that mistake."""

    round_id: int
    cause: str


@dataclass(frozen=True, slots=True)
class WeakPractice:
    """"Practise these" under /weak."""


@dataclass(frozen=True, slots=True)
class ChooseLanguage:
    language: str  # zh-CN | zh-TW | en


@dataclass(frozen=True, slots=True)
class MockButton:
    """A button under a mock item, its sheet, hand-in prompt or report."""

    mock_id: int
    item: int
    act: str  # a bot.application.clicks.MockAct value
    token: str | None


Action = (
    AnswerChoice | ToggleOption | SubmitSelection | UndoSelection | SelfGradeLevel | Favourite | NextQuestion
    | ChooseLanguage | MockButton | MistakeCause | WeakPractice
)


def answer(round_id: int, token: str) -> str:
    return _checked(f"a1:{round_id}:{token}")


def toggle(round_id: int, token: str) -> str:
    return _checked(f"t1:{round_id}:{token}")


def submit(round_id: int) -> str:
    return _checked(f"s1:{round_id}")


def undo(round_id: int) -> str:
    return _checked(f"u1:{round_id}")


def self_grade(round_id: int, level: str) -> str:
    return _checked(f"g1:{round_id}:{level}")


def favourite(round_id: int) -> str:
    return _checked(f"f1:{round_id}")


def next_question(round_id: int) -> str:
    return _checked(f"n1:{round_id}")


def cause(round_id: int, cause: str) -> str:
    return _checked(f"c1:{round_id}:{cause}")


def weak() -> str:
    return _checked("w1")


def language(code: str) -> str:
    return _checked(f"l1:{code}")


def mock(mock_id: int, item: int, act: str, token: str | None = None) -> str:
    return _checked(f"m1:{mock_id}:{item}:{act}" + (f":{token}" if token is not None else ""))


def _checked(data: str) -> str:
    if parse(data) is None:
        raise ValueError(f"not a valid button payload: {data!r}")
    return data


def parse(data: object) -> Action | None:
    """The action a payload asks for, or None for anything not built by this module."""
    if not isinstance(data, str) or not 0 < len(data.encode("utf-8", "replace")) <= MAX_BYTES:
        return None
    kind = data[:2]
    pattern = _PATTERNS.get(kind)
    match = pattern.fullmatch(data) if pattern is not None else None
    if match is None:
        return None
    if kind == "l1":
        return ChooseLanguage(LANGUAGE_CODES[match.group(1)])
    if kind == "m1":
        return MockButton(int(match.group(1)), int(match.group(2)), match.group(3), match.group(4))
    if kind == "w1":
        return WeakPractice()
    round_id = int(match.group(1))
    if kind == "a1":
        return AnswerChoice(round_id, match.group(2))
    if kind == "t1":
        return ToggleOption(round_id, match.group(2))
    if kind == "s1":
        return SubmitSelection(round_id)
    if kind == "u1":
        return UndoSelection(round_id)
    if kind == "f1":
        return Favourite(round_id)
    if kind == "n1":
        return NextQuestion(round_id)
    if kind == "c1":
        return MistakeCause(round_id, match.group(2))
    return SelfGradeLevel(round_id, match.group(2))
