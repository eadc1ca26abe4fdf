"""The custom_ids of the bot's buttons and modal: what each carries, how to build and read them.

They hold everything a click needs (round and choice), so buttons keep working after a restart.
"""

from __future__ import annotations

import re

from bot.domain.kinds import SELF_GRADE_LEVELS

PREFIX = "sb"
ANSWER = "a"  # sb:a:<round>:<token>   single / judge choice
TOGGLE = "t"  # sb:t:<round>:<letter>  multi-choice toggle, or an ordering's next place (or out again)
SUBMIT = "s"  # sb:s:<round>           submit the toggled letters, or the order
UNDO = "u"  # sb:u:<round>             an ordering's last placed option out again
MODAL = "m"  # sb:m:<round>            open the answer modal (fill, short)
GRADE = "g"  # sb:g:<round>:<level>    self-grade a short answer
FORM = "f"  # sb:f:<round>             the answer modal itself
STAR = "st"  # sb:st:<round>           ☆: star the round's question (on a question or its reveal)
MOCK = "mk"  # sb:mk:<mock>:<item>:<act>[:<token>]  a mock exam's button (bot/application/clicks.py)
NEXT = "n"  # sb:n:<round>             下一题 ▶ under a graded practice answer: the clicker's next question
CAUSE = "c"  # sb:c:<round>:<cause>    a mistake's cause under a wrong answer's receipt
WEAK = "wk"  # sb:wk:0                 "practise these" under /weak: the clicker's own weak points
ANSWER_INPUT = "answer"  # the modal's text input

# Deliberately loose: anything with our prefix and kind reaches our handler, which then refuses
# what it cannot read with "closed" instead of letting the click time out.
TEMPLATES = {
    ANSWER: r"sb:a:(?P<round>[^:]*):(?P<arg>.*)",
    TOGGLE: r"sb:t:(?P<round>[^:]*):(?P<arg>.*)",
    SUBMIT: r"sb:s:(?P<round>.*)",
    UNDO: r"sb:u:(?P<round>.*)",
    MODAL: r"sb:m:(?P<round>.*)",
    GRADE: r"sb:g:(?P<round>[^:]*):(?P<arg>.*)",
    STAR: r"sb:st:(?P<round>.*)",
    MOCK: r"sb:mk:(?P<mock>[^:]*):(?P<item>[^:]*):(?P<act>[^:]*)(?::(?P<token>.*))?",
    NEXT: r"sb:n:(?P<round>.*)",
    CAUSE: r"sb:c:(?P<round>[^:]*):(?P<arg>.*)",
    WEAK: r"sb:wk:(?P<round>.*)",
}
FORM_PATTERN = re.compile(r"sb:f:(?P<round>.*)")
MOCK_FORM = "mf"  # sb:mf:<mock>:<item>   the typed-answer modal of a mock item
MOCK_FORM_PATTERN = re.compile(r"sb:mf:(?P<mock>[^:]*):(?P<item>[^:]*)")
SELF_LEVELS = SELF_GRADE_LEVELS
_ROUND = re.compile(r"[1-9][0-9]{0,17}")


def make(kind: str, round_id: int | str, arg: str | None = None) -> str:
    parts = [PREFIX, kind, str(round_id)] + ([arg] if arg is not None else [])
    return ":".join(parts)


def round_id(text: str | None) -> int | None:
    """The round id in a custom_id field, or None when it is not a plain positive number."""
    if text is None or not _ROUND.fullmatch(text):
        return None
    return int(text)


def mock(mock_id: int, item: int, act: str, token: str | None = None) -> str:
    return ":".join([PREFIX, MOCK, str(mock_id), str(item), act] + ([token] if token is not None else []))


def form_round(custom_id: str) -> int | None:
    match = FORM_PATTERN.fullmatch(custom_id)
    return round_id(match["round"]) if match else None


def is_ours(custom_id: str) -> bool:
    """Whether a dynamic button template of ours will handle this custom_id."""
    return any(re.fullmatch(template, custom_id) for template in TEMPLATES.values())
