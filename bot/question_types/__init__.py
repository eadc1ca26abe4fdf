"""Question types, one module each (single, multi, judge, fill, short), and the registry the
core and the bank consult: TYPES maps each QuestionType to its QuestionTypeRules (see
bot/question_types/base.py for the parts a type owns).

A new type: its module here, its member of bot.model.QuestionType, an entry in TYPES.
"""

from __future__ import annotations

from bot.model import QuestionType

from .base import QuestionTypeRules
from .fill import Fill
from .judge import Judge
from .multi import Multi
from .short import Short
from .single import Single

__all__ = ["TYPES", "QuestionTypeRules", "rules", "type_for_word", "type_words"]

TYPES: dict[QuestionType, QuestionTypeRules] = {
    rules.qtype: rules for rules in (Single(), Multi(), Judge(), Fill(), Short())
}


def rules(qtype: QuestionType) -> QuestionTypeRules:
    return TYPES[qtype]


def _fold(word: str) -> str:
    return "".join(word.split()).casefold()


_BY_WORD: dict[str, QuestionType] = {
    _fold(word): qtype for qtype, r in TYPES.items() for word in (qtype.value, *r.words)
}


def type_words() -> dict[str, QuestionType]:
    """Every word that names a type (ids included), folded (no spaces, casefolded)."""
    return dict(_BY_WORD)


def type_for_word(text: str) -> QuestionType | None:
    """The type a word names (单选, 單選題, single, TF ...), or None."""
    return _BY_WORD.get(_fold(text))
