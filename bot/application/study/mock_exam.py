"""Mock exams (模拟考试): a paper drawn from the bank's declared structure, sat against a wall
clock, graded only at hand-in (交卷) or when time runs out.

Answers are stored as given (validated, not graded), so a restart keeps them; the clock is the
stored `ends_at`. The scheduler holds two jobs per open mock — a reminder 10 minutes before the
end and the automatic hand-in — rebuilt from the database by `restore()` at start-up. A command
that arrives after the end hands in first, so no answer is taken late. Results go to the person's
mock history and, at hand-in, to the study tools (notebook, FSRS); never to a leaderboard. A
mock handed in with nothing answered is no result: it is closed like a quit, not kept as 0.

The paper is one person's: items drawn and ordered at random, options shuffled per item (the
order stored with the items; answers kept in the bank's letters, bot/domain/option_shuffle.py). One item
is shown at a time, with its answer buttons on platforms that have them (bot/application/clicks.py
says which clicks may act).

With several processes, each keeps the jobs of every open mock (a start or hand-in is broadcast);
the reminder and the time-up notice are firings claimed once (`mock:<id>:remind`, `…:timed-out`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from bot.application.clicks import AFTER, ON_ITEM, MockAct, MockClick
from bot.application.firings import Firings
from bot.application.outbox import Outbox
from bot.application.presenting import (
    correct_label,
    correct_tokens,
    key_point_fields,
    option_views,
    response_label,
)
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.study.feed import StudyFeed
from bot.domain import grading
from bot.domain import option_shuffle as shuffle
from bot.domain.clock import Clock
from bot.domain.doubts import explanation_text
from bot.domain.kinds import ChatRef, InputKind, UserRef
from bot.domain.mock_exam_records import Mock, MockAnswer, MockState, NewMock
from bot.domain.paper import draw, paper_of
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.study_records import Outcome, StudyAnswer
from bot.locales.i18n import bank_text
from bot.ports.broadcast import RESYNC, Broadcast
from bot.ports.scheduler import Scheduler
from bot.ports.study_storage import MockOpen, MockStore
from bot.views.quiz import notice
from bot.views.study import (
    MockConfirmView,
    MockIntro,
    MockQuestionView,
    MockReportView,
    MockReviewView,
    MockSheetView,
    PendingShort,
    SheetRow,
    WrongItem,
)

log = logging.getLogger("studybot.mock")

REMIND_BEFORE = timedelta(minutes=10)
MAX_RESPONSE = 1000
_OUTCOMES = {"correct": Outcome.RIGHT, "partial": Outcome.PARTLY, "wrong": Outcome.WRONG}
# The banks a chat may name, as /bank list names them: (name, bank) (bot/application/bank_uploads.py).
BankNames = Callable[[ChatRef], list[tuple[str, Bank]]]
MockClickView = MockQuestionView | MockSheetView | MockConfirmView | MockReportView | MockReviewView | None


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
        self.bank_names: BankNames | None = None  # set by bootstrap: the names /bank list shows
        # When each open mock last showed an item here: a question asked after that takes typed
        # text; after a restart (empty) the mock's start stands in.
        self._shown: dict[int, datetime] = {}
        self.remind_before = remind_before  # the config's study.mock_reminder_minutes
        if broadcast is not None:
            broadcast.subscribe("mock", self._changed)
            broadcast.subscribe(RESYNC, self._resync)

    # ------------------------------------------------------------ sitting

    def find_bank(self, chat_ref: ChatRef, name: str) -> Bank:
        """The bank `name` names in this chat, as /bank list names it (a chat's own upload first),
        else by its id; QuizError listing the names it could be."""
        visible = self.bank_names(chat_ref) if self.bank_names is not None else []
        if not visible:
            visible = sorted(self.quiz.banks.items())
        folded = name.casefold()
        for candidates in (visible, [(b.id, b) for b in self.quiz.banks.values()]):
            found = next((b for shown, b in reversed(candidates) if shown.casefold() == folded), None)
            if found is not None:
                return found
        raise QuizError("error.unknown_bank", bank=name, banks=", ".join(shown for shown, _ in visible))

    async def start(
        self, chat_ref: ChatRef, user: UserRef, bank_id: str | None, language: str, *, ordered: bool = False
    ) -> MockQuestionView:
        """Start a mock on the bank (the chat's by default; named as /bank list names it), or
        resume the one in progress. `ordered`: the paper in bank order, options unshuffled."""
        user_id = await self.quiz.user_id(user)
        current = await self._open(user_id)
        if current is not None:
            return await self._view(current, current.position, language, intro=True, resumed=True)
        chat = await self.quiz.chat(chat_ref)
        bank = self.find_bank(chat_ref, bank_id) if bank_id else self.quiz.bank_for(chat)
        paper = paper_of(bank)
        sections, items = draw(bank, paper, self.rng, ordered=ordered)
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
        return await self._keep(mock, index, text, language)

    async def _keep(
        self, mock: Mock, index: int, text: str, language: str, *, advance: bool = True
    ) -> MockQuestionView | MockSheetView:
        question = self._question(mock, index)
        order = mock.items[index].order
        text = text.strip()
        if not text:
            raise QuizError("mock.empty_answer", number=index + 1)
        if len(text) > MAX_RESPONSE:
            raise QuizError("mock.answer_too_long", limit=MAX_RESPONSE)
        await grading.prepare(question)
        try:  # read against the options as this person sees them
            read = grading.grade(shuffle.shown(question, order), text)
        except InvalidResponse as exc:
            raise QuizError(exc.key, **exc.params) from None
        # A typed answer is kept as typed (its grading reads it again at hand-in); one in option
        # letters (a choice, or letters typed for a type with options) in the bank's letters.
        typed = TYPES[question.type].input_kind in (InputKind.TYPED, InputKind.SELF_GRADED)
        kept = text if typed and not question.options else shuffle.to_bank(question, order, read.response)
        following = min(index + 1, len(mock.items) - 1) if advance else index
        if not await self.store.save_answer(mock.id, index, kept, following):
            raise QuizError("mock.none")
        if not advance:
            return await self._view(mock, index, language)
        if index + 1 >= len(mock.items):
            return await self.sheet_of(mock, language)
        return await self._view(mock, following, language, saved=index + 1)

    async def typed(
        self, chat_ref: ChatRef, user: UserRef, text: str, language: str
    ) -> MockQuestionView | MockSheetView | None:
        """A plain typed text as the answer to the current item of the person's mock when it is
        open in this chat and no question was asked there since the mock last showed an item
        (an earlier practice question does not take it); else None."""
        mock = await self.store.open_mock(await self.quiz.user_id(user))
        if mock is None or mock.chat_id != (await self.quiz.chat(chat_ref)).id:
            return None
        current = await self.quiz.current_round(chat_ref)
        shown = max(mock.started_at, self._shown.get(mock.id, mock.started_at))
        if current is not None and current.opened_at > shown:
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
        return await self.sheet_of(await self._sitting(user), language)

    async def sheet_of(self, mock: Mock, language: str) -> MockSheetView:
        mock = await self.store.get_mock(mock.id) or mock  # its position now
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
        return MockSheetView(
            language, tuple(rows), answered, len(mock.items), self._remaining(mock), mock.id,
            mock.position + 1,
        )  # fmt: skip

    async def submit(
        self, user: UserRef, language: str, *, confirmed: bool = False
    ) -> MockReportView | MockConfirmView | None:
        """Hand in (交卷). With items unanswered it asks first (MockConfirmView) unless
        `confirmed`; with nothing answered at all the mock is closed as no result (None). After
        the time is up the mock was (or is now) handed in by the clock: its report says so,
        with the answers kept until the end."""
        user_id = await self.quiz.user_id(user)
        mock = await self.store.open_mock(user_id)
        if mock is None:
            last = await self.store.last_handed_in(user_id)
            if last is not None and last.submitted_at is not None and last.submitted_at >= last.ends_at:
                # The clock handed it in first: say so, rather than "no mock in progress".
                score, total = _points(last.score or 0), _points(last.total)
                raise QuizError("mock.handed_in_by_clock", score=score, total=total)
            raise QuizError("mock.none")
        return await self._submit_open(mock, language, confirmed=confirmed)

    async def _submit_open(
        self, mock: Mock, language: str, *, confirmed: bool
    ) -> MockReportView | MockConfirmView | None:
        timed_out = self.clock.now() >= mock.ends_at
        if not timed_out and not confirmed:
            answers = await self.store.answers(mock.id)
            blank = tuple(
                i + 1 for i in range(len(mock.items)) if answers.get(i, MockAnswer(i)).response is None
            )
            if blank:
                return MockConfirmView(
                    language, mock.id, blank, len(mock.items), self._remaining(mock), mock.position + 1
                )
        handed = await self._hand_in(mock, timed_out=timed_out)
        if handed.state is MockState.QUIT:  # nothing answered: no result
            if timed_out:
                raise _late(handed)
            return None
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

    async def review(self, user: UserRef, number: int | None, language: str) -> MockReviewView:
        """Item `number` of the last mock handed in (the first one not right when None): its
        options as shown in that mock, the answer given and the right one with its text."""
        user_id = await self.quiz.user_id(user)
        await self._open(user_id)  # hands in one whose time is up
        mock = await self.store.last_handed_in(user_id)
        if mock is None:
            raise QuizError("mock.no_report")
        answers = await self.store.answers(mock.id)
        wrong = tuple(
            i + 1 for i in range(len(mock.items)) if answers.get(i, MockAnswer(i)).verdict != "correct"
        )
        if number is None:
            if not wrong:
                raise QuizError("mock.none_wrong")
            number = wrong[0]
        index = self._index(mock, number)
        await grading.prepare(self._question(mock, index))
        return self._review(mock, index, answers.get(index, MockAnswer(index)), wrong, language)

    def _review(
        self, mock: Mock, index: int, entry: MockAnswer, wrong: tuple[int, ...], language: str
    ) -> MockReviewView:
        question = self._question(mock, index)
        order = mock.items[index].order
        seen = shuffle.shown(question, order)
        given = (
            response_label(seen, shuffle.to_shown(question, order, entry.response), language)
            if entry.response is not None
            else ""
        )
        return MockReviewView(
            language,
            mock.id,
            index + 1,
            len(mock.items),
            question.type,
            bank_text(language, question.stem),
            tuple((letter, bank_text(language, text)) for letter, text in seen.options),
            correct_tokens(seen) if seen.options else (),
            given,
            correct_label(seen, language),
            explanation_text(language, question),
            entry.verdict,
            bank_text(language, question.answer[0]) if entry.verdict == "pending" else "",
            tuple(bank_text(language, p) for p in question.key_points) if entry.verdict == "pending" else (),
            wrong,
            **self._key_point_fields(mock, index, question, entry, language),
            bank_id=mock.bank_id,
            images=question.images,
        )

    @staticmethod
    def _key_point_fields(
        mock: Mock, index: int, question: Question, entry: MockAnswer, language: str
    ) -> dict[str, Any]:
        """A pending short answer's covered and missed key points, scored in this mock's points."""
        if entry.verdict != "pending" or entry.response is None:
            return {}
        fields = key_point_fields(question, entry.response, language)
        if fields:
            fields |= {"points": (entry.fraction or 0.0) * mock.points(index), "out_of": mock.points(index)}
        return fields

    async def click(self, chat_ref: ChatRef, user: UserRef, click: MockClick, language: str) -> MockClickView:
        """A mock button pressed (bot/application/clicks.py): None when it may not act (another
        person's mock, another chat, a button the message does not carry, a stale item)."""
        mock = await self.store.get_mock(click.mock_id)
        if mock is None or not click.carried:
            return None
        chat = await self.quiz.chat(chat_ref)
        if (
            mock.user_id != await self.quiz.user_id(user)
            or mock.chat_id != chat.id
            or str(click.platform) != str(chat.ref.platform)
            or click.chat_key != chat.ref.chat_key
            or not 1 <= click.item <= len(mock.items)
        ):
            return None
        index = click.item - 1
        if click.act in AFTER:
            if mock.state not in (MockState.GRADING, MockState.DONE):
                return None
            answers = await self.store.answers(mock.id)
            wrong = tuple(
                i + 1 for i in range(len(mock.items)) if answers.get(i, MockAnswer(i)).verdict != "correct"
            )
            return self._review(mock, index, answers.get(index, MockAnswer(index)), wrong, language)
        if mock.state is not MockState.OPEN:
            return None
        if self.clock.now() >= mock.ends_at:
            handed = await self._hand_in(mock, timed_out=True)
            raise _late(handed)
        if click.act in ON_ITEM and index != mock.position:
            return None  # a button of an item no longer on screen
        if click.act is MockAct.PICK:
            question, order = self._question(mock, index), mock.items[index].order
            tokens = {o.token for o in option_views(shuffle.shown(question, order), language)}
            if click.token not in tokens:
                return None
            if TYPES[question.type].input_kind is InputKind.CHOOSE_MANY:  # toggled into the kept answer
                entry = (await self.store.answers(mock.id)).get(index, MockAnswer(index))
                chosen = set(
                    shuffle.to_shown(question, order, entry.response).split(",") if entry.response else ()
                )
                chosen ^= {click.token}
                if not chosen:
                    await self.store.save_answer(mock.id, index, None, index)
                    return await self._view(mock, index, language)
                return await self._keep(mock, index, ",".join(sorted(chosen)), language, advance=False)
            return await self._keep(mock, index, click.token, language)
        if click.act is MockAct.TYPE:  # a form's text, for an item answered by typing
            question = self._question(mock, index)
            typed = TYPES[question.type].input_kind in (InputKind.TYPED, InputKind.SELF_GRADED)
            if not typed or click.token is None:
                return None
            return await self._keep(mock, index, click.token, language)
        if click.act is MockAct.OPEN_FORM:
            return None  # a platform opens its form itself; the submit is what is checked
        if click.act in (MockAct.NEXT, MockAct.BACK, MockAct.GO):
            step = {MockAct.NEXT: 1, MockAct.BACK: -1, MockAct.GO: 0}[click.act]
            target = min(max(index + step, 0), len(mock.items) - 1)
            await self.store.set_position(mock.id, target)
            return await self._view(mock, target, language)
        if click.act is MockAct.SHEET:
            return await self.sheet_of(mock, language)
        result = await self._submit_open(mock, language, confirmed=click.act is MockAct.CONFIRM)
        if result is None:
            raise QuizError("mock.empty_hand_in")
        return result

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
        self._shown[mock.id] = self.clock.now()
        order = mock.items[index].order
        seen = shuffle.shown(question, order)
        entry = (await self.store.answers(mock.id)).get(index, MockAnswer(index))
        given = shuffle.to_shown(question, order, entry.response) if entry.response is not None else None
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
            TYPES[question.type].input_kind,
            mock.points(index),
            bank_text(language, question.stem),
            tuple((letter, bank_text(language, text)) for letter, text in seen.options),
            response_label(seen, given, language) if given is not None else None,
            entry.flagged,
            self._remaining(mock),
            shown_intro,
            saved,
            mock.id,
            tuple((o.token, o.label) for o in option_views(seen, language)),
            tuple(given.split(",")) if given and TYPES[seen.type].is_choice else (),
            mock.bank_id,
            question.images,
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
            order = mock.items[index].order
            seen = shuffle.shown(question, order)
            shown_response = shuffle.to_shown(question, order, entry.response or "")
            given = response_label(seen, shown_response, language) if entry.response is not None else ""
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
                        correct_label(seen, language),
                        explanation_text(language, question),
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
            mock.id,
        )


def _points(value: float) -> str:
    return f"{value:g}"


def _late(handed: Mock) -> QuizError:
    """What a command arriving after the end is told: the paper was handed in by the clock (or,
    with nothing answered, closed as no result)."""
    if handed.state is MockState.QUIT:
        return QuizError("mock.time_up_empty")
    return QuizError("mock.time_was_up", score=_points(handed.score or 0), total=_points(handed.total))
