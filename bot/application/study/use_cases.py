"""The study commands' use cases (one method per catalog entry, found by its `StudyUseCase` in
`StudyUseCases.handler`): mock exams, the mistake notebook, spaced review, favourites, progress
and error reports.

Every read catches the study feed up first, so the person's last answer is always in what they
see. Practice questions go through the normal ask flow (a practice round in the caller's chat),
so every platform shows and grades them as any /quiz question.
"""

from __future__ import annotations

import dataclasses

from bot.application.answering import TextReply
from bot.application.app import Handler, no_handler
from bot.application.commands.catalog import StudyUseCase
from bot.application.commands.parsing import Parsed
from bot.application.outbox import Outbox
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import FileView, Reply
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, ShowStats
from bot.application.study.bank_owners import BankOwners
from bot.application.study.bank_stats import bank_stats
from bot.application.study.drill import REVIEW, Drill, Spec
from bot.application.study.error_reports import ErrorReports
from bot.application.study.exam import ExamPlans
from bot.application.study.favourites import Favourites
from bot.application.study.feed import StudyFeed
from bot.application.study.mistake_notebook import MistakeNotebook
from bot.application.study.mock_exam import Mocks
from bot.application.study.mock_exam_commands import MockExamCommands
from bot.application.study.practice import Practice
from bot.application.study.readiness import Readiness
from bot.application.study.reminders import ReviewReminders
from bot.application.study.retention import LearnerRetention
from bot.application.study.study_context import ExamMoment
from bot.domain.clock import Clock
from bot.domain.kinds import ChatRef, UserRef
from bot.locales.i18n import t
from bot.ports.charts import ChartRenderer
from bot.ports.exam_storage import ExamStore
from bot.ports.study_storage import ItemAnswerStore, ReportStore, StudyStore
from bot.views.progress import (
    ACTIVITY_DAYS,
    CHART_MOCKS,
    FORECAST_DAYS,
    chart_data,
    progress_view,
)


class StudyUseCases(ErrorReports, MistakeNotebook, Readiness, Favourites, MockExamCommands):
    """Every study command, each group in its own module; this class builds the parts they share
    and maps each catalog entry to its handler."""

    def __init__(
        self,
        quiz: Quiz,
        store: StudyStore,
        feed: StudyFeed,
        mocks: Mocks,
        reports: ReportStore,
        charts: ChartRenderer | None,
        outbox: Outbox,
        clock: Clock,
        reminders: ReviewReminders | None = None,
        owners: BankOwners | None = None,
        exams: ExamStore | None = None,
    ) -> None:
        self.quiz = quiz
        self.store = store
        self.feed = feed
        self.mocks = mocks
        self.reports = reports
        self.charts = charts
        self.outbox = outbox
        self.clock = clock
        self._versions: dict[str, str] = {}
        self.drill = Drill(quiz, store, feed)
        self.drill.days = self._days  # "due today" ends with the learner's day, as in /stats
        self.practice = Practice(quiz, store, self.drill)
        self.reminders = reminders
        self.owners = owners  # who looks after each bank (its reports' readers)
        self.exam_date: ExamMoment | None = None
        # The plan to the exam date (/exam, /settings): bot/application/study/exam.py.
        self.exams = ExamPlans(quiz, store, exams, feed, clock) if exams is not None else None
        if self.exams is not None:
            self.exam_date = self.exams.exam_moment
        # /review retention: bot/application/study/retention.py
        self.retention: LearnerRetention | None = None
        self.item_answers: ItemAnswerStore | None = None  # the question statistics' read (/bank stats)

    def handler(self, use_case: StudyUseCase, /) -> Handler:
        """The method that carries out `use_case` (every member has its case: mypy checks)."""
        match use_case:
            case StudyUseCase.PRACTISE:
                return self.practise
            case StudyUseCase.MEMORISE:
                return self.memorise
            case StudyUseCase.REVIEW_REMIND:
                return self.review_remind
            case StudyUseCase.REVIEW_RETENTION:
                return self.review_retention
            case StudyUseCase.MOCK_START:
                return self.mock_start
            case StudyUseCase.MOCK_GO:
                return self.mock_go
            case StudyUseCase.MOCK_ANSWER:
                return self.mock_answer
            case StudyUseCase.MOCK_FLAG:
                return self.mock_flag
            case StudyUseCase.MOCK_SHEET:
                return self.mock_sheet
            case StudyUseCase.MOCK_SUBMIT:
                return self.mock_submit
            case StudyUseCase.MOCK_QUIT:
                return self.mock_quit
            case StudyUseCase.MOCK_GRADE:
                return self.mock_grade
            case StudyUseCase.MOCK_REPORT:
                return self.mock_report
            case StudyUseCase.MOCK_REVIEW:
                return self.mock_review
            case StudyUseCase.MISTAKES:
                return self.mistakes
            case StudyUseCase.MISTAKES_PRACTICE:
                return self.mistakes_practice
            case StudyUseCase.MISTAKES_EXPORT:
                return self.mistakes_export
            case StudyUseCase.REVIEW:
                return self.review
            case StudyUseCase.FAVORITES:
                return self.favorites
            case StudyUseCase.FAVORITES_PRACTICE:
                return self.favorites_practice
            case StudyUseCase.FAVORITES_ADD:
                return self.favorites_add
            case StudyUseCase.FAVORITES_REMOVE:
                return self.favorites_remove
            case StudyUseCase.STATS:
                return self.stats
            case StudyUseCase.REPORT:
                return self.report
            case StudyUseCase.REPORTS_LIST:
                return self.reports_list
            case StudyUseCase.REPORTS_RESOLVE:
                return self.reports_resolve
            case StudyUseCase.REPORTS_DISMISS:
                return self.reports_dismiss
            case StudyUseCase.MISTAKES_CAUSE:
                return self.mistakes_cause
            case StudyUseCase.WEAK:
                return self.weak
            case StudyUseCase.READY:
                return self.ready
            case StudyUseCase.EXAM_SHOW:
                return self.exam_show
            case StudyUseCase.EXAM_SET:
                return self.exam_set
            case StudyUseCase.EXAM_OFF:
                return self.exam_off
            case StudyUseCase.SETTINGS_SHOW:
                return self.settings_show
            case StudyUseCase.SETTINGS_QUIET:
                return self.settings_quiet
            case StudyUseCase.SETTINGS_DAY_START:
                return self.settings_day_start
            case StudyUseCase.BANK_STATS:
                return self.bank_stats
            case _:
                no_handler(use_case)

    async def close(self) -> None:
        if self.charts is not None:
            await self.charts.close()

    # ------------------------------------------------------------ practice modes

    async def practise(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if parsed.args.get("practice") == "weak":
            return await self.weak_practice(caller.chat, self._user(caller), language)
        return await self.practice.quiz_command(parsed, caller, language)

    # ------------------------------------------------------------ mastery and readiness

    # ------------------------------------------------------------ the plan to the exam date

    def _plans(self) -> ExamPlans:
        if self.exams is None:
            raise QuizError("exam.not_running")
        return self.exams

    async def exam_show(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._plans().show(parsed, caller, language)

    async def exam_set(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._plans().set(parsed, caller, language)

    async def exam_off(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._plans().off(parsed, caller, language)

    async def settings_show(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._plans().settings_show(parsed, caller, language)

    async def settings_quiet(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._plans().settings_quiet(parsed, caller, language)

    async def settings_day_start(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._plans().settings_day_start(parsed, caller, language)

    async def memorise(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self.practice.memorise(parsed, caller, language)

    async def review_remind(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if self.reminders is None:
            raise QuizError("study.unavailable")
        return await self.reminders.command(parsed, caller, language)

    async def review_retention(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if self.retention is None:
            raise QuizError("study.unavailable")
        return await self.retention.command(parsed, caller, language)

    async def typed_answer(self, chat: ChatRef, user: UserRef, text: str) -> TextReply | None:
        """A plain typed text in `chat` answers the current item of the person's mock when one is
        open in this chat (None when not: the text is for a round, as before)."""
        language = (await self.quiz.chat(chat)).settings.language
        try:
            view = await self.mocks.typed(chat, user, text, language)
        except QuizError as exc:
            return TextReply(exc.render(language), language)
        if view is None:
            return None
        return TextReply(render_reply(Reply(view, language)), language, view=view)

    async def next_question(self, chat: ChatRef, user: UserRef, after: int | None = None) -> Reply:
        """ "Next" (the 下一题 ▶ button under round `after`'s answer, `n`, 下一题): the following
        question of the person's run."""
        return await self.drill.next(chat, user, after)

    async def pending_self_grade(self, chat: ChatRef, user: UserRef) -> int | None:
        """The person's practice round here whose answer awaits their self-grade (the latest)."""
        return await self.drill.pending_self_grade(chat, user)

    # ------------------------------------------------------------ helpers

    # ------------------------------------------------------------ mock exam

    # ------------------------------------------------------------ mistake notebook

    # ------------------------------------------------------------ spaced review

    async def review(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """The cards due now, one per "next", as a review run (the first due first)."""
        return await self.drill.start(caller.chat, self._user(caller), Spec(REVIEW), language)

    # ------------------------------------------------------------ favourites

    # ------------------------------------------------------------ progress

    async def stats(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        other = parsed.args.get("user")
        if isinstance(other, UserRef):  # someone else's plain stats, as before
            return Reply(await self.quiz.stats(ShowStats(caller.chat, other)), language)
        # In a private chat the chat's answers are the caller's own: "group" shows them as /stats.
        group = parsed.args.get("of") == "group" and not caller.private
        if group and not caller.admin:
            raise QuizError("error.not_admin")
        chat = await self.quiz.chat(caller.chat)
        bank = self.quiz.bank_for(chat)
        await self.feed.catch_up()
        if group:
            answered = await self.store.answered(None, bank.id, chat.id)
            return Reply(progress_view(language, bank, answered, group=True), language)
        user = self._user(caller)
        user_id = await self.quiz.user_id(user)
        answered = await self.store.answered(user_id, bank.id)
        days = await self._days(user_id, chat.settings.timezone)
        due = await self.store.due_by_day(user_id, bank.id, days.starts(0, FORECAST_DAYS))
        # In the reply's language, which on Discord is the caller's client's, not the channel's.
        stats = dataclasses.replace(await self.quiz.stats(ShowStats(caller.chat, user)), language=language)
        mocks = await self.mocks.store.history(user_id, CHART_MOCKS)
        view = progress_view(
            language,
            bank,
            answered,
            notebook=len(await self.store.notebook(user_id, bank.id)),
            due=due,
            streak=stats.streak,
            mocks=mocks,
            days=days,
            summary=stats,
        )
        exam = await self.exams.exams.exam(user_id, bank.id) if self.exams is not None else None
        if exam is not None:  # the countdown: days from the learner's today to the exam day
            view = dataclasses.replace(view, exam_days=(exam.on - days.today).days)
        files: tuple[FileView, ...] = ()
        if self.charts is not None:
            per_day = await self.store.answers_by_day(user_id, days.starts(1 - ACTIVITY_DAYS, ACTIVITY_DAYS))
            png = await self.charts.render(chart_data(view, days, per_day, due, mocks))
            # One picture of how things stand: a newer chart replaces it where files are kept.
            title = t(language, "progress.chart_title")
            files = (FileView("progress.png", png, title, image=True, latest=True),)
        return Reply(view, language, files=files)

    # ------------------------------------------------------------ question statistics

    async def bank_stats(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if self.item_answers is None:
            raise QuizError("study.unavailable")
        named = parsed.args.get("bank")
        return await bank_stats(self.quiz, self.item_answers, self.reports, self.owners, caller,
                                str(named) if named else None, language)  # fmt: skip

    # ------------------------------------------------------------ error reports


