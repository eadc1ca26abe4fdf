"""Doubtful items: a bank item whose key or explanation its editors doubt carries a `doubt`
note (docs/bank-format.md), and the learner reads it wherever the explanation is shown — the
practice receipt, a round's reveal, the mock review, the memorise card.

The note rides with the explanation text, so every renderer that shows an explanation shows
the note without knowing about it.
"""

from __future__ import annotations

from bot.domain.questions import Question
from bot.locales.i18n import bank_text, t

__all__ = ["doubt_note", "explanation_text"]


def doubt_note(language: str, question: Question) -> str:
    """The catalog sentence with the item's doubt note ("此题答案存疑：…"), or "" for an
    item nobody doubts."""
    if not question.doubt:
        return ""
    return t(language, "reveal.doubt", note=bank_text(language, question.doubt))


def explanation_text(language: str, question: Question) -> str:
    """The explanation as a chat in `language` reads it, followed by the doubt note (if any)
    on a line of its own."""
    parts = [bank_text(language, question.explanation), doubt_note(language, question)]
    return "\n".join(part for part in parts if part)
