"""The exam plan's commands: `/exam YYYY-MM-DD [time a day]`, `/exam off`, `/exam` (the date and
today's plan), and the learner's own settings `/settings` (quiet hours, the hour their day
starts). The plan itself is bot/domain/exam_plan.py; this module reads what it needs, works out
the learner's days (their chat's time zone and their day start) and words the result.

The exam is on the chat's bank, per learner: the moment it is counted at is the start of the
exam day in the learner's days (what they remember when they walk in).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import date, datetime, time

from bot.application.commands.parsing import Parsed
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.study.feed import StudyFeed
from bot.domain.clock import Clock
from bot.domain.daily_times import parse_local_time
from bot.domain.exam_plan import item_minutes, plan_day
from bot.domain.exam_records import ExamDate, LearnerSettings
from bot.domain.questions import Bank
from bot.locales.i18n import t
from bot.ports.exam_storage import ExamStore
from bot.ports.study_storage import StudyStore
from bot.views.exam_text import ExamToday, exam_text, settings_text
from bot.views.progress import LocalDays, day_label

MAX_DAYS_AHEAD = 3 * 366  # an exam further out than this is a typo
LATEST_DAY_START = time(12, 0)  # a day that starts after noon is no day


class ExamPlans:
    def __init__(
        self, quiz: Quiz, store: StudyStore, exams: ExamStore, feed: StudyFeed, clock: Clock
    ) -> None:
        self.quiz = quiz
        self.store = store
        self.exams = exams
        self.feed = feed
        self.clock = clock
        # Told when a learner's settings change (the reminders move out of quiet hours).
        self.settings_changed: list[Callable[[int], Awaitable[None]]] = []

    # ------------------------------------------------------------ the learner's days

    async def days(self, user_id: int, timezone: str) -> LocalDays:
        settings = await self.exams.learner_settings(user_id)
        return LocalDays.at(self.clock.now(), timezone, parse_local_time(settings.day_start))

    async def exam_moment(self, user_id: int, bank_id: str, timezone: str) -> datetime | None:
        """When the learner's exam on the bank counts (its day's start), None without one."""
        exam = await self.exams.exam(user_id, bank_id)
        if exam is None:
            return None
        days = await self.days(user_id, timezone)
        return days.start((exam.on - days.today).days)

    async def today(self, user_id: int, bank: Bank, timezone: str) -> ExamToday | None:
        """The learner's exam on `bank` and today's plan for it (None: no exam set)."""
        exam = await self.exams.exam(user_id, bank.id)
        if exam is None:
            return None
        days = await self.days(user_id, timezone)
        left = (exam.on - days.today).days
        if left <= 0:
            return ExamToday(exam, days, left, None)
        await self.feed.catch_up()
        keys = [(user_id, bank.id, q.id) for q in bank.questions]
        cards = {key[2]: card for key, card in (await self.store.cards(keys)).items()}
        times = await self.exams.answer_times(user_id, bank.id)
        answered = {question_id for question_id, _, _ in times}
        # In the order /quiz next serves them: from the learner's place in the bank, round to its start.
        place = await self.store.practice_position(user_id, bank.id)
        ahead = sorted((q for q in bank.questions if q.id not in cards and q.id not in answered),
                       key=lambda q: (q.number <= place, q.number))  # fmt: skip
        unseen = [q.id for q in ahead]
        # Two FSRS steps per candidate card: ~35 ms for 2,000 cards (benchmarks/exam_plan.py),
        # so in a thread, as bank decoding is, and the loop goes on serving others meanwhile.
        plan = await asyncio.to_thread(functools.partial(
            plan_day, now=self.clock.now(), day_start=days.start(0), day_end=days.start(1),
            exam_at=days.start(left), days_left=left, unseen=unseen, cards=list(cards.values()),
            minutes=item_minutes(bank.questions, ((q, s) for q, _, s in times)),
            budget=float(exam.minutes) if exam.minutes is not None else None,
        ))  # fmt: skip
        return ExamToday(exam, days, left, plan)

    # ------------------------------------------------------------ commands

    async def _person(self, caller: Caller) -> tuple[int, Bank, str]:
        if caller.user is None:
            raise QuizError("error.no_user")
        user_id = await self.quiz.user_id(caller.user)
        chat = await self.quiz.chat(caller.chat)
        return user_id, self.quiz.bank_for(chat), chat.settings.timezone

    async def show(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/exam`: the date, the countdown and today's plan."""
        user_id, bank, timezone = await self._person(caller)
        found = await self.today(user_id, bank, timezone)
        if found is None:
            return Reply(TextView(t(language, "exam.none")), language)
        return Reply(TextView(exam_text(language, bank, found)), language)

    async def set(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/exam 2026-12-20 [30min]`: the exam date (a day after today, within three years)."""
        user_id, bank, timezone = await self._person(caller)
        on = parsed.args["date"]
        assert isinstance(on, date)
        budget = parsed.args.get("budget")
        days = await self.days(user_id, timezone)
        if on <= days.today:
            raise QuizError("exam.not_ahead", today=day_label(language, days.today))
        if (on - days.today).days > MAX_DAYS_AHEAD:
            raise QuizError("exam.too_far", years=MAX_DAYS_AHEAD // 366)
        await self.exams.set_exam(ExamDate(user_id, bank.id, on, budget if isinstance(budget, int) else None),
                                  self.clock.now())  # fmt: skip
        found = await self.today(user_id, bank, timezone)
        assert found is not None
        return Reply(TextView(t(language, "exam.set") + "\n" + exam_text(language, bank, found)), language)

    async def off(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        user_id, bank, _ = await self._person(caller)
        key = "exam.off" if await self.exams.clear_exam(user_id, bank.id) else "exam.none"
        return Reply(TextView(t(language, key)), language)

    async def settings_show(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        user_id, _, _ = await self._person(caller)
        return Reply(TextView(settings_text(language, await self.exams.learner_settings(user_id))), language)

    async def settings_quiet(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/settings quiet 22:30 07:00` (from, until; may wrap midnight), `/settings quiet off`."""
        user_id, _, _ = await self._person(caller)
        current = await self.exams.learner_settings(user_id)
        if parsed.args.get("quiet") == "off":
            changed = replace(current, quiet_from=None, quiet_until=None)
        else:
            start, until = parsed.args.get("quiet_from"), parsed.args.get("quiet_until")
            if not isinstance(start, str) or not isinstance(until, str):
                raise QuizError("settings.quiet_needs_two")
            if parse_local_time(start) == parse_local_time(until):
                raise QuizError("settings.quiet_empty")
            changed = replace(current, quiet_from=start, quiet_until=until)
        return await self._save(changed, language)

    async def settings_day_start(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/settings daystart 04:00`: when the learner's day begins (midnight to noon)."""
        user_id, _, _ = await self._person(caller)
        at = str(parsed.args["day_start"])
        if parse_local_time(at) > LATEST_DAY_START:
            raise QuizError("settings.day_start_range", latest=LATEST_DAY_START.strftime("%H:%M"))
        current = await self.exams.learner_settings(user_id)
        return await self._save(replace(current, day_start=parse_local_time(at).strftime("%H:%M")), language)

    async def _save(self, settings: LearnerSettings, language: str) -> Reply:
        await self.exams.set_learner_settings(settings)
        for listener in self.settings_changed:
            await listener(settings.user_id)
        return Reply(
            TextView(t(language, "settings.saved") + "\n" + settings_text(language, settings)), language
        )
