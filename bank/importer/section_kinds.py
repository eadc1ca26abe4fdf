"""The words a paper's section headers use for a question type (`单选题`, `判断题`, `选择题`…),
and Chinese section numerals (`一`…`十二`): shared by the items' headers (paper.py) and the
answer key's own section headers (answer_key.py), so a key's `二、多选题` finds the paper's.
"""

from __future__ import annotations

import re

from bot.domain.question_types import TYPES
from bot.domain.questions import QuestionType

__all__ = ["KINDS", "NUMERALS", "kind_of", "kind_pattern", "numeral_value"]

# A header names its type with the Chinese words of that type's module (the words the table
# reader and the commands take too); papers are read in simplified characters.
KINDS: tuple[tuple[QuestionType | None, str], ...] = (
    *(
        (
            qtype,
            "|".join(sorted((re.escape(w) for w in rules.words if not w.isascii()), key=len, reverse=True)),
        )
        for qtype, rules in TYPES.items()
    ),
    (None, r"选择题"),  # single or multi: decided per item by its answer
)
NUMERALS = "一二三四五六七八九十"
_DIGITS = {c: i + 1 for i, c in enumerate(NUMERALS[:9])}


def kind_pattern(prefix: str) -> str:
    """An alternation of every type's words, one named group `<prefix><i>` per entry of KINDS."""
    return "|".join(f"(?P<{prefix}{i}>{words})" for i, (_, words) in enumerate(KINDS))


def kind_of(match: re.Match[str], prefixes: str) -> tuple[bool, QuestionType | None]:
    """(whether a type word matched, its type) for the groups made by kind_pattern with one of
    the one-letter `prefixes`; a matched `选择题` is (True, None)."""
    for name, value in match.groupdict().items():
        if value and name[0] in prefixes and name[1:].isdigit():
            return True, KINDS[int(name[1:])][0]
    return False, None


_NUMERAL_RE = re.compile(rf"[{NUMERALS}]+")


def numeral_value(text: str) -> int | None:
    """The first Chinese numeral in `text` as a number (`三` 3, `十二` 12, `二十` 20), or None."""
    match = _NUMERAL_RE.search(text)
    if match is None:
        return None
    word = match.group(0)
    if "十" not in word:
        return _DIGITS[word[0]] if len(word) == 1 else None
    tens, _, ones = word.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        return None
    return (_DIGITS[tens] if tens else 1) * 10 + (_DIGITS[ones] if ones else 0)
