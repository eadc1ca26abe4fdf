"""What the study tools keep per person and question: review cards, notebook entries, and the
answers they are fed from. Plain frozen records; times are timezone-aware (UTC in storage)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Outcome(StrEnum):
    """What an answer says about knowing the question."""

    RIGHT = "right"
    PARTLY = "partly"
    WRONG = "wrong"


@dataclass(frozen=True, slots=True)
class StudyAnswer:
    """One committed, final answer as the study tools see it."""

    user_id: int
    bank_id: str
    question_id: str
    outcome: Outcome
    answered_at: datetime
    seconds: float | None = None  # time taken, when it means something (practice, mock)


@dataclass(frozen=True, slots=True)
class Card:
    """FSRS memory state of one (person, bank, question)."""

    user_id: int
    bank_id: str
    question_id: str
    state: int  # fsrs.State: 1 learning, 2 review, 3 relearning
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reviews: int = 0
    lapses: int = 0


@dataclass(frozen=True, slots=True)
class Mistake:
    """A question in a person's mistake notebook (错题本): missed `misses` times; `right_streak`
    right answers since the last miss; `active` while it stays in the notebook."""

    user_id: int
    bank_id: str
    question_id: str
    misses: int
    right_streak: int
    last_missed: datetime
    active: bool = True


@dataclass(frozen=True, slots=True)
class Report:
    """An error report (纠错) on a question: the bank version it was read in, and the text."""

    id: int
    user_id: int
    chat_id: int
    bank_id: str
    bank_version: str
    question_id: str
    text: str
    created_at: datetime
    state: str = "open"  # open / resolved / dismissed
    note: str = ""
    reporter: str = ""  # the reporter's display name, when read back
    question_hash: str | None = None  # the reported item's own content hash then (None: older reports)
    message_ref: str | None = None  # the reporter's message, which the resolution answers (None: none)


@dataclass(frozen=True, slots=True)
class Reminder:
    """A person's daily review reminder: posted in their private chat at a local time."""

    user_id: int
    chat_id: int
    at_time: str  # HH:MM
    timezone: str


@dataclass(frozen=True, slots=True)
class PracticeRun:
    """A person's practice run in one chat (the drilling loop): what "next" asks from. `mode`
    is sequential, random, mistakes, favourites or review; `qtype` and `tags` narrow it. One run
    per person and chat is open (`ended_at` None) at a time."""

    id: int
    user_id: int
    chat_id: int
    bank_id: str
    mode: str
    qtype: str | None
    tags: tuple[str, ...]
    started_at: datetime
    ended_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class RunTally:
    """What a run's rounds hold of its person's answers: how many, how many right, the questions
    that went wrong while they were not in the notebook, and when the first and last came."""

    answered: int
    right: int
    new_mistakes: int
    first_at: datetime | None
    last_at: datetime | None


@dataclass(frozen=True, slots=True)
class LearnerMemory:
    """A learner's own memory model (bot/application/study/memory_fit.py): the retention they want their
    reviews scheduled for, and FSRS parameters fitted on their own review history (None: FSRS's
    defaults, before their history is large enough or when no optimizer is installed)."""

    user_id: int
    desired_retention: float = 0.9
    parameters: tuple[float, ...] | None = None
    fitted_reviews: int = 0  # how many of their answers the parameters were fitted on
    fitted_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ItemAnswer:
    """One graded answer to a bank item, from any mode (a daily, a contest, practice or review,
    a mock exam), as the question statistics read it (bot/domain/item_statistics.py): the response in
    the bank's letters and its grade."""

    user_id: int
    question_id: str
    response: str
    verdict: str  # correct / partial / wrong (a pending self-grade is not read)
    fraction: float
    answered_at: datetime
    source: str  # the round's kind (daily, contest, practice) or "mock"
