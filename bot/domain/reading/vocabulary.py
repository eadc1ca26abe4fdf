"""The words that mean true and false in an answer, shared by grading (a learner's reply) and
the bank importer (a paper's answer line), so the two can't disagree."""

from __future__ import annotations

import unicodedata

from bot.domain.reading.folding import drop_spaces

__all__ = ["FALSE_WORDS", "STRICT_FALSE", "STRICT_TRUE", "TRUE_WORDS", "judge_token", "read_judge"]

# Unambiguous anywhere: a paper's options "A.正确 B.错误" are a judge item written as a choice.
STRICT_TRUE = frozenset({"对", "对的", "正确", "正确的", "√", "✓", "✔", "✅", "☑"})
STRICT_FALSE = frozenset({"错", "错的", "错误", "错误的", "不对", "不正确", "×", "✗", "✘", "✕", "❌", "❎"})
# Words that mean true/false only where a true/false answer is expected (a judge question's
# reply, a judge section's answer line): elsewhere "是", "y" or "x" is just text.
_LOOSE_TRUE = frozenset({"是", "是的", "t", "true", "y", "yes", "r", "right", "correct"})
# "x" is what people type for ×.
_LOOSE_FALSE = frozenset({"否", "不是", "f", "false", "n", "no", "x", "w", "wrong", "incorrect"})
TRUE_WORDS = STRICT_TRUE | _LOOSE_TRUE
FALSE_WORDS = STRICT_FALSE | _LOOSE_FALSE

_VARIATION_SELECTORS = dict.fromkeys(map(ord, "\ufe0e\ufe0f"))


def judge_token(text: str) -> str:
    """text folded for lookup: NFKC, casefold, no spaces or emoji variation selectors, and no
    punctuation (brackets, quotes, 。！) around it."""
    token = drop_spaces(unicodedata.normalize("NFKC", text).casefold()).translate(_VARIATION_SELECTORS)
    start, end = 0, len(token)
    while start < end and unicodedata.category(token[start])[0] == "P":
        start += 1
    while end > start and unicodedata.category(token[end - 1])[0] == "P":
        end -= 1
    return token[start:end]


def read_judge(text: str, *, loose: bool = True) -> bool | None:
    """True or False for a true/false word, else None; loose admits the words (是, t, yes, x...)
    that mean true/false only where such an answer is expected."""
    token = judge_token(text)
    if token in STRICT_TRUE or (loose and token in _LOOSE_TRUE):
        return True
    if token in STRICT_FALSE or (loose and token in _LOOSE_FALSE):
        return False
    return None
