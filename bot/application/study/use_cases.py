"""The study commands' use cases (one method per catalog entry, found by its `StudyUseCase` in
`StudyUseCases.handler`): mock exams, the mistake notebook, spaced review, favourites, progress
and error reports.

Every read catches the study feed up first, so the person's last answer is always in what they
see. Practice questions go through the normal ask flow (a practice round in the caller's chat),
so every platform shows and grades them as any /quiz question.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.application.answering import TextReply
from bot.application.app import Handler, no_handler
from bot.application.clicks import MockClick
from bot.application.commands.catalog import StudyUseCase
from bot.application.commands.parsing import Parsed
from bot.application.outbox import Outbox
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import FileView, Reply, TextView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, ShowStats
from bot.application.study.bank_owners import BankOwners
from bot.application.study.bank_stats import bank_stats
from bot.application.study.drill import FAVOURITES, MISTAKES, REVIEW, WEAK, Drill, Spec
from bot.application.study.exam import ExamPlans
from bot.application.study.feed import StudyFeed
from bot.application.study.mock_exam import Mocks
from bot.application.study.practice import Practice, tags_of
from bot.application.study.reminders import ReviewReminders
from bot.application.study.retention import LearnerRetention
from bot.domain.clock import Clock
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.mastery import CAUSES, by_type, weakest
from bot.domain.paper import paper_of
from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.readiness import MIN_ANSWERS, DayForecast, forecasts
from bot.domain.records import Chat
from bot.domain.study_records import Report
from bot.locales.i18n import bank_text, t
from bot.ports.charts import ChartRenderer
from bot.ports.exam_storage import ExamStore
from bot.ports.study_storage import ItemAnswerStore, ReportStore, StudyStore
from bot.views.charts import ReadinessChart
from bot.views.progress import (
    ACTIVITY_DAYS,
    CHART_MOCKS,
    FORECAST_DAYS,
    LocalDays,
    chart_data,
    day_label,
    progress_view,
)
from bot.views.quiz import notice
from bot.views.study import (
    FavouritesView,
    MistakesView,
    NotebookRow,
    ReadyView,
    ReportRow,
    ReportsView,
    WeakView,
)

# A learner's exam moment (user id, bank id, the chat's time zone → UTC), when a feature keeps one
# (None: none set): /ready then forecasts up to it. Without one, /ready looks 30 days on.
ExamDate = Callable[[int, str, str], Awaitable[datetime | None]]

REPORT_LIMIT = 500
_NO_TAG = "—"


def bank_version(bank: Bank) -> str:
    """A content hash of the bank's questions: which text a report was made against."""
    digest = hashlib.sha256(repr((bank.id, bank.questions)).encode())
    return digest.hexdigest()[:12]


def question_hash(question: Question) -> str:
    """A content hash of one item: whether the text a report was made against has changed since."""
    return hashlib.sha256(repr(question).encode()).hexdigest()[:12]


class StudyUseCases:
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
        self.practice = Practice(quiz, store, self.drill)
        self.reminders = reminders
        self.owners = owners  # who looks after each bank (its reports' readers)
        self.exam_date: ExamDate | None = None
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

    async def weak_practice(self, chat: ChatRef, user: UserRef, language: str) -> Reply:
        """`/quiz weak` (and the button under /weak): a run over the weakest points' items."""
        user_id = await self.quiz.user_id(user)
        bank = self.quiz.bank_for(await self.quiz.chat(chat))
        await self.feed.catch_up()
        seen = await self.drill.evidence(user_id, bank)
        points = weakest(bank, seen, await self._due(user_id, bank), await self._in_notebook(user_id, bank),
                         self.clock.now())  # fmt: skip
        if not points:
            raise QuizError("weak.empty")
        return await self.drill.start(chat, user, Spec(WEAK, tags=tuple(p.name for p in points)), language)

    async def weak_click(self, chat: ChatRef, user: UserRef) -> Reply:
        """The "practise these" button under /weak: the clicker's own weak points, in this chat
        (it names nobody's data but the clicker's: nothing in it can be forged to reach another's)."""
        language = (await self.quiz.chat(chat)).settings.language
        try:
            return await self.weak_practice(chat, user, language)
        except QuizError as exc:
            return Reply(TextView(exc.render(language)), language)

    async def _due(self, user_id: int, bank: Bank) -> set[str]:
        return {c.question_id for c in await self.store.due_cards(user_id, bank.id, self.clock.now(), 10_000)}

    async def _in_notebook(self, user_id: int, bank: Bank) -> set[str]:
        return {m.question_id for m in await self.store.notebook(user_id, bank.id)}

    async def weak(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/weak`: the three weakest points and each type's mastery."""
        user_id, bank = await self._person(caller)
        seen = await self.drill.evidence(user_id, bank)
        due, notebook = await self._due(user_id, bank), await self._in_notebook(user_id, bank)
        now = self.clock.now()
        view = WeakView(language, tuple(weakest(bank, seen, due, notebook, now)),
                        tuple(by_type(bank, seen, due, notebook, now)), seen.answers)  # fmt: skip
        return Reply(view, language)

    async def ready(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/ready`: the predicted score and pass chance today (and on the exam date), with its
        chart; below MIN_ANSWERS answers, only how many more it needs."""
        user_id, bank = await self._person(caller)
        chat = await self.quiz.chat(caller.chat)
        seen = await self.drill.evidence(user_id, bank)
        paper = paper_of(bank)
        total = sum(min(s.count, sum(1 for q in bank.questions if q.type is s.type)) * s.points
                    for s in paper.sections)  # fmt: skip
        unseen = sum(1 for q in bank.questions if not seen.grades.get(q.id) and q.id not in seen.cards)
        base = ReadyView(language, seen.answers, max(0, MIN_ANSWERS - seen.answers), MIN_ANSWERS, total,
                         paper.pass_mark, seen.prior.mean, unseen)  # fmt: skip
        if base.needed:
            return Reply(base, language)
        exam = None
        if self.exam_date is not None:
            exam = await self.exam_date(user_id, bank.id, chat.settings.timezone)
        now = self.clock.now()
        exam = exam if exam is not None and exam > now else None
        days = forecasts(bank, paper, seen, now, exam)
        days_of = await self._days(user_id, chat.settings.timezone)
        view = dataclasses.replace(
            base, today=days[0], exam=days[-1] if exam is not None else None,
            exam_day=day_label(language, days_of.local_date(exam)) if exam is not None else "",
        )  # fmt: skip
        files: tuple[FileView, ...] = ()
        if self.charts is not None:
            chart = ReadinessChart(
                language=language, title=t(language, "ready.chart_title"),
                subtitle=t(language, "ready.chart_subtitle", count=seen.answers),
                days=tuple(day_label(language, days_of.local_date(d.at)) for d in days),
                expected=tuple(d.expected for d in days), low=tuple(d.low for d in days),
                high=tuple(d.high for d in days), total=total, pass_mark=paper.pass_mark,
                expected_legend=t(language, "ready.chart_expected"),
                band_legend=t(language, "ready.chart_band"),
                pass_legend=t(language, "ready.chart_pass"), score_label=t(language, "ready.chart_score"),
                first_label=_point_label(language, days[0]), last_label=_point_label(language, days[-1]),
            )  # fmt: skip
            png = await self.charts.render(chart)
            files = (FileView("ready.png", png, t(language, "ready.chart_title"), image=True, latest=True),)
        return Reply(view, language, files=files)

    # ------------------------------------------------------------ the plan to the exam date

    def _plans(self) -> ExamPlans:
        if self.exams is None:
            raise QuizError("exam.not_running")
        return self.exams

    async def _days(self, user_id: int, timezone: str) -> LocalDays:
        """The learner's days: their chat's time zone and, with the exam plan running, their day start."""
        if self.exams is None:
            return LocalDays.at(self.clock.now(), timezone)
        return await self.exams.days(user_id, timezone)

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

    async def cause_click(self, chat: ChatRef, user: UserRef, question_id: str, cause: str) -> TextReply:
        """A cause button under a wrong answer's reveal: the clicker's cause of that mistake."""
        language = (await self.quiz.chat(chat)).settings.language
        try:
            reply = await self._set_cause(Caller(chat, user), question_id, cause, language)
        except QuizError as exc:
            return TextReply(exc.render(language), language)
        return TextReply(render_reply(reply), reply.language)

    async def _set_cause(self, caller: Caller, question_id: str, cause: str, language: str) -> Reply:
        if cause not in CAUSES:
            raise QuizError("cause.unknown")
        user_id, bank = await self._person(caller)
        question = bank.question(question_id)
        key = (user_id, bank.id, question_id)
        entry = (await self.store.mistakes([key])).get(key)
        if entry is None or not entry.active:
            raise QuizError("cause.not_in_notebook", number=question.number)
        await self.store.set_mistake_cause(user_id, bank.id, question_id, cause, self.clock.now())
        said = t(language, "cause.set", number=question.number, cause=t(language, f"cause.{cause}"))
        return Reply(TextView(said), language)

    async def mistakes_cause(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/mistakes cause [N] CAUSE`: the same as the reveal's cause buttons, typed (the console
        has no buttons): question N, else the question last asked in this chat."""
        number = self._number(parsed)
        if number is not None:
            question_id = (await self._by_number(caller, number)).id
        else:
            chat = await self.quiz.chat(caller.chat)
            last = await self.quiz.store.last_round(chat.id)
            if last is None or last.bank_id != self.quiz.bank_for(chat).id:
                raise QuizError("cause.no_question")
            question_id = last.question_id
        return await self._set_cause(caller, question_id, str(parsed.args.get("cause")), language)

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

    async def favourite_click(self, chat: ChatRef, user: UserRef, question_id: str) -> TextReply:
        """The ☆ under a question or reveal: star that question for the clicker."""
        reply = await self.favourite(Caller(chat, user), question_id, True)
        return TextReply(render_reply(reply), reply.language)

    # ------------------------------------------------------------ helpers

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

    # ------------------------------------------------------------ mock exam

    async def mock_start(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        bank = parsed.args.get("bank")
        view = await self.mocks.start(
            caller.chat, self._user(caller), str(bank) if bank else None, language,
            ordered=parsed.args.get("order") == "ordered",
        )  # fmt: skip
        return Reply(view, language)

    async def mock_go(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.show(self._user(caller), self._number(parsed), language), language)

    async def mock_answer(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        response = parsed.args.get("response")
        if response is None:  # "/mock 6": go to item 6
            return await self.mock_go(parsed, caller, language)
        view = await self.mocks.answer(self._user(caller), self._number(parsed), str(response), language)
        return Reply(view, language)

    async def mock_flag(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.flag(self._user(caller), self._number(parsed), language), language)

    async def mock_sheet(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.sheet(self._user(caller), language), language)

    async def mock_submit(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        confirmed = parsed.args.get("confirm") == "confirm"
        view = await self.mocks.submit(self._user(caller), language, confirmed=confirmed)
        if view is None:  # nothing answered: no result
            return Reply(TextView(t(language, "mock.empty_hand_in")), language)
        return Reply(view, language)

    async def mock_quit(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        await self.mocks.quit(self._user(caller))
        return Reply(TextView(t(language, "mock.quit")), language)

    async def mock_grade(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        number = self._number(parsed) or 0
        view = await self.mocks.self_grade(self._user(caller), number, str(parsed.args["level"]), language)
        return Reply(view, language)

    async def mock_report(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.last_report(self._user(caller), language), language)

    async def mock_review(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.review(self._user(caller), self._number(parsed), language), language)

    async def mock_click(self, chat: ChatRef, user: UserRef, click: MockClick) -> Reply:
        """A mock button (bot/application/clicks.py), in the chat's language; a refused click is a
        sentence and changes nothing."""
        language = (await self.quiz.chat(chat)).settings.language
        try:
            view = await self.mocks.click(chat, user, click, language)
        except QuizError as exc:
            return Reply(TextView(exc.render(language)), language)
        if view is None:
            return Reply(TextView(t(language, "mock.button_refused")), language)
        return Reply(view, language)

    # ------------------------------------------------------------ mistake notebook

    async def _notebook(self, caller: Caller, tag: str | None) -> tuple[Bank, list[tuple[Question, int]]]:
        user_id, bank = await self._person(caller)
        by_id = {q.id: q for q in bank.questions}
        entries = [
            (by_id[m.question_id], m.misses)
            for m in await self.store.notebook(user_id, bank.id)
            if m.question_id in by_id
        ]
        if tag:
            entries = [(q, n) for q, n in entries if tag in q.tags]
        return bank, entries

    async def mistakes(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """The notebook by tag and type, each entry with its cause; `/mistakes 粗心` (a cause's
        name in any language) lists the entries of that cause, `/mistakes ml` those of a tag."""
        tag = parsed.args.get("tag")
        cause_filter = _cause_named(str(tag)) if tag else None
        _, entries = await self._notebook(caller, str(tag) if tag and cause_filter is None else None)
        user_id, bank = await self._person(caller)
        causes = await self.store.mistake_causes(user_id, bank.id)
        if cause_filter is not None:
            entries = [(q, n) for q, n in entries if causes.get(q.id, "") == cause_filter]
        groups: dict[tuple[str, QuestionType], list[NotebookRow]] = defaultdict(list)
        for question, misses in entries:
            key = (question.tags[0] if question.tags else _NO_TAG, question.type)
            stem, cause = bank_text(language, question.stem), causes.get(question.id, "")
            groups[key].append(NotebookRow(question.number, question.type, stem, misses, cause))
        ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], list(QuestionType).index(kv[0][1])))
        tally = Counter(causes.get(q.id, "") for q, _ in entries)
        by_cause = tuple((c, tally[c]) for c in (*CAUSES, "") if tally[c])
        view = MistakesView(
            language,
            tuple((tag_, qtype, tuple(sorted(rows, key=_by_cause))) for (tag_, qtype), rows in ordered),
            len(entries),
            self.feed.graduate_after,
            by_cause,
        )
        return Reply(view, language)

    async def mistakes_practice(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        spec = Spec(MISTAKES, tags=tags_of(parsed.args.get("tag")))
        return await self.drill.start(caller.chat, self._user(caller), spec, language)

    async def mistakes_export(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        bank, entries = await self._notebook(caller, None)
        if not entries:
            raise QuizError("mistakes.empty")
        header = [
            t(language, f"export.{c}")
            for c in ("number", "type", "tags", "misses", "stem", "answer", "explanation")
        ]
        rows = [
            [
                str(q.number),
                t(language, f"type.{q.type}"),
                " ".join(q.tags),
                str(n),
                bank_text(language, q.stem),
                _answer_text(q, language),
                bank_text(language, q.explanation),
            ]
            for q, n in entries
        ]
        out = io.StringIO()
        csv.writer(out).writerows([header, *rows])
        lines = [f"# {t(language, 'mistakes.title')} — {bank_text(language, bank.title)}", ""]
        for row in rows:
            lines += [
                f"## {row[0]}. {row[4]}",
                "",
                f"- {header[1]}: {row[1]}",
                f"- {header[3]}: {row[3]}",
                f"- {header[5]}: {row[5]}",
            ]
            if row[6]:
                lines.append(f"- {header[6]}: {row[6]}")
            lines.append("")
        files = (
            FileView("mistakes.csv", ("\ufeff" + out.getvalue()).encode("utf-8")),  # BOM: Excel reads UTF-8
            FileView("mistakes.md", "\n".join(lines).encode("utf-8")),
        )
        return Reply(TextView(t(language, "mistakes.exported", count=len(rows))), language, files=files)

    # ------------------------------------------------------------ spaced review

    async def review(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """The cards due now, one per "next", as a review run (the first due first)."""
        return await self.drill.start(caller.chat, self._user(caller), Spec(REVIEW), language)

    # ------------------------------------------------------------ favourites

    async def favourite(self, caller: Caller, question_id: str, on: bool) -> Reply:
        """Star or unstar a question of the chat's bank (the ☆ button on questions and reveals)."""
        user_id, bank = await self._person(caller)
        language = (await self.quiz.chat(caller.chat)).settings.language
        try:
            question = bank.question(question_id)
        except KeyError:
            raise QuizError("favorites.unknown", number=question_id) from None
        await self.store.set_favourite(user_id, bank.id, question.id, on, self.clock.now())
        key = "favorites.added" if on else "favorites.removed"
        return Reply(TextView(t(language, key, number=question.number)), language)

    async def _by_number(self, caller: Caller, number: int | None) -> Question:
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        found = next((q for q in bank.questions if q.number == number), None)
        if found is None:
            raise QuizError("favorites.unknown", number=number)
        return found

    async def favorites_add(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        question = await self._by_number(caller, self._number(parsed))
        return await self.favourite(caller, question.id, True)

    async def favorites_remove(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        question = await self._by_number(caller, self._number(parsed))
        return await self.favourite(caller, question.id, False)

    async def favorites(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        user_id, bank = await self._person(caller)
        by_id = {q.id: q for q in bank.questions}
        rows = tuple(
            (by_id[i].number, by_id[i].type, bank_text(language, by_id[i].stem))
            for i in await self.store.favourites(user_id, bank.id)
            if i in by_id
        )
        return Reply(FavouritesView(language, rows), language)

    async def favorites_practice(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self.drill.start(caller.chat, self._user(caller), Spec(FAVOURITES), language)

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

    async def report(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """File a report on question N (`/report N reason`: N as the learner sees it, the mock's
        item number during a mock in this chat), else on the question last shown; its owners
        (bot/application/study/bank_owners.py) are told in private."""
        text = str(parsed.args.get("text") or "").strip()
        if not text:
            raise QuizError("report.empty")
        if len(text) > REPORT_LIMIT:
            raise QuizError("report.too_long", limit=REPORT_LIMIT, length=len(text))
        user = self._user(caller)
        user_id = await self.quiz.user_id(user)
        chat = await self.quiz.chat(caller.chat)
        given = self._number(parsed)
        target = await self._reported(user_id, chat, given)
        if target is None or target[0] not in self.quiz.banks:
            raise QuizError("report.no_question")
        bank = self.quiz.banks[target[0]]
        version = self._versions.setdefault(bank.id, bank_version(bank))
        item = bank.question(target[1])
        report_id = await self.reports.add_report(
            Report(0, user_id, chat.id, bank.id, version, target[1], text, self.clock.now(),
                   question_hash=question_hash(item), message_ref=caller.message_ref)
        )  # fmt: skip
        await self._tell_owners(bank, item.number, report_id, user, chat, text)
        # The number as the reporter gave it (a mock's item number), else the bank's.
        shown = given if given is not None else item.number
        return Reply(TextView(t(language, "report.thanks", id=report_id, number=shown)), language)

    async def _reported(self, user_id: int, chat: Chat, number: int | None) -> tuple[str, str] | None:
        """(bank id, question id) a report is about: item `number` when given (refused when there
        is none), else the open mock's current item or the chat's last question."""
        mock = await self.mocks.store.open_mock(user_id)
        if number is not None:
            if mock is not None and mock.chat_id == chat.id:  # the numbers the mock shows
                if not 1 <= number <= len(mock.items):
                    raise QuizError("report.no_such_number", number=number, first=1, last=len(mock.items))
                return mock.bank_id, mock.items[number - 1].question_id
            bank = self.quiz.bank_for(chat)
            found = next((q for q in bank.questions if q.number == number), None)
            if found is None:
                numbers = [q.number for q in bank.questions] or [0]
                raise QuizError("report.no_such_number", number=number, first=min(numbers), last=max(numbers))
            return bank.id, found.id
        if mock is not None:
            return mock.bank_id, mock.items[mock.position].question_id
        last = await self.quiz.store.last_round(chat.id)
        return (last.bank_id, last.question_id) if last is not None else None

    async def _tell_owners(
        self, bank: Bank, number: int, report_id: int, reporter: UserRef, chat: Chat, text: str
    ) -> None:
        """A private notice of a new report to each owner of its bank (but the reporter), in
        their private chat on their platform, through the outbox."""
        if self.owners is None:
            return
        for person in self.owners.notified(bank.id):
            if (person.platform, person.user_key) == (str(reporter.platform), reporter.user_key):
                continue
            owner_chat = await self.quiz.chat(self._private_chat(person.platform, person.user_key))
            lang = owner_chat.settings.language
            where = chat.ref.title if chat.ref.kind is not ChatKind.PRIVATE and chat.ref.title else None
            await self.outbox.post_notice(
                owner_chat,
                notice(
                    "report.owner_notice" if where else "report.owner_notice_private", lang,
                    id=report_id, number=number, bank=bank_text(lang, bank.title),
                    reporter=reporter.display_name, chat=where or "", text=text,
                ),
            )  # fmt: skip

    def _private_chat(self, platform: str, user_key: str) -> ChatRef:
        """A person's private chat with the bot, as their platform's adapter names it (Telegram:
        the person's id; Discord: a DM it opens when it first posts there)."""
        port = self.outbox.ports.get(platform)
        private_key = getattr(port, "private_chat_key", None)  # optional on a ChatPort
        key = private_key(user_key) if callable(private_key) else user_key
        return ChatRef(Platform(platform), str(key), ChatKind.PRIVATE)

    async def _scope(self, caller: Caller) -> tuple[int | None, tuple[str, str] | None, list[str]]:
        """Which reports an admin looks after: in a group, those made there (on a platform with
        servers, in any channel of the server); and those on the banks they own (from any chat).
        In a private chat only the latter: a person is their own chat's admin, not a bank's."""
        chat = await self.quiz.chat(caller.chat)
        banks = self.owners.banks_of(caller) if self.owners is not None else []
        if caller.private:
            return None, None, banks
        guild = caller.chat.guild_key
        return chat.id, (str(caller.chat.platform), guild) if guild is not None else None, banks

    async def reports_list(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        rows = []
        chat_id, guild, banks = await self._scope(caller)
        found = (
            await self.reports.open_reports(chat_id=chat_id, guild=guild, of_banks=banks)
            if chat_id is not None or banks
            else []
        )
        for report in found:
            bank = self.quiz.banks.get(report.bank_id)
            number = next((q.number for q in bank.questions if q.id == report.question_id), 0) if bank else 0
            rows.append(
                ReportRow(
                    report.id,
                    number,
                    report.question_id,
                    report.reporter,
                    report.text,
                    report.created_at.date().isoformat(),
                )
            )
        return Reply(ReportsView(language, tuple(rows)), language)

    async def reports_resolve(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._close_report(parsed, caller, language, "resolved")

    async def reports_dismiss(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._close_report(parsed, caller, language, "dismissed")

    async def _close_report(self, parsed: Parsed, caller: Caller, language: str, state: str) -> Reply:
        report_id = int(str(parsed.args["id"]))
        note = str(parsed.args.get("note") or "").strip()[:REPORT_LIMIT]
        report = await self.reports.get_report(report_id)
        chat = await self.quiz.store.get_chat(report.chat_id) if report is not None else None
        chat_id, guild, banks = await self._scope(caller)
        in_scope = report is not None and (report.bank_id in banks or (chat is not None and (
            chat.id == chat_id or (guild is not None and chat.ref.guild_key == guild[1]
                                   and str(chat.ref.platform) == guild[0])
        )))  # fmt: skip
        if (
            report is None
            or not in_scope
            or not await self.reports.close_report(report_id, state, note, self.clock.now())
        ):
            raise QuizError("reports.not_open", id=report_id)
        # The reporter hears back where they reported (a chat the bot can always post to), named,
        # in answer to their report where the platform can answer a message.
        if chat is not None:
            bank = self.quiz.banks.get(report.bank_id)
            number = next((q.number for q in bank.questions if q.id == report.question_id), 0) if bank else 0
            told = notice(
                f"report.{state}_named", chat.settings.language, id=report_id, number=number,
                note=note or "—", name=report.reporter or "—",
            )  # fmt: skip
            await self.outbox.post_notice(chat, dataclasses.replace(told, reply_to=report.message_ref))
        return Reply(TextView(t(language, f"reports.{state}", id=report_id)), language)


def _point_label(language: str, day: DayForecast) -> str:
    chance = f"{100 * day.pass_chance:.0f}%"
    return t(language, "ready.chart_point", expected=f"{day.expected:.1f}", chance=chance)


def _by_cause(row: NotebookRow) -> tuple[int, int]:
    """Within a group: tagged causes in their order, untagged last; then as listed."""
    return (CAUSES.index(row.cause) if row.cause in CAUSES else len(CAUSES), 0)


def _cause_named(word: str) -> str | None:
    """The cause a word names (its key, or its name in any catalog language), else None."""
    from bot.locales.i18n import LANGUAGES

    folded = word.strip().casefold()
    for cause in CAUSES:
        if folded == cause or any(folded == t(lang, f"cause.{cause}").casefold() for lang in LANGUAGES):
            return cause
    return None


def _answer_text(question: Question, language: str) -> str:
    from bot.application.presenting import correct_label

    return correct_label(question, language)
