"""Mock exams (模拟考试): a paper drawn from the bank's declared structure, sat against a wall
clock, graded only at hand-in (交卷) or when time runs out.

Answers are stored as given (validated, not graded), so a restart keeps them; the clock is the
stored `ends_at`. The scheduler holds two jobs per open mock — a reminder 10 minutes before the
end and the automatic hand-in — rebuilt from the database by `restore()` at start-up. A command
that arrives after the end hands in first, so no answer is taken late. Results go to the person's
mock history and, at hand-in, to the study tools (notebook, FSRS); never to a leaderboard.

With several processes, each keeps the jobs of every open mock (a start or hand-in is broadcast);
the reminder and the time-up notice are firings claimed once (`mock:<id>:remind`, `…:timed-out`).
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta

from bot import grading
from bot.clock import Clock
from bot.firings import Firings
from bot.i18n import bank_text
from bot.invalid_response import InvalidResponse
from bot.kinds import ChatRef, UserRef
from bot.messages import notice
from bot.model import Bank, Question, QuestionType
from bot.outbox import Outbox
from bot.ports import RESYNC, Broadcast, Scheduler
from bot.presenting import correct_label, response_label
from bot.quiz import Quiz
from bot.quiz_settings import QuizError
from bot.study.feed import StudyFeed
from bot.study.mock_records import Mock, MockAnswer, MockState, NewMock
from bot.study.paper import draw, paper_of
from bot.study.ports import MockOpen, MockStore
from bot.study.records import Outcome, StudyAnswer
from bot.study.views import (
    MockIntro,
    MockQuestionView,
    MockReportView,
    MockSheetView,
    PendingShort,
    SheetRow,
    WrongItem,
)

log = logging.getLogger("studybot.mock")

REMIND_BEFORE = timedelta(minutes=10)
MAX_RESPONSE = 1000
_OUTCOMES = {"correct": Outcome.RIGHT, "partial": Outcome.PARTLY, "wrong": Outcome.WRONG}


def end_job(mock_id: int) -> str:
    return f"mock-end:{mock_id}"


def remind_job(mock_id: int) -> str:
    return f"mock-remind:{mock_id}"


class Mocks:
    def __init__(
        self,
        quiz: Quiz,
        store: MockStore,
        feed: StudyFeed,
        scheduler: Scheduler,
        outbox: Outbox,
        clock: Clock,
        rng: random.Random,
        firings: Firings | None = None,
        broadcast: Broadcast | None = None,
        remind_before: timedelta = REMIND_BEFORE,
    ) -> None:
        self.quiz = quiz
        self.store = store
        self.feed = feed
        self.scheduler = scheduler
        self.outbox = outbox
        self.clock = clock
        self.rng = rng
        self.firings = firings or Firings()
        self.broadcast = broadcast
        self.remind_before = remind_before  # the config's study.mock_reminder_minutes
        if broadcast is not None:
            broadcast.subscribe("mock", self._changed)
            broadcast.subscribe(RESYNC, self._resync)

    # ------------------------------------------------------------ sitting

    async def start(
        self, chat_ref: ChatRef, user: UserRef, bank_id: str | None, language: str
    ) -> MockQuestionView:
        """Start a mock on the bank (the chat's by default), or resume the one in progress."""
        user_id = await self.quiz.user_id(user)
        current = await self._open(user_id)
        if current is not None:
            return await self._view(current, current.position, language, intro=True, resumed=True)
        chat = await self.quiz.chat(chat_ref)
        bank = self.quiz.banks.get(bank_id) if bank_id else self.quiz.bank_for(chat)
        if bank is None:
            raise QuizError(
                "error.unknown_bank", bank=bank_id or "", banks=", ".join(sorted(self.quiz.banks))
            )
        paper = paper_of(bank)
        sections, items = draw(bank, paper, self.rng)
        now = self.clock.now()
        new = NewMock(
            user_id,
            chat.id,
            bank.id,
            items,
            sections,
            paper.pass_mark,
            now,
            now + timedelta(minutes=paper.minutes),
        )
        try:
            mock = await self.store.create_mock(new)
        except MockOpen:  # a second /mock at the same moment: resume that one
            again = await self._open(user_id)
            if again is None:
                raise
            return await self._view(again, again.position, language, intro=True, resumed=True)
        self._schedule(mock)
        await self._tell(mock.id)
        return await self._view(mock, 0, language, intro=True)

    async def show(self, user: UserRef, number: int | None, language: str) -> MockQuestionView:
        mock = await self._sitting(user)
        index = mock.position if number is None else self._index(mock, number)
        await self.store.set_position(mock.id, index)
        return await self._view(mock, index, language)

    async def answer(
        self, user: UserRef, number: int | None, text: str, language: str
    ) -> MockQuestionView | MockSheetView:
        """Keep an answer to item `number` (the current one when None) and show the next item
        (the answer sheet after the last). Nothing is graded: the text is only read, so an
        unreadable answer is refused now and not at hand-in."""
        mock = await self._sitting(user)
        index = mock.position if number is None else self._index(mock, number)
        question = self._question(mock, index)
        text = text.strip()
        if not text:
            raise QuizError("mock.empty_answer", number=index + 1)
        if len(text) > MAX_RESPONSE:
            raise QuizError("mock.answer_too_long", limit=MAX_RESPONSE)
        try:
            read = grading.grade(question, text)
        except InvalidResponse as exc:
            raise QuizError(exc.key, **exc.params) from None
        kept = text if question.type in (QuestionType.FILL, QuestionType.SHORT) else read.response
        following = min(index + 1, len(mock.items) - 1)
        if not await self.store.save_answer(mock.id, index, kept, following):
            raise QuizError("mock.none")
        if index + 1 >= len(mock.items):
            return await self.sheet(user, language)
        return await self._view(mock, following, language, saved=index + 1)

    async def typed(
        self, chat_ref: ChatRef, user: UserRef, text: str, language: str
    ) -> MockQuestionView | MockSheetView | None:
        """A plain typed text as the answer to the current item of the person's mock when it is
        open in this chat and no question was asked there since it began; else None."""
        mock = await self.store.open_mock(await self.quiz.user_id(user))
        if mock is None or mock.chat_id != (await self.quiz.chat(chat_ref)).id:
            return None
        current = await self.quiz.current_round(chat_ref)
        if current is not None and current.opened_at > mock.started_at:
            return None
        return await self.answer(user, None, text, language)

    async def flag(self, user: UserRef, number: int | None, language: str) -> MockQuestionView:
        mock = await self._sitting(user)
        index = mock.position if number is None else self._index(mock, number)
        answers = await self.store.answers(mock.id)
        flagged = not answers.get(index, MockAnswer(index)).flagged
        await self.store.set_flag(mock.id, index, flagged)
        await self.store.set_position(mock.id, index)
        return await self._view(mock, index, language)

    async def sheet(self, user: UserRef, language: str) -> MockSheetView:
        mock = await self._sitting(user)
        answers = await self.store.answers(mock.id)
        rows = []
        for number, section in enumerate(mock.sections):
            items = tuple(
                (
                    i + 1,
                    answers.get(i, MockAnswer(i)).response is not None,
                    answers.get(i, MockAnswer(i)).flagged,
                )
                for i, item in enumerate(mock.items)
                if item.section == number
            )
            rows.append(SheetRow(section.type, items))
        answered = sum(1 for a in answers.values() if a.response is not None)
        return MockSheetView(language, tuple(rows), answered, len(mock.items), self._remaining(mock))

    async def submit(self, user: UserRef, language: str) -> MockReportView:
        """Hand in (交卷). After the time is up the mock was (or is now) handed in by the clock:
        its report says so, with the answers kept until the end."""
        user_id = await self.quiz.user_id(user)
        mock = await self.store.open_mock(user_id)
        if mock is None:
            last = await self.store.last_handed_in(user_id)
            if last is not None and last.submitted_at is not None and last.submitted_at >= last.ends_at:
                # The clock handed it in first: say so, rather than "no mock in progress".
                score, total = _points(last.score or 0), _points(last.total)
                raise QuizError("mock.handed_in_by_clock", score=score, total=total)
            raise QuizError("mock.none")
        timed_out = self.clock.now() >= mock.ends_at
        handed = await self._hand_in(mock, timed_out=timed_out)
        return await self._report(handed, language, timed_out=timed_out)

    async def quit(self, user: UserRef) -> None:
        mock = await self._sitting(user)
        await self.store.quit(mock.id, self.clock.now())
        self._unschedule(mock.id)
        await self._tell(mock.id)

    async def self_grade(self, user: UserRef, number: int, level: str, language: str) -> MockReportView:
        """Grade one's own short answer after hand-in, against its key points."""
        user_id = await self.quiz.user_id(user)
        mock = await self.store.last_handed_in(user_id)
        if mock is None:
            raise QuizError("mock.none")
        index = self._index(mock, number)
        answers = await self.store.answers(mock.id)
        entry = answers.get(index)
        if entry is None or entry.verdict != "pending":
            raise QuizError("mock.nothing_to_grade", number=number)
        try:
            graded = grading.self_grade(level, response=entry.response or "")
        except InvalidResponse as exc:
            raise QuizError(exc.key, **exc.params) from None
        answers[index] = MockAnswer(
            index, entry.response, entry.flagged, str(graded.verdict), graded.fraction
        )
        score = self._score(mock, answers)
        state = MockState.GRADING if any(a.verdict == "pending" for a in answers.values()) else MockState.DONE
        if await self.store.grade_item(mock.id, index, str(graded.verdict), graded.fraction, score, state):
            question = self._question(mock, index)
            at = mock.submitted_at or self.clock.now()
            await self.feed.study(
                [StudyAnswer(user_id, mock.bank_id, question.id, _OUTCOMES[str(graded.verdict)], at)]
            )
        again = await self.store.get_mock(mock.id)
        assert again is not None
        return await self._report(again, language)

    async def last_report(self, user: UserRef, language: str) -> MockReportView:
        user_id = await self.quiz.user_id(user)
        await self._open(user_id)  # hands in one whose time is up
        mock = await self.store.last_handed_in(user_id)
        if mock is None:
            raise QuizError("mock.no_report")
        return await self._report(mock, language)

    # ------------------------------------------------------------ the clock

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
        score, total = _points(handed.score or 0), _points(handed.total)
        async with self.quiz.store.unit_of_work():
            if not await self.firings.once(f"mock:{mock.id}:timed-out"):
                return  # another process told them
            await self.outbox.owe(
                chat, notice("mock.timed_out", chat.settings.language, score=score, total=total)
            )
        await self.outbox.drain(chat.id)

    async def _hand_in(self, mock: Mock, *, timed_out: bool) -> Mock:
        now = self.clock.now()
        at = min(now, mock.ends_at) if timed_out else now
        answers = await self.store.answers(mock.id)
        grades: dict[int, tuple[str, float]] = {}
        studied: list[StudyAnswer] = []
        for index, item in enumerate(mock.items):
            question = self._question(mock, index)
            given = answers.get(index, MockAnswer(index)).response
            if given is None:
                grades[index] = ("wrong", 0.0)
                continue
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

    # ------------------------------------------------------------ reading

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
            raise QuizError("mock.time_was_up", score=_points(handed.score or 0), total=_points(handed.total))
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

    async def _view(
        self,
        mock: Mock,
        index: int,
        language: str,
        *,
        intro: bool = False,
        resumed: bool = False,
        saved: int | None = None,
    ) -> MockQuestionView:
        question = self._question(mock, index)
        entry = (await self.store.answers(mock.id)).get(index, MockAnswer(index))
        bank = self._bank(mock)
        shown_intro = None
        if intro:
            shown_intro = MockIntro(
                bank_text(language, bank.title),
                tuple((s.type, s.count, s.points) for s in mock.sections),
                mock.total,
                round((mock.ends_at - mock.started_at).total_seconds() / 60),
                mock.pass_mark,
                resumed,
            )
        return MockQuestionView(
            language,
            index + 1,
            len(mock.items),
            question.type,
            question.type.input_kind,
            mock.points(index),
            bank_text(language, question.stem),
            tuple((letter, bank_text(language, text)) for letter, text in question.options),
            response_label(question, entry.response, language) if entry.response is not None else None,
            entry.flagged,
            self._remaining(mock),
            shown_intro,
            saved,
        )

    async def _report(self, mock: Mock, language: str, *, timed_out: bool = False) -> MockReportView:
        answers = await self.store.answers(mock.id)
        per_section = [0.0] * len(mock.sections)
        wrong: list[WrongItem] = []
        pending: list[PendingShort] = []
        for index, _item in enumerate(mock.items):
            question = self._question(mock, index)
            entry = answers.get(index, MockAnswer(index))
            per_section[mock.items[index].section] += (entry.fraction or 0.0) * mock.points(index)
            given = response_label(question, entry.response, language) if entry.response is not None else ""
            if entry.verdict == "pending":
                pending.append(
                    PendingShort(
                        index + 1,
                        bank_text(language, question.stem),
                        given,
                        bank_text(language, question.answer[0]),
                        tuple(bank_text(language, p) for p in question.key_points),
                    )
                )
            elif entry.verdict != "correct":
                wrong.append(
                    WrongItem(
                        index + 1,
                        bank_text(language, question.stem),
                        given,
                        correct_label(question, language),
                        bank_text(language, question.explanation),
                    )
                )
        score = mock.score or 0.0
        ended = mock.submitted_at or self.clock.now()
        used = int((min(ended, mock.ends_at) - mock.started_at).total_seconds())
        return MockReportView(
            language,
            score,
            mock.total,
            mock.pass_mark,
            None if mock.state is MockState.GRADING else score >= mock.pass_mark,
            tuple(
                (s.type, round(per_section[i], 2), s.count * s.points) for i, s in enumerate(mock.sections)
            ),
            used,
            tuple(wrong),
            tuple(pending),
            timed_out,
        )


def _points(value: float) -> str:
    return f"{value:g}"
