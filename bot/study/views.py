"""What the study commands show, as plain values in the chat's language; bot/study/text.py lays
them out for text platforms (bot/reply_text.py dispatches to it)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.kinds import InputKind
from bot.messages import StatsView
from bot.model import QuestionType


@dataclass(frozen=True, slots=True)
class MockIntro:
    """The paper, shown when a mock starts or resumes."""

    title: str
    sections: tuple[tuple[QuestionType, int, float], ...]  # type, count, points each
    total: float
    minutes: int
    pass_mark: float
    resumed: bool


@dataclass(frozen=True, slots=True)
class MockQuestionView:
    language: str
    number: int  # 1-based on the paper
    count: int
    qtype: QuestionType
    input_kind: InputKind
    points: float
    stem: str
    options: tuple[tuple[str, str], ...]
    response: str | None  # the answer given so far, as shown
    flagged: bool
    remaining: int  # seconds left
    intro: MockIntro | None = None
    saved: int | None = None  # the number whose answer was just kept


@dataclass(frozen=True, slots=True)
class SheetRow:
    qtype: QuestionType
    items: tuple[tuple[int, bool, bool], ...]  # number, answered, flagged


@dataclass(frozen=True, slots=True)
class MockSheetView:
    language: str
    rows: tuple[SheetRow, ...]
    answered: int
    count: int
    remaining: int


@dataclass(frozen=True, slots=True)
class WrongItem:
    number: int
    stem: str
    given: str  # "" when unanswered
    right: str
    explanation: str


@dataclass(frozen=True, slots=True)
class PendingShort:
    number: int
    stem: str
    response: str
    reference: str
    key_points: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MockReportView:
    language: str
    score: float
    total: float
    pass_mark: float
    passed: bool | None  # None while short answers wait for a self-grade
    sections: tuple[tuple[QuestionType, float, float], ...]  # type, score, full marks
    used_seconds: int
    wrong: tuple[WrongItem, ...]
    pending: tuple[PendingShort, ...]
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class NotebookRow:
    number: int
    qtype: QuestionType
    stem: str
    misses: int


@dataclass(frozen=True, slots=True)
class MistakesView:
    language: str
    groups: tuple[tuple[str, QuestionType, tuple[NotebookRow, ...]], ...]  # tag, type, rows
    size: int
    graduate_after: int


@dataclass(frozen=True, slots=True)
class FavouritesView:
    language: str
    rows: tuple[tuple[int, QuestionType, str], ...]  # number, type, stem


@dataclass(frozen=True, slots=True)
class ProgressView:
    language: str
    practised: int
    bank_size: int
    by_type: tuple[tuple[QuestionType, int, int], ...]  # type, right, answered
    by_tag: tuple[tuple[str, int, int], ...]  # tag, right, answered (weakest first)
    notebook: int
    due_today: int
    due_week: int
    streak: int
    mocks: tuple[tuple[str, float, float, bool], ...]  # date, score, total, passed
    group: bool = False  # a group's weakest tags, not one person's
    summary: StatsView | None = None  # the person's points, rank and streak in this chat


@dataclass(frozen=True, slots=True)
class ReportRow:
    id: int
    question_number: int
    question_id: str
    reporter: str
    text: str
    created: str


@dataclass(frozen=True, slots=True)
class ReportsView:
    language: str
    rows: tuple[ReportRow, ...]


@dataclass(frozen=True, slots=True)
class RunSummaryView:
    """The end of a practice run (`/quiz stop`, or its mode had nothing left): one screen."""

    language: str
    mode: str  # sequential | random | mistakes | favourites | review
    qtype: str | None
    tags: tuple[str, ...]
    answered: int
    right: int
    new_mistakes: int
    seconds: int  # from the run's start to its last answer
    finished: bool  # the mode had nothing left (else: stopped)
    detail: str = ""  # a sentence already in the language (review: when the next card is due)


StudyView = (
    MockQuestionView
    | MockSheetView
    | MockReportView
    | MistakesView
    | FavouritesView
    | ProgressView
    | ReportsView
    | RunSummaryView
)
