"""What every study command reads: the study tools' parts (set by StudyUseCases, which is all of them)
and the helpers that find the person, their bank and the item a command names."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.application.commands.parsing import Parsed
from bot.application.outbox import Outbox
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError, no_number
from bot.application.requests import Caller
from bot.application.study.bank_owners import BankOwners
from bot.application.study.drill import Drill
from bot.application.study.exam import ExamPlans
from bot.application.study.feed import StudyFeed
from bot.application.study.mock_exam import Mocks
from bot.application.study.practice import Practice
from bot.domain.clock import Clock
from bot.domain.kinds import UserRef
from bot.domain.questions import Bank, Question
from bot.ports.charts import ChartRenderer
from bot.ports.study_storage import ReportStore, StudyStore
from bot.views.progress import (
    LocalDays,
)

# A learner's exam moment (user id, bank id, the chat's time zone → UTC), when a feature keeps one
# (None: none set): /ready then forecasts up to it. Without one, /ready looks 30 days on.
ExamMoment = Callable[[int, str, str], Awaitable[datetime | None]]


class StudyContext:
    """The parts each group of study commands (error_reports, mistake_notebook, readiness,
    favourites, mock_exam_commands) reads; StudyUseCases builds them once."""

    quiz: Quiz
    store: StudyStore
    feed: StudyFeed
    mocks: Mocks
    reports: ReportStore
    charts: ChartRenderer | None
    outbox: Outbox
    clock: Clock
    drill: Drill
    practice: Practice
    owners: BankOwners | None
    exams: ExamPlans | None
    exam_date: ExamMoment | None
    _versions: dict[str, str]

    async def _days(self, user_id: int, timezone: str) -> LocalDays:
        """The learner's days: their chat's time zone and, with the exam plan running, their day start."""
        if self.exams is None:
            return LocalDays.at(self.clock.now(), timezone)
        return await self.exams.days(user_id, timezone)

    def _user(self, caller: Caller) -> UserRef:
        if caller.user is None:
            raise QuizError("error.no_user")
        return caller.user

    async def _person(self, caller: Caller) -> tuple[int, Bank]:
        """The caller's user id and the chat's bank, after catching the study feed up."""
        user_id = await self.quiz.user_id(self._user(caller))
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        await self.feed.catch_up()
        return user_id, bank

    @staticmethod
    def _number(parsed: Parsed) -> int | None:
        value = parsed.args.get("number")
        return value if isinstance(value, int) else None

    async def _by_number(self, caller: Caller, number: int | None) -> Question:
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        found = next((q for q in bank.questions if q.number == number), None)
        if found is None:
            raise no_number(bank, number)
        return found
