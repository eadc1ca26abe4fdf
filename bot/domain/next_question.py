"""Choosing the next question for a chat: the least-asked matching item, ties broken by the RNG.

A chat sees every matching question once before any repeats, without keeping a cursor: the
store counts how often each question was asked in the chat, and we pick among the minimum.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from bot.domain.questions import Bank, Question, QuestionType
from bot.locales.i18n import bank_text, simplified


def typed_tag(bank: Bank, typed: str) -> str:
    """The tag a learner means: a slug, or a display name as the bank has it or as a chat shows
    it (traditional characters, and the Taiwan words OpenCC gives a zh-TW chat: 分散式訓練 for
    分布式训练). Anything else comes back folded, so a refusal names it as typed."""
    key = bank.tag_key(simplified(typed))
    if key in bank.tags:
        return key
    folded = typed.strip().casefold()
    for slug, name in bank.tag_names:
        if folded == bank_text("zh-TW", name).casefold():
            return slug
    return key


def matching(
    bank: Bank,
    *,
    tag: str | None = None,
    qtype: QuestionType | None = None,
    types: Iterable[QuestionType] | None = None,
) -> list[Question]:
    allowed = set(types) if types is not None else None
    # A slug or the tag's display name, as the bank or a zh-TW chat writes it.
    tag_key = typed_tag(bank, tag) if tag else None
    out = []
    for question in bank.questions:
        if qtype is not None and question.type is not qtype:
            continue
        if allowed is not None and question.type not in allowed:
            continue
        if tag_key and tag_key not in question.tags:
            continue
        out.append(question)
    return out


def choose_question(
    candidates: list[Question], asked: Mapping[str, int], rng: random.Random
) -> Question | None:
    if not candidates:
        return None
    fewest = min(asked.get(q.id, 0) for q in candidates)
    pool = [q for q in candidates if asked.get(q.id, 0) == fewest]
    return pool[rng.randrange(len(pool))]
