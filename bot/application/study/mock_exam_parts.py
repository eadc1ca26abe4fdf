"""What the mock exam's parts share: the stores, clock and scheduler the Mocks class is built with, and
the reads that find a person's mock, its bank, an item and the time left."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from bot.application.firings import Firings
from bot.application.outbox import Outbox
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.study.feed import StudyFeed
from bot.domain.clock import Clock
from bot.domain.kinds import UserRef
from bot.domain.mock_exam_records import Mock, MockAnswer, MockState
from bot.domain.questions import Bank, Question
from bot.domain.study_records import Outcome
from bot.ports.broadcast import Broadcast
from bot.ports.scheduler import Scheduler
from bot.ports.study_storage import MockStore

_OUTCOMES = {"correct": Outcome.RIGHT, "partial": Outcome.PARTLY, "wrong": Outcome.WRONG}


class MockParts:
    """The parts the mock exam's pieces (mock_exam, mock_exam_clock, mock_exam_views) read;
    Mocks builds them once."""

    quiz: Quiz
    store: MockStore
    feed: StudyFeed
    scheduler: Scheduler
    outbox: Outbox
    clock: Clock
    rng: random.Random
    firings: Firings
    broadcast: Broadcast | None
    remind_before: timedelta
    _shown: dict[int, datetime]

    async def _hand_in(self, mock: Mock, *, timed_out: bool) -> Mock:
        """Hand a mock in (MockClock's: the deadline's hand-in and a learner's are one path)."""
        raise NotImplementedError

    async def _open(self, user_id: int) -> Mock | None:
        """The open mock, after handing in one whose time is up (then None)."""
        mock = await self.store.open_mock(user_id)
        if mock is not None and self.clock.now() >= mock.ends_at:
            await self._hand_in(mock, timed_out=True)
            return None
        return mock

    async def _sitting(self, user: UserRef) -> Mock:
        user_id = await self.quiz.user_id(user)
        mock = await self.store.open_mock(user_id)
        if mock is None:
            raise QuizError("mock.none")
        if self.clock.now() >= mock.ends_at:
            handed = await self._hand_in(mock, timed_out=True)
            raise _late(handed)
        return mock

    def _bank(self, mock: Mock) -> Bank:
        bank = self.quiz.banks.get(mock.bank_id)
        if bank is None:
            raise QuizError("error.unknown_bank", bank=mock.bank_id, banks=", ".join(sorted(self.quiz.banks)))
        return bank

    def _question(self, mock: Mock, index: int) -> Question:
        return self._bank(mock).question(mock.items[index].question_id)

    def _index(self, mock: Mock, number: int) -> int:
        if not 1 <= number <= len(mock.items):
            raise QuizError("mock.no_such_item", number=number, count=len(mock.items))
        return number - 1

    def _remaining(self, mock: Mock) -> int:
        return max(0, int((mock.ends_at - self.clock.now()).total_seconds()))

    @staticmethod
    def _score(mock: Mock, answers: dict[int, MockAnswer]) -> float:
        return round(
            sum((a.fraction or 0.0) * mock.points(i) for i, a in answers.items() if i < len(mock.items)), 2
        )


def _points(value: float) -> str:
    return f"{value:g}"


def _late(handed: Mock) -> QuizError:
    """What a command arriving after the end is told: the paper was handed in by the clock (or,
    with nothing answered, closed as no result)."""
    if handed.state is MockState.QUIT:
        return QuizError("mock.time_up_empty")
    return QuizError("mock.time_was_up", score=_points(handed.score or 0), total=_points(handed.total))
