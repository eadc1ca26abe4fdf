"""What the study tools need from storage. The SQLite implementation is
adapters/storage/study_store.py; the contract tests run against it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.domain.mock_exam_records import Mock, MockAnswer, MockState, NewMock
from bot.domain.study_records import (
    Card,
    ItemAnswer,
    LearnerMemory,
    Mistake,
    PracticeRun,
    Reminder,
    Report,
    RunTally,
    StudyAnswer,
)

Key = tuple[int, str, str]  # (user id, bank id, question id)


class StudyStore(Protocol):
    async def unstudied(self, limit: int) -> list[tuple[int, StudyAnswer]]:
        """Committed answers whose grade is final and that no card has seen yet, oldest first,
        with their answer ids."""
        ...

    async def cards(self, keys: Sequence[Key]) -> dict[Key, Card]: ...
    async def mistakes(self, keys: Sequence[Key]) -> dict[Key, Mistake]: ...

    async def save_study(
        self, answer_ids: Sequence[int], cards: Sequence[Card], mistakes: Sequence[Mistake]
    ) -> bool:
        """Store the cards and notebook entries and mark the answers studied, in one transaction;
        False (and nothing stored) when another feeder studied any of them first."""
        ...

    async def due_cards(self, user_id: int, bank_id: str, now: datetime, limit: int) -> list[Card]: ...
    async def next_due(self, user_id: int, bank_id: str) -> datetime | None: ...
    async def due_counts(self, user_id: int, bank_id: str, bounds: Sequence[datetime]) -> list[int]:
        """How many cards fall due by each bound (cumulative)."""
        ...

    async def due_by_day(self, user_id: int, bank_id: str, day_starts: Sequence[datetime]) -> list[int]:
        """The cards due on each day of a forecast, the days given by their starts (today's start
        first, then the start of each following day; one count fewer than starts): today's count
        holds every card due before tomorrow, overdue ones too, but not a card reviewed since
        today began (what is done today is not due today); each later day's, the cards due
        within it."""
        ...

    async def notebook(self, user_id: int, bank_id: str) -> list[Mistake]:
        """The questions in the notebook (active entries), most missed first."""
        ...

    async def set_favourite(
        self, user_id: int, bank_id: str, question_id: str, on: bool, at: datetime
    ) -> bool:
        """Add or remove; whether anything changed."""
        ...

    async def favourites(self, user_id: int, bank_id: str) -> list[str]: ...

    async def answered(
        self, user_id: int | None, bank_id: str, chat_id: int | None = None
    ) -> dict[str, tuple[int, int]]:
        """Per question: (right answers, final answers) of one person, or of everyone in a chat."""
        ...

    async def grades(self, user_id: int, bank_id: str) -> dict[str, list[float]]:
        """Per question: the share of the points of each of the person's final answers, oldest
        first (what bot/domain/readiness.py's prior and self-graded chances are fitted on)."""
        ...

    async def ungraded(self, user_id: int, bank_id: str) -> dict[str, list[str]]:
        """Per question: the responses of the person's answers still awaiting their self-grade,
        oldest first (a short item with key points is scored from them until it is graded)."""
        ...

    async def set_mistake_cause(self, user_id: int, bank_id: str, question_id: str, cause: str,
                                at: datetime) -> None:  # fmt: skip
        """Keep the person's cause of a mistake (one per question; a new one replaces it)."""
        ...

    async def mistake_causes(self, user_id: int, bank_id: str) -> dict[str, str]:
        """The causes the person gave, by question id."""
        ...

    async def answers_by_day(self, user_id: int, day_starts: Sequence[datetime]) -> list[tuple[int, int]]:
        """(final answers, right answers) of one person between each start and the next (one
        pair fewer than starts): the days of the person's chat, in its time zone."""
        ...

    async def practice_position(self, user_id: int, bank_id: str) -> int:
        """The number of the last question served in order (0: none yet)."""
        ...

    async def set_practice_position(self, user_id: int, bank_id: str, number: int) -> None: ...

    async def set_reminder(self, reminder: Reminder | None, user_id: int) -> None:
        """Turn a person's daily review reminder on (`reminder`) or off (None)."""
        ...

    async def reminders(self) -> list[Reminder]: ...
    async def due_count(self, user_id: int, bank_id: str, now: datetime) -> int: ...

    # ---------------------------------------------- practice runs (bot/application/study/drill.py)

    async def start_run(self, run: PracticeRun) -> PracticeRun:
        """End the person's open run in that chat (at the new one's start) and open `run` (its id
        is given here), in one transaction."""
        ...

    async def latest_run(self, user_id: int, chat_id: int) -> PracticeRun | None:
        """The person's most recent run in that chat, open or ended."""
        ...

    async def end_run(self, run_id: int, at: datetime) -> bool:
        """End an open run; False when it was not open."""
        ...

    async def add_run_item(self, run_id: int, round_id: int, question_id: str, in_notebook: bool) -> None: ...

    async def run_questions(self, run_id: int) -> set[str]:
        """The questions the run has asked."""
        ...

    async def run_tally(self, run_id: int) -> RunTally: ...

    async def seen(self, user_id: int, bank_id: str, pool: str) -> set[str]:
        """The questions of a random-practice pool already served to the person."""
        ...

    async def mark_seen(self, user_id: int, bank_id: str, pool: str, question_id: str) -> None: ...
    async def clear_seen(self, user_id: int, bank_id: str, pool: str) -> None: ...

    async def pending_self_grade(self, user_id: int, chat_id: int) -> int | None:
        """The latest practice round in that chat where the person's answer awaits their self-grade."""
        ...


class LearnerMemoryStore(Protocol):
    """Each learner's desired retention and fitted FSRS parameters (bot/application/study/memory_fit.py), and
    the review history they are fitted on."""

    async def memories(self, user_ids: Sequence[int]) -> dict[int, LearnerMemory]:
        """The learners' stored memory models (a learner with none is left out)."""
        ...

    async def set_retention(self, user_id: int, retention: float) -> None: ...

    async def save_parameters(self, user_id: int, parameters: Sequence[float] | None, reviews: int,
                              at: datetime) -> None:  # fmt: skip
        """Keep the parameters fitted on `reviews` answers (None: back to the defaults)."""
        ...

    async def learners_with(self, reviews: int) -> list[int]:
        """The learners with at least `reviews` final answers, by id."""
        ...

    async def review_history(self, user_id: int) -> list[StudyAnswer]:
        """Every final answer of the learner, in every bank, oldest first."""
        ...


class MockOpen(Exception):
    """The person already sits a mock (one open mock per person)."""


class MockStore(Protocol):
    async def create_mock(self, new: NewMock) -> Mock:
        """Store a new open mock; MockOpen when the person already has one."""
        ...

    async def get_mock(self, mock_id: int) -> Mock | None: ...
    async def open_mock(self, user_id: int) -> Mock | None: ...
    async def open_mocks(self) -> list[Mock]: ...
    async def last_handed_in(self, user_id: int) -> Mock | None: ...
    async def history(self, user_id: int, limit: int) -> list[Mock]: ...
    async def answers(self, mock_id: int) -> dict[int, MockAnswer]: ...

    async def save_answer(self, mock_id: int, item: int, response: str | None, position: int) -> bool:
        """Keep a response while the mock is open; False when it is not."""
        ...

    async def set_flag(self, mock_id: int, item: int, flagged: bool) -> bool: ...
    async def set_position(self, mock_id: int, position: int) -> None: ...

    async def hand_in(
        self, mock_id: int, at: datetime, grades: dict[int, tuple[str, float]], score: float, state: MockState
    ) -> bool:
        """Close an open mock with its grades, once; False when it was closed already."""
        ...

    async def grade_item(
        self, mock_id: int, item: int, verdict: str, fraction: float, score: float, state: MockState
    ) -> bool: ...
    async def quit(self, mock_id: int, at: datetime) -> bool: ...


class ReportStore(Protocol):
    async def add_report(self, report: Report) -> int: ...
    async def open_reports(
        self,
        bank_id: str | None = None,
        chat_id: int | None = None,
        guild: tuple[str, str] | None = None,
        of_banks: Sequence[str] = (),
    ) -> list[Report]:
        """Open reports, oldest first: of one bank (`bank_id`), and of those, the ones made in
        chat `chat_id` or in any chat of the server `guild` (platform, guild key) or on any bank
        of `of_banks` (from any chat); all of them when neither is given."""
        ...

    async def get_report(self, report_id: int) -> Report | None: ...

    async def close_report(self, report_id: int, state: str, note: str, at: datetime) -> bool:
        """Resolve or dismiss an open report; False when it is not open."""
        ...


class ItemAnswerStore(Protocol):
    async def item_answers(self, bank_id: str) -> list[ItemAnswer]:
        """Every graded answer to the bank's items, of every chat and mode: the rounds' answers
        (dailies, contests, practice and review) and handed-in mocks' answered items, oldest
        first. Pending self-grades and a mock's blank items are left out."""
        ...
