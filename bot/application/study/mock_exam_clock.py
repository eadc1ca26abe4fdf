"""A mock exam's clock: the reminder before the end and the hand-in at the deadline on the real
scheduler, each fired once across processes, kept through restarts and told to the other processes."""

from __future__ import annotations

from bot.application.study.mock_exam_parts import _OUTCOMES, MockParts, _points
from bot.domain import grading
from bot.domain.mock_exam_records import Mock, MockAnswer, MockState
from bot.domain.study_records import StudyAnswer
from bot.views.quiz import notice


class MockClock(MockParts):
    async def restore(self) -> None:
        """Rebuild the reminder and hand-in jobs of open mocks; hand in those whose time ran out
        while the bot was down."""
        now = self.clock.now()
        for mock in await self.store.open_mocks():
            if mock.ends_at <= now:
                await self._time_up(mock.id)
            else:
                self._schedule(mock)

    def _schedule(self, mock: Mock) -> None:
        # Coroutine functions, not lambdas returning a coroutine: APScheduler awaits only the
        # former and would run a lambda in a thread, dropping the hand-in it builds.
        mock_id = mock.id

        async def remind() -> None:
            await self._remind(mock_id)

        async def time_up() -> None:
            await self._time_up(mock_id)

        remind_at = mock.ends_at - self.remind_before
        if remind_at > self.clock.now() and remind_at > mock.started_at:
            self.scheduler.at(remind_job(mock_id), remind_at, remind)
        self.scheduler.at(end_job(mock_id), mock.ends_at, time_up)

    async def _tell(self, mock_id: int) -> None:
        if self.broadcast is not None:
            await self.broadcast.publish("mock", str(mock_id))

    async def _changed(self, key: str) -> None:
        """Another process started or handed in a mock: keep (or drop) its jobs here too."""
        mock = await self.store.get_mock(int(key))
        if mock is not None and mock.state is MockState.OPEN:
            self._schedule(mock)
        else:
            self._unschedule(int(key))

    async def _resync(self, _key: str) -> None:
        await self.restore()

    def _unschedule(self, mock_id: int) -> None:
        self.scheduler.cancel(remind_job(mock_id))
        self.scheduler.cancel(end_job(mock_id))

    async def _remind(self, mock_id: int) -> None:
        mock = await self.store.get_mock(mock_id)
        if mock is None or mock.state is not MockState.OPEN:
            return
        chat = await self.quiz.store.get_chat(mock.chat_id)
        if chat is None:
            return
        answers = await self.store.answers(mock.id)
        left = len(mock.items) - sum(1 for a in answers.values() if a.response is not None)
        minutes = max(1, round(self._remaining(mock) / 60))
        async with self.quiz.store.unit_of_work():
            if not await self.firings.once(f"mock:{mock.id}:remind"):
                return  # another process reminded them
            await self.outbox.owe(
                chat, notice("mock.reminder", chat.settings.language, count=minutes, unanswered=left)
            )
        await self.outbox.drain(chat.id)

    async def _time_up(self, mock_id: int) -> None:
        mock = await self.store.get_mock(mock_id)
        if mock is None or mock.state is not MockState.OPEN:
            return
        handed = await self._hand_in(mock, timed_out=True)
        chat = await self.quiz.store.get_chat(mock.chat_id)
        if chat is None:
            return
        language = chat.settings.language
        if handed.state is MockState.QUIT:  # nothing was answered: no result to tell
            told = notice("mock.time_up_empty", language)
        else:
            score, total = _points(handed.score or 0), _points(handed.total)
            told = notice("mock.timed_out", language, score=score, total=total)
        async with self.quiz.store.unit_of_work():
            if not await self.firings.once(f"mock:{mock.id}:timed-out"):
                return  # another process told them
            await self.outbox.owe(chat, told)
        await self.outbox.drain(chat.id)

    async def _hand_in(self, mock: Mock, *, timed_out: bool) -> Mock:
        now = self.clock.now()
        at = min(now, mock.ends_at) if timed_out else now
        answers = await self.store.answers(mock.id)
        if all(a.response is None for a in answers.values()):
            # Nothing answered: no result (not a 0 in the history), closed like a quit.
            if await self.store.quit(mock.id, at):
                self._unschedule(mock.id)
                await self._tell(mock.id)
            closed = await self.store.get_mock(mock.id)
            assert closed is not None
            return closed
        grades: dict[int, tuple[str, float]] = {}
        studied: list[StudyAnswer] = []
        for index, item in enumerate(mock.items):
            question = self._question(mock, index)
            given = answers.get(index, MockAnswer(index)).response
            if given is None:
                grades[index] = ("wrong", 0.0)
                continue
            await grading.prepare(question)
            graded = grading.grade(question, given)
            grades[index] = (str(graded.verdict), graded.fraction)
            if graded.is_final:
                studied.append(
                    StudyAnswer(
                        mock.user_id, mock.bank_id, item.question_id, _OUTCOMES[str(graded.verdict)], at
                    )
                )
        merged = {i: MockAnswer(i, None, False, v, f) for i, (v, f) in grades.items()}
        score = self._score(mock, merged)
        state = MockState.GRADING if any(v == "pending" for v, _ in grades.values()) else MockState.DONE
        if await self.store.hand_in(mock.id, at, grades, score, state):
            self._unschedule(mock.id)
            await self._tell(mock.id)
            await self.feed.study(studied)
        handed = await self.store.get_mock(mock.id)
        assert handed is not None
        return handed


def end_job(mock_id: int) -> str:
    return f"mock-end:{mock_id}"


def remind_job(mock_id: int) -> str:
    return f"mock-remind:{mock_id}"
