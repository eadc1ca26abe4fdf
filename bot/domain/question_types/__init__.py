"""Question types, one module each named after the type's id (single.py, judge.py, ...), and the
registry the core and the bank consult: TYPES maps each QuestionType to its QuestionTypeRules (see
bot/domain/question_types/base.py for the parts a type owns). Nothing outside this package branches on
a type: it asks TYPES[qtype].

A new type: its module here, named after its id (`ordering` -> ordering.py) and holding its
QuestionTypeRules subclass, and its member of bot.domain.questions.QuestionType — the registry's list of
ids, in the order types are listed everywhere. TYPES finds each id's module by that name.

Part of the domain: imports the standard library, `bot.locales` and the domain only.
"""

from __future__ import annotations

import importlib

from bot.domain.questions import QuestionType

from .base import QuestionTypeRules

__all__ = ["TYPES", "QuestionTypeRules", "rules", "type_for_word", "type_words"]


def _rules_in(qtype: QuestionType) -> QuestionTypeRules:
    """The rules of qtype: the QuestionTypeRules subclass for it in the module named after it."""
    module = importlib.import_module(f".{qtype.value}", __package__)
    (found,) = (
        value for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, QuestionTypeRules)
        and value.__dict__.get("qtype") is qtype
    )  # fmt: skip
    return found()


TYPES: dict[QuestionType, QuestionTypeRules] = {qtype: _rules_in(qtype) for qtype in QuestionType}


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
