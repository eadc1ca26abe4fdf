"""How ready a learner is: /weak (the weakest knowledge points, with a button to drill them) and /ready
(the predicted score and pass chance, with its chart); the model is bot/domain/readiness.py."""

from __future__ import annotations

import dataclasses

from bot.application.commands.parsing import Parsed
from bot.application.quiz_settings import QuizError
from bot.application.replies import FileView, Reply, TextView
from bot.application.requests import Caller
from bot.application.study.drill import WEAK, Spec
from bot.application.study.study_context import StudyContext
from bot.domain.kinds import ChatRef, UserRef
from bot.domain.mastery import by_type, weakest
from bot.domain.paper import paper_of
from bot.domain.questions import Bank
from bot.domain.readiness import MIN_ANSWERS, DayForecast, forecasts
from bot.locales.i18n import t
from bot.views.charts import ReadinessChart
from bot.views.progress import (
    day_label,
)
from bot.views.study import (
    ReadyView,
    WeakView,
)


class Readiness(StudyContext):
    async def weak_practice(self, chat: ChatRef, user: UserRef, language: str) -> Reply:
        """`/quiz weak` (and the button under /weak): a run over the weakest points' items."""
        user_id = await self.quiz.user_id(user)
        bank = self.quiz.bank_for(await self.quiz.chat(chat))
        await self.feed.catch_up()
        seen = await self.drill.evidence(user_id, bank)
        due = await self._due(user_id, bank, (await self.quiz.chat(chat)).settings.timezone)
        points = weakest(bank, seen, due, await self._in_notebook(user_id, bank), self.clock.now())
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

    async def _due(self, user_id: int, bank: Bank, timezone: str) -> set[str]:
        """The cards due today: by the end of the learner's day, as /stats and /review count them."""
        due_by = (await self._days(user_id, timezone)).due_by()
        return {c.question_id for c in await self.store.due_cards(user_id, bank.id, due_by, 10_000)}

    async def _in_notebook(self, user_id: int, bank: Bank) -> set[str]:
        return {m.question_id for m in await self.store.notebook(user_id, bank.id)}

    async def weak(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/weak`: the three weakest points and each type's mastery."""
        user_id, bank = await self._person(caller)
        seen = await self.drill.evidence(user_id, bank)
        timezone = (await self.quiz.chat(caller.chat)).settings.timezone
        due, notebook = await self._due(user_id, bank, timezone), await self._in_notebook(user_id, bank)
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


def _point_label(language: str, day: DayForecast) -> str:
    chance = f"{100 * day.pass_chance:.0f}%"
    return t(language, "ready.chart_point", expected=f"{day.expected:.1f}", chance=chance)
