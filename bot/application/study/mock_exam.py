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

from bot.application.clicks import AFTER, ON_ITEM, MockAct, MockClick
from bot.application.firings import Firings
from bot.application.outbox import Outbox
from bot.application.presenting import (
    option_views,
)
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.study.feed import StudyFeed
from bot.application.study.mock_exam_clock import MockClock
from bot.application.study.mock_exam_parts import _OUTCOMES, _late, _points
from bot.application.study.mock_exam_views import MockViews
from bot.domain import grading
from bot.domain import option_shuffle as shuffle
from bot.domain.clock import Clock
from bot.domain.kinds import ChatRef, InputKind, UserRef, toggled
from bot.domain.mock_exam_records import Mock, MockAnswer, MockState, NewMock
from bot.domain.paper import draw, paper_of
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank
from bot.domain.reading.invalid_response import InvalidResponse
from bot.domain.study_records import StudyAnswer
from bot.ports.broadcast import RESYNC, Broadcast
from bot.ports.scheduler import Scheduler
from bot.ports.study_storage import MockOpen, MockStore
from bot.views.study import (
    MockConfirmView,
    MockQuestionView,
    MockReportView,
    MockReviewView,
    MockSheetView,
)

log = logging.getLogger("studybot.mock")

REMIND_BEFORE = timedelta(minutes=10)
# The banks a chat may name, as /bank list names them: (name, bank) (bot/application/bank_uploads.py).
BankNames = Callable[[ChatRef], list[tuple[str, Bank]]]
MockClickView = MockQuestionView | MockSheetView | MockConfirmView | MockReportView | MockReviewView | None


class Mocks(MockClock, MockViews):
    """Mock exams: sitting one (start, answer, flag, the sheet, hand-in), with its clock
    (mock_exam_clock.py) and what it shows (mock_exam_views.py)."""

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
        limit = self.quiz.settings.max_answer_chars  # as in practice: the same answer is kept in both
        if len(text) > limit:
            raise QuizError("mock.answer_too_long", limit=limit)
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
            rules = TYPES[question.type]
            if rules.input_kind in (InputKind.CHOOSE_MANY, InputKind.ORDER):  # tapped into the kept answer
                entry = (await self.store.answers(mock.id)).get(index, MockAnswer(index))
                given = shuffle.to_shown(question, order, entry.response) if entry.response else ""
                chosen = toggled(rules.response_tokens(given), click.token)
                if not chosen:
                    await self.store.save_answer(mock.id, index, None, index)
                    return await self._view(mock, index, language)
                return await self._keep(mock, index, ",".join(chosen), language, advance=False)
            return await self._keep(mock, index, click.token, language)
        if click.act is MockAct.TYPE:  # a form's text, for an item answered by typing (an order too)
            question = self._question(mock, index)
            kind = TYPES[question.type].input_kind
            typed = kind in (InputKind.TYPED, InputKind.SELF_GRADED, InputKind.ORDER)
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

    # ------------------------------------------------------------ reading


