"""A mock exam as stored: the paper drawn for one person (its items in order, by section, each
with the order its options are shown in), the clock (wall time: `ends_at` is kept, so a restart
loses nothing), and each item's answer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.domain.questions import PaperSection


class MockState(StrEnum):
    OPEN = "open"  # being sat: answers may change, nothing graded
    GRADING = "grading"  # handed in; short answers wait for the candidate's self-grade
    DONE = "done"  # handed in and fully graded
    QUIT = "quit"  # abandoned: no score


@dataclass(frozen=True, slots=True)
class MockItem:
    question_id: str
    section: int  # index into Mock.sections
    # The bank's option letters in the order shown (bot/domain/option_shuffle.py); "": bank order.
    order: str = ""


@dataclass(frozen=True, slots=True)
class NewMock:
    user_id: int
    chat_id: int
    bank_id: str
    items: tuple[MockItem, ...]
    sections: tuple[PaperSection, ...]
    pass_mark: float
    started_at: datetime
    ends_at: datetime


@dataclass(frozen=True, slots=True)
class Mock:
    id: int
    user_id: int
    chat_id: int
    bank_id: str
    items: tuple[MockItem, ...]
    sections: tuple[PaperSection, ...]
    pass_mark: float
    started_at: datetime
    ends_at: datetime
    position: int  # the item shown last (0-based)
    state: MockState
    submitted_at: datetime | None = None
    score: float | None = None

    @property
    def total(self) -> float:
        return sum(s.count * s.points for s in self.sections)

    def points(self, index: int) -> float:
        return self.sections[self.items[index].section].points


@dataclass(frozen=True, slots=True)
class MockAnswer:
    item: int
    response: str | None = None
    flagged: bool = False
    verdict: str | None = None  # after hand-in: correct / partial / wrong / pending (short)
    fraction: float | None = None
