"""Daily review reminders (`/review remind on|off`): opted into by a person, posted in their
private chat at a local time with the number of FSRS cards due, and nothing on a day with none.

One scheduler job per person, rebuilt from the database by `restore()` at start-up (as dailies
and mocks are); the post goes through the outbox, so it follows a moved chat and respects the
platform's pace. With several processes, each keeps every person's job (a change is broadcast)
and the day's reminder is the firing `remind:<user>:<date>`, claimed once.

With the exam plan running (`plans`, bot/application/study/exam.py), the reminder carries the
learner's plan for the day (posted on a day with nothing due too, when the plan has new items),
keeps out of their quiet hours (a time inside them moves to their end), and "today" is the
learner's day (their day start).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.application.commands.parsing import Parsed
from bot.application.firings import Firings
from bot.application.outbox import Outbox
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.study.feed import StudyFeed
from bot.domain.clock import Clock
from bot.domain.daily_times import local_date_of
from bot.domain.quiet_hours import quiet_end
from bot.domain.records import DailySchedule
from bot.domain.study_records import Reminder
from bot.locales.i18n import t
from bot.ports.broadcast import RESYNC, Broadcast
from bot.ports.scheduler import Scheduler
from bot.ports.study_storage import StudyStore
from bot.views.exam_text import exam_text
from bot.views.progress import LocalDays
from bot.views.quiz import notice

if TYPE_CHECKING:
    from bot.application.study.exam import ExamPlans

log = logging.getLogger("studybot.study")

DEFAULT_TIME = "09:00"
GRACE_SECONDS = 3600.0  # a reminder more than an hour late (the bot was down) is skipped


def reminder_job(user_id: int) -> str:
    return f"review-remind:{user_id}"


class ReviewReminders:
    def __init__(
        self,
        quiz: Quiz,
        store: StudyStore,
        feed: StudyFeed,
        scheduler: Scheduler,
        outbox: Outbox,
        clock: Clock,
        firings: Firings | None = None,
        broadcast: Broadcast | None = None,
    ) -> None:
        self.quiz = quiz
        self.store = store
        self.feed = feed
        self.scheduler = scheduler
        self.outbox = outbox
        self.clock = clock
        self.firings = firings or Firings()
        self.broadcast = broadcast
        self.plans: ExamPlans | None = None  # the exam plan, when it runs (bootstrap plugs it in)
        if broadcast is not None:
            broadcast.subscribe("remind", self._changed)
            broadcast.subscribe(RESYNC, self._resync)

    async def command(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if caller.user is None:
            raise QuizError("error.no_user")
        user_id = await self.quiz.user_id(caller.user)
        if parsed.args["switch"] == "off":
            await self.store.set_reminder(None, user_id)
            self.scheduler.cancel(reminder_job(user_id))
            await self._tell(user_id)
            return Reply(TextView(t(language, "review.remind_off")), language)
        chat = await self.quiz.chat(caller.chat)
        at = str(parsed.args.get("time") or DEFAULT_TIME)
        reminder = Reminder(user_id, chat.id, at, chat.settings.timezone)
        await self.store.set_reminder(reminder, user_id)
        await self._schedule(reminder)
        await self._tell(user_id)
        text = t(language, "review.remind_on", time=at, timezone=reminder.timezone)
        if self.plans is not None:  # said when the quiet hours move it
            moved = quiet_end(at, await self.plans.exams.learner_settings(user_id))
            if moved != at:
                text += "\n" + t(language, "review.remind_quiet", time=moved)
        return Reply(TextView(text), language)

    async def restore(self) -> None:
        for reminder in await self.store.reminders():
            await self._schedule(reminder)

    async def _tell(self, user_id: int) -> None:
        if self.broadcast is not None:
            await self.broadcast.publish("remind", str(user_id))

    async def _changed(self, key: str) -> None:
        """Another process switched a person's reminder on, off or to another time: follow it."""
        user_id = int(key)
        current = next((r for r in await self.store.reminders() if r.user_id == user_id), None)
        if current is None:
            self.scheduler.cancel(reminder_job(user_id))
        else:
            await self._schedule(current)

    async def reschedule(self, user_id: int) -> None:
        """The learner's settings changed (quiet hours): move their reminder, here and elsewhere."""
        await self._changed(str(user_id))
        await self._tell(user_id)

    async def _resync(self, _key: str) -> None:
        await self.restore()

    async def _schedule(self, reminder: Reminder) -> None:
        at = reminder.at_time
        if self.plans is not None:  # out of the learner's quiet hours
            at = quiet_end(at, await self.plans.exams.learner_settings(reminder.user_id))
        schedule = DailySchedule(reminder.chat_id, at, reminder.timezone, 0)

        async def fire() -> None:
            await self.remind(reminder.user_id)

        self.scheduler.daily(reminder_job(reminder.user_id), schedule, fire, GRACE_SECONDS)

    async def remind(self, user_id: int) -> int:
        """Post today's reminder to the person (when anything is due, or their exam plan has
        something for today); returns the number due."""
        current = next((r for r in await self.store.reminders() if r.user_id == user_id), None)
        if current is None:
            return 0
        chat = await self.quiz.store.get_chat(current.chat_id)
        if chat is None:
            return 0
        await self.feed.catch_up()
        bank = self.quiz.bank_for(chat)
        # Due today: by the end of the learner's day, as /stats, /review and the plan count it.
        if self.plans is not None:
            days = await self.plans.days(user_id, current.timezone)
        else:
            days = LocalDays.at(self.clock.now(), current.timezone)
        due = await self.store.due_count(user_id, bank.id, days.due_by())
        language = chat.settings.language
        told = notice("review.reminder", language, count=due)
        date = local_date_of(self.clock.now(), current.timezone)
        worth = due > 0
        if self.plans is not None:
            date = (await self.plans.days(user_id, current.timezone)).today.isoformat()
            found = await self.plans.today(user_id, bank, current.timezone)
            plan = found.plan if found is not None else None
            if found is not None and plan is not None and (plan.new or plan.reviews or due):
                key = "exam.reminder" if due else "exam.reminder_plan"  # no "0 cards due"
                told = notice(key, language, count=due, plan=exam_text(language, bank, found))
                worth = True  # a plan with new items is worth a post on a day with nothing due
        if not worth:
            return due
        async with self.quiz.store.unit_of_work():  # claimed once with the post it owes
            if not await self.firings.once(f"remind:{user_id}:{date}"):
                return 0  # another process reminded them today
            await self.outbox.owe(chat, told)
        await self.outbox.drain(chat.id)
        return due
