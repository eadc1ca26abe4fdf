"""What the study commands show, as plain values in the chat's language; bot/views/study_text.py lays
them out for text platforms (bot/application/reply_text.py dispatches to it)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.kinds import InputKind
from bot.domain.mastery import Point
from bot.domain.questions import QuestionType
from bot.domain.readiness import DayForecast
from bot.views.quiz import StatsView


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
    mock_id: int = 0  # what the answer buttons name (bot/application/clicks.py)
    buttons: tuple[tuple[str, str], ...] = ()  # (token, label) per answer button, in display order
    chosen: tuple[str, ...] = ()  # the tokens of the answer given so far
    bank_id: str = ""  # the pictures shown with the stem, as in QuestionView
    images: tuple[str, ...] = ()


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
    mock_id: int = 0
    position: int = 1  # the item shown last (1-based): the sheet's "back to the paper"


@dataclass(frozen=True, slots=True)
class MockConfirmView:
    """Hand-in asked for with items unanswered: which, and how to confirm."""

    language: str
    mock_id: int
    unanswered: tuple[int, ...]  # numbers
    count: int
    remaining: int
    position: int = 1


@dataclass(frozen=True, slots=True)
class MockReviewView:
    """One item of a handed-in mock, opened from its report: the options as the person saw them,
    their answer and the right one with its text."""

    language: str
    mock_id: int
    number: int
    count: int
    qtype: QuestionType
    stem: str
    options: tuple[tuple[str, str], ...]  # (letter, text) as shown in the mock
    right_tokens: tuple[str, ...]  # the right options' letters (none for a typed item)
    given: str  # "" when unanswered
    right: str  # the right answer's label
    explanation: str
    verdict: str | None  # correct / partial / wrong / pending
    reference: str = ""  # a short answer's reference, shown for its self-grade
    key_points: tuple[str, ...] = ()
    wrong: tuple[int, ...] = ()  # all the wrong numbers, for "next wrong"
    # a short answer scored by its key points (bot/domain/key_points.py): covered and missed, the
    # provisional score and the item's points in this mock (0: not scored by them)
    covered: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    points: float = 0.0
    out_of: float = 0.0
    bank_id: str = ""  # the pictures shown with the stem, as in QuestionView
    images: tuple[str, ...] = ()
    question_id: str = ""  # the bank's question (the web app's ☆ on it)


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
    mock_id: int = 0


@dataclass(frozen=True, slots=True)
class NotebookRow:
    number: int
    qtype: QuestionType
    stem: str
    misses: int
    cause: str = ""  # the learner's cause of the mistake (bot/domain/mastery.py CAUSES), "" if none
    question_id: str = ""  # the web app's ☆ on the row


@dataclass(frozen=True, slots=True)
class MistakesView:
    language: str
    groups: tuple[tuple[str, QuestionType, tuple[NotebookRow, ...]], ...]  # tag, type, rows
    size: int
    graduate_after: int
    causes: tuple[tuple[str, int], ...] = ()  # (cause, entries) over the notebook; "" for untagged


@dataclass(frozen=True, slots=True)
class FavouritesView:
    language: str
    rows: tuple[tuple[int, QuestionType, str], ...]  # number, type, stem
    ids: tuple[str, ...] = ()  # each row's question id (the web app's ★ on it)


@dataclass(frozen=True, slots=True)
class ProgressView:
    language: str
    practised: int
    bank_size: int
    by_type: tuple[tuple[QuestionType, int, int], ...]  # type, right, answered
    by_tag: tuple[tuple[str, int, int], ...]  # tag, right, answered (weakest first)
    notebook: int
    due_today: int  # due before tomorrow in the chat's time zone, not counting cards done today
    due_week: int  # the same over today and the six days after it
    streak: int
    mocks: tuple[tuple[str, float, float, bool], ...]  # local date, score, total, passed
    group: bool = False  # a group's weakest tags, not one person's
    summary: StatsView | None = None  # the person's points, rank and streak in this chat
    exam_days: int | None = None  # days to the learner's exam (0: today; None: no exam set)

    @property
    def weak_tags(self) -> tuple[tuple[str, int, int], ...]:
        """The tags answered less well than the best one, weakest first: none when every tag
        stands at the same accuracy (then no tag is the weakest)."""
        if not self.by_tag:
            return ()
        best = max(self.by_tag, key=lambda row: row[1] / row[2])
        # Compared as fractions (right * other total), so 1/3 and 2/6 are the same accuracy.
        return tuple(row for row in self.by_tag if row[1] * best[2] < best[1] * row[2])


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
    tags: tuple[str, ...]  # by their display names
    answered: int
    right: int
    new_mistakes: int
    seconds: int  # from the run's start to its last answer
    finished: bool  # the mode had nothing left (else: stopped)
    detail: str = ""  # a sentence already in the language (review: when the next card is due)
    lead: str = ""  # sentences above it (the question skipped just before: its answer)


@dataclass(frozen=True, slots=True)
class WeakView:
    """`/weak`: the weakest points (tags, or types) with their mastery, and each type's; the
    adapters add a button that starts `/quiz weak`."""

    language: str
    weakest: tuple[Point, ...]
    types: tuple[Point, ...]
    answers: int  # the final answers it rests on


@dataclass(frozen=True, slots=True)
class ReadyView:
    """`/ready`: the paper's forecast today (and on the exam date), or how many more answers it
    needs (`needed` > 0: nothing else is shown)."""

    language: str
    answers: int
    needed: int
    minimum: int
    total: float
    pass_mark: float
    prior: float  # the chance counted for an unseen item
    unseen: int  # items of the bank never answered
    today: DayForecast | None = None
    exam: DayForecast | None = None
    exam_day: str = ""  # the exam date as the chat writes it


StudyView = (
    MockQuestionView
    | MockSheetView
    | MockConfirmView
    | MockReviewView
    | MockReportView
    | MistakesView
    | FavouritesView
    | ProgressView
    | ReportsView
    | RunSummaryView
    | WeakView
    | ReadyView
)
