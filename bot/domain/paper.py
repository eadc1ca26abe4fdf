"""Drawing a mock-exam paper from a bank: each declared section takes its count of questions of
its type, at random (the injected RNG) when the bank has more, all of them when it has fewer (the
section is then smaller and its full marks with it). Within a section the items come in a random
order and each choice item's options are shuffled (bot/domain/option_shuffle.py), as one person's paper;
`ordered` sits the same paper as the bank prints it: the first items of each type, in bank order,
options as written. A bank that declares no paper gets one from
its counts: every question, by type, at its own points, a minute per point, pass at 60%."""

from __future__ import annotations

import math
import random

from bot.domain.mock_exam_records import MockItem
from bot.domain.option_shuffle import draw_order
from bot.domain.questions import Bank, Paper, PaperSection, QuestionType

_ORDER = tuple(QuestionType)


def paper_of(bank: Bank) -> Paper:
    if bank.paper is not None:
        return bank.paper
    sections = []
    for qtype in _ORDER:
        items = [q for q in bank.questions if q.type is qtype]
        if items:
            points = max(q.points for q in items)
            sections.append(PaperSection(qtype, len(items), points))
    total = sum(s.count * s.points for s in sections)
    return Paper(tuple(sections), max(1, math.ceil(total)), round(total * 0.6, 1))


def draw(
    bank: Bank, paper: Paper, rng: random.Random, *, ordered: bool = False
) -> tuple[tuple[PaperSection, ...], tuple[MockItem, ...]]:
    """The sections as sat (counts cut to what the bank has; empty ones dropped) and the items
    in order: section by section, shuffled (in bank order when `ordered`)."""
    sections: list[PaperSection] = []
    items: list[MockItem] = []
    for section in paper.sections:
        pool = [q for q in bank.questions if q.type is section.type]
        if not pool:
            continue
        if ordered:
            chosen = sorted(pool, key=lambda q: q.number)[: section.count]
        else:
            chosen = rng.sample(pool, min(section.count, len(pool)))  # a random pick, in random order
        index = len(sections)
        sections.append(PaperSection(section.type, len(chosen), section.points))
        items += [MockItem(q.id, index, "" if ordered else draw_order(q, rng)) for q in chosen]
    return tuple(sections), tuple(items)
