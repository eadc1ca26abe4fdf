"""Daily questions: per-chat schedules, posting, the reveal at the deadline, and start-up recovery.

The database holds the schedules and open rounds; `restore()` rebuilds every scheduler job from
it, closes rounds whose deadline passed while the bot was down and returns the dailies missed
less late than the grace period, which `post_missed()` posts. A UNIQUE(chat, date) key means no chat
ever gets the same date's daily twice, even if two processes race.

With several processes on one database every process keeps every daily job (a schedule set in
one is broadcast to the others) and all fire together: each chat's daily is claimed as the firing
`daily:<chat>:<date>` in the unit of work that opens it, so one process posts it, and the chats
are split between the live processes as they go. A deadline is closed by the process that
opened the round, or, if it died, by any process's overdue sweep; closing is once by the round's
state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from bot.application.firings import AlreadyFired, Firings
from bot.application.outbox import Outbox
from bot.application.presenting import tag_label
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError, no_questions
from bot.application.store_faults import log_failure
from bot.domain.clock import Clock, zone
from bot.domain.daily_times import last_occurrence, local_date_of, next_occurrence, parse_local_time
from bot.domain.kinds import AnswerMode, ChatRef, RoundKind
from bot.domain.next_question import typed_tag
from bot.domain.question_types import TYPES
from bot.domain.records import Chat, DailySchedule, Round
from bot.ports.broadcast import RESYNC, Broadcast
from bot.ports.scheduler import Scheduler
from bot.ports.storage import DailyStore, DuplicateDaily
from bot.views.quiz import DailyView

log = logging.getLogger("studybot.daily")

SWEEP_JOB = "sweep:practice"
# One reaction answers: the types whose press is the answer (each type says).
REACTION_TYPES = tuple(qtype for qtype, rules in TYPES.items() if rules.one_press)
# Thousands of dailies due at one minute open and post a few at a time (the pacer is the
# bottleneck anyway), instead of thousands of half-done tasks holding memory.
POSTERS = 64
OVERDUE_SLACK = timedelta(seconds=2)  # the round's own timer normally closes it; the sweep after

# Chats whose dailies share a time, zone and weekdays share one scheduler job.
TimeKey = tuple[str, str, tuple[int, ...]]


def close_job_id(round_id: int) -> str:
    return f"close:{round_id}"


def daily_job_id(key: TimeKey) -> str:
    local_time, timezone, weekdays = key
    return f"daily:{local_time}:{timezone}:{''.join(map(str, weekdays))}"


def time_key(schedule: DailySchedule) -> TimeKey:
    return (schedule.local_time, schedule.timezone, schedule.weekdays)


class Dailies:
    def __init__(
        self,
        quiz: Quiz,
        store: DailyStore,
        scheduler: Scheduler,
        outbox: Outbox,
        clock: Clock,
        *,
        default_time: str = "09:00",
        default_deadline: int = 12 * 3600,
        grace_seconds: float = 3600,
        firings: Firings | None = None,
        broadcast: Broadcast | None = None,
        spread: bool = False,
    ) -> None:
        self.quiz = quiz
        self.store = store
        self.scheduler = scheduler
        self.outbox = outbox
        self.clock = clock
        self.default_time = default_time
        self.default_deadline = default_deadline
        self.grace_seconds = grace_seconds
        # One job per distinct daily time, not per chat: 10,000 chats at 09:00 are one job, so
        # the scheduler does not process 10,000 due jobs in one go (a second-long loop stall).
        self._chats_at: dict[TimeKey, set[int]] = {}
        self._time_of: dict[int, TimeKey] = {}
        self.firings = firings or Firings()
        self.broadcast = broadcast
        # Several processes fire together: each starts at its own place in the list of chats, so
        # they seldom reach for the same chat at once.
        self.spread = spread
        if broadcast is not None:
            broadcast.subscribe("daily", self._daily_changed)
            broadcast.subscribe(RESYNC, self._resync)

    # ------------------------------------------------------------ commands

    async def set_daily(
        self,
        ref: ChatRef,
        local_time: str | None = None,
        *,
        timezone: str | None = None,
        deadline_seconds: int | None = None,
        weekdays: tuple[int, ...] | None = None,
        tag: str | None = None,
        mode: AnswerMode | None = None,
    ) -> DailyView:
        chat = await self.quiz.chat(ref)
        current = await self.store.get_daily(chat.id)
        try:
            if local_time is not None:
                parse_local_time(local_time)
            if timezone is not None:
                zone(timezone)
        except ValueError as exc:
            raise QuizError("error.bad_args", detail=str(exc)) from None
        if tag:  # kept as the slug: a display name may change with the bank
            bank = self.quiz.bank_for(chat)
            if typed_tag(bank, tag) not in bank.tags:
                raise no_questions(tag)
            tag = typed_tag(bank, tag)
        if timezone and timezone != chat.settings.timezone:
            chat = await self.quiz.update_settings(ref, timezone=timezone)
        base = current or DailySchedule(
            chat_id=chat.id,
            local_time=self.default_time,
            timezone=chat.settings.timezone,
            deadline_seconds=self.default_deadline,
        )
        schedule = replace(
            base,
            local_time=local_time or base.local_time,
            timezone=chat.settings.timezone,
            deadline_seconds=deadline_seconds or base.deadline_seconds,
            weekdays=weekdays or base.weekdays,
            tag=tag if tag is not None else base.tag,
            mode=mode or base.mode,
            enabled=True,
            since=self.clock.now(),
        )
        await self.store.save_daily(schedule)
        self._schedule(schedule)
        await self._tell(chat.id)
        log.info("daily for chat %s set: %s %s", chat.id, schedule.local_time, schedule.timezone)
        return self._view(schedule, chat)

    async def set_timezone(self, ref: ChatRef, timezone: str) -> None:
        """Set the chat's timezone; its daily, if on, moves with it (same local time)."""
        chat = await self.quiz.update_settings(ref, timezone=timezone)
        current = await self.store.get_daily(chat.id)
        if current is not None and current.enabled:
            await self.set_daily(ref)

    async def disable(self, ref: ChatRef) -> DailyView | None:
        chat = await self.quiz.chat(ref)
        current = await self.store.get_daily(chat.id)
        if current is None:
            return None
        schedule = replace(current, enabled=False, since=self.clock.now())
        await self.store.save_daily(schedule)
        self._unschedule(chat.id)
        await self._tell(chat.id)
        return self._view(schedule, chat)

    async def show(self, ref: ChatRef) -> DailyView | None:
        chat = await self.quiz.chat(ref)
        current = await self.store.get_daily(chat.id)
        return self._view(current, chat) if current else None

    def _view(self, schedule: DailySchedule, chat: Chat) -> DailyView:
        language = chat.settings.language
        # The tag by its display name, as the chat reads the bank's text.
        tag = tag_label(language, self.quiz.bank_for(chat), schedule.tag) if schedule.tag else None
        return DailyView(
            enabled=schedule.enabled,
            local_time=schedule.local_time,
            timezone=schedule.timezone,
            deadline_seconds=schedule.deadline_seconds,
            weekdays=schedule.weekdays,
            tag=tag,
            mode=str(schedule.mode),
            next_post=next_occurrence(schedule, self.clock.now()) if schedule.enabled else None,
            language=language,
        )

    # ------------------------------------------------------------ other processes

    async def _tell(self, chat_id: int) -> None:
        if self.broadcast is not None:
            await self.broadcast.publish("daily", str(chat_id))

    async def _daily_changed(self, key: str) -> None:
        """Another process set or switched off a chat's daily: follow it here."""
        schedule = await self.store.get_daily(int(key))
        if schedule is not None and schedule.enabled:
            self._schedule(schedule)
        else:
            self._unschedule(int(key))

    async def _resync(self, _key: str) -> None:
        enabled = await self.store.enabled_dailies()
        for schedule in enabled:
            self._schedule(schedule)
        for chat_id in set(self._time_of) - {s.chat_id for s in enabled}:
            self._unschedule(chat_id)

    # ------------------------------------------------------------ jobs

    def _schedule(self, schedule: DailySchedule) -> None:
        key, chat_id = time_key(schedule), schedule.chat_id
        if self._time_of.get(chat_id) == key:
            return
        self._unschedule(chat_id)
        chats = self._chats_at.get(key)
        if chats is None:
            chats = self._chats_at[key] = set()

            async def fire() -> None:
                await self.post_dailies(key)

            self.scheduler.daily(daily_job_id(key), schedule, fire, self.grace_seconds)
        chats.add(chat_id)
        self._time_of[chat_id] = key

    def _unschedule(self, chat_id: int) -> None:
        key = self._time_of.pop(chat_id, None)
        if key is None:
            return
        chats = self._chats_at[key]
        chats.discard(chat_id)
        if not chats:
            del self._chats_at[key]
            self.scheduler.cancel(daily_job_id(key))

    def scheduled_chats(self) -> int:
        return len(self._time_of)

    def next_post(self, chat_id: int) -> datetime | None:
        """When the scheduler will next post this chat's daily (None: no daily scheduled)."""
        key = self._time_of.get(chat_id)
        return self.scheduler.next_run(daily_job_id(key)) if key else None

    async def post_dailies(self, key: TimeKey) -> None:
        """Post the daily of every chat scheduled at this time, a few at a time."""
        chats = self._chats_at.get(key, set())
        ordered = sorted(chats)
        if self.spread and ordered:
            start = hash(self.firings.owner) % len(ordered)
            ordered = ordered[start:] + ordered[:start]
        await self._post_each(ordered, still=lambda chat_id: chat_id in chats)

    async def _post_each(
        self, chat_ids: list[int], *, still: Callable[[int], bool] = lambda _: True, late: bool = False
    ) -> None:
        pending = iter(chat_ids)

        async def poster() -> None:
            for chat_id in pending:  # one shared iterator: each chat is taken by one poster
                if not still(chat_id):  # its daily moved or was switched off meanwhile
                    continue
                try:
                    await self.post_daily(chat_id, late=late)
                except Exception:  # one chat's failure must not hold up the others
                    log_failure(log, "chat %s: daily not posted", chat_id)

        await asyncio.gather(*(poster() for _ in range(min(POSTERS, len(chat_ids)))))

    async def post_daily(self, chat_id: int, *, late: bool = False) -> Round | None:
        """Open and post the chat's daily for its most recent occurrence; None if skipped."""
        schedule = await self.store.get_daily(chat_id)
        chat = await self.quiz.store.get_chat(chat_id)
        if schedule is None or not schedule.enabled or chat is None:
            return None
        if chat.paused:
            log.info("chat %s is paused (bot blocked or removed): daily not posted", chat_id)
            return None
        now = self.clock.now()
        occurrence = last_occurrence(schedule, now) or now
        date = local_date_of(occurrence, schedule.timezone)
        try:
            # One reaction is one choice: reaction dailies ask single-choice and true/false items.
            types = REACTION_TYPES if schedule.mode is AnswerMode.REACTIONS else None
            question = await self.quiz.pick_question(chat, tag=schedule.tag, types=types)
            async with self.quiz.store.unit_of_work():  # the claim, the round and its post, together
                await self.firings.claim(f"daily:{chat_id}:{date}")
                round_ = await self.quiz.open_round(
                    chat,
                    question,
                    RoundKind.DAILY,
                    now,
                    now + timedelta(seconds=schedule.deadline_seconds),
                    daily_date=date,
                    mode=schedule.mode,
                )
                await self.outbox.owe(chat, self.quiz.question_view(round_, chat, question), round_.id)
        except AlreadyFired:
            return None  # another process posts it
        except DuplicateDaily:
            log.info("chat %s already has its %s daily; not posting it again", chat_id, date)
            return None
        except QuizError as exc:
            log.error("chat %s daily not posted: %s", chat_id, exc.render("en"))
            return None
        if late:
            log.warning("chat %s: posting the %s daily late (missed while the bot was down)", chat_id, date)
        self.schedule_close(round_)
        await self.outbox.drain(chat.id)
        return round_

    def schedule_close(self, round_: Round) -> None:
        round_id = round_.id

        async def close() -> None:
            await self.close_and_reveal(round_id)

        self.scheduler.at(close_job_id(round_id), round_.closes_at, close)

    async def close_and_reveal(self, round_id: int, *, late: bool = False) -> None:
        """Close a round at its deadline and post the reveal; `late` when the bot was down then."""
        async with self.quiz.store.unit_of_work():  # closed and its reveal owed, together
            reveal = await self.quiz.close_round(round_id)
            if reveal is None or reveal.kind is RoundKind.PRACTICE:
                return
            chat = await self.quiz.store.get_chat(reveal.chat_id)
            if chat is None:
                return
            if late:
                log.warning("round %s in chat %s closed late: deadline passed while down", round_id, chat.id)
                reveal = replace(reveal, late=True)
            await self.outbox.posts.drop_questions(round_id)  # not posted yet: the reveal replaces it
            await self.outbox.owe(chat, reveal, round_id)
        await self.outbox.drain(chat.id)

    async def sweep_overdue(self) -> int:
        """Close the daily rounds past their deadline that no timer here closed (the process
        that opened them died); every process runs this now and then. How many were closed."""
        due = await self.store.overdue_dailies(self.clock.now() - OVERDUE_SLACK)
        for round_id in due:
            try:
                await self.close_and_reveal(round_id)
            except Exception:  # the next sweep tries again
                log_failure(log, "round %s: not closed by the sweep", round_id)
        return len(due)

    async def sweep_practice(self) -> None:
        closed = await self.store.close_expired_practice(self.clock.now())
        if closed:
            log.debug("closed %d expired practice rounds", closed)

    # ------------------------------------------------------------ start-up

    async def restore(self, *, others_running: bool = False) -> list[int]:
        """Rebuild jobs from the database and close rounds whose deadline passed while the bot
        was down; returns the chats whose daily was missed within grace, for `post_missed()`.
        With other processes running the bot was not down: they (or the sweep) close on time."""
        now = self.clock.now()
        await self.sweep_practice()
        for round_ in await self.quiz.store.open_rounds():
            if round_.kind is not RoundKind.DAILY:
                continue
            if round_.closes_at <= now:
                if not others_running:
                    await self.close_and_reveal(round_.id, late=True)
            else:
                self.schedule_close(round_)
        missed: list[int] = []
        for schedule in await self.store.enabled_dailies():
            self._schedule(schedule)
            occurrence = last_occurrence(schedule, now)
            if occurrence is None or (schedule.since and occurrence < schedule.since):
                continue
            date = local_date_of(occurrence, schedule.timezone)
            if await self.store.daily_round(schedule.chat_id, date) is not None:
                continue
            late = (now - occurrence).total_seconds()
            if late <= self.grace_seconds:
                missed.append(schedule.chat_id)
            else:
                log.warning(
                    "chat %s: the %s daily was missed while down (%.0f min late, grace %.0f min); skipped",
                    schedule.chat_id, date, late / 60, self.grace_seconds / 60,
                )  # fmt: skip
        return missed

    async def post_missed(self, chat_ids: list[int]) -> None:
        """Post the dailies `restore()` found missed within grace (once the scheduler runs)."""
        await self._post_each(chat_ids, late=True)
