"""Mastery and weak points: per tag (knowledge point) and per question type, the expected recall
today (the mean of its items' chances, bot/domain/readiness.py: FSRS retrievability for a seen
item, the learner's prior for an unseen one, self-grades for a short answer), and how many of
its items are seen, due and in the mistake notebook.

The weakest points are the tags with the lowest expected recall; `/weak` lists three and
`/quiz weak` drills their items, least likely to be recalled first. A bank without tags has its
question types as its points. A mistake's cause (概念不清 / 粗心 / 没见过 / 记错) is the learner's
own word on why they missed it; CAUSES are the keys its buttons and storage use.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime

from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.readiness import Evidence, item_chance

WEAK_COUNT = 3
# A mistake's cause, by key: concept unclear, careless, never seen, misremembered.
CAUSES = ("concept", "careless", "unseen", "misremembered")


@dataclass(frozen=True, slots=True)
class Point:
    """One tag's (or question type's) mastery."""

    name: str  # the tag, or the question type's value
    is_type: bool
    recall: float  # expected recall today, 0 to 1
    items: int
    seen: int
    due: int
    in_notebook: int
    label: str = ""  # a tag's display name (the bank's `tag_names:`), "" for a type or an unnamed tag


def _point(name: str, is_type: bool, questions: list[Question], seen: Evidence, due: Collection[str],
           notebook: Collection[str], at: datetime) -> Point:  # fmt: skip
    chances = [
        item_chance(q, seen.cards.get(q.id), seen.grades.get(q.id, ()), seen.prior, at, seen.parameters)
        for q in questions
    ]
    return Point(
        name, is_type, sum(chances) / len(chances), len(questions),
        sum(1 for q in questions if q.id in seen.cards or seen.grades.get(q.id)),
        sum(1 for q in questions if q.id in due), sum(1 for q in questions if q.id in notebook),
    )  # fmt: skip


def by_tag(
    bank: Bank, seen: Evidence, due: Collection[str], notebook: Collection[str], at: datetime
) -> list[Point]:
    """Every tag of the bank (lower-cased, as `/quiz TAG` matches), weakest first."""
    tagged: dict[str, list[Question]] = {}
    for question in bank.questions:
        for tag in dict.fromkeys(x.lower() for x in question.tags):
            tagged.setdefault(tag, []).append(question)
    points = [replace(_point(tag, False, qs, seen, due, notebook, at), label=bank.tag_name(tag))
              for tag, qs in tagged.items()]  # fmt: skip
    return sorted(points, key=lambda p: (p.recall, -p.items, p.name))


def by_type(
    bank: Bank, seen: Evidence, due: Collection[str], notebook: Collection[str], at: datetime
) -> list[Point]:
    """Every question type the bank has, in the types' order."""
    out = []
    for qtype in QuestionType:
        questions = [q for q in bank.questions if q.type is qtype]
        if questions:
            out.append(_point(str(qtype), True, questions, seen, due, notebook, at))
    return out


def weakest(bank: Bank, seen: Evidence, due: Collection[str], notebook: Collection[str], at: datetime,
            count: int = WEAK_COUNT) -> list[Point]:  # fmt: skip
    """The `count` weakest tags (the weakest types when the bank has no tags)."""
    tags = by_tag(bank, seen, due, notebook, at)
    if tags:
        return tags[:count]
    return sorted(by_type(bank, seen, due, notebook, at), key=lambda p: p.recall)[:count]


def weak_items(bank: Bank, names: Collection[str], seen: Evidence, at: datetime) -> list[Question]:
    """The items of the weak points `names` (tags, or types for a bank without tags), least
    likely to be recalled first (then in bank order)."""
    wanted = set(names)
    found = [q for q in bank.questions
             if wanted & {x.lower() for x in q.tags} or (not q.tags and str(q.type) in wanted)]  # fmt: skip
    return sorted(found, key=lambda q: (item_chance(q, seen.cards.get(q.id), seen.grades.get(q.id, ()),
                                                    seen.prior, at, seen.parameters), q.number))  # fmt: skip
