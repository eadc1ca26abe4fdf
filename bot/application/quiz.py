"""The quiz use cases adapters call: ask, submit, self-grade, close, leaderboard, stats.

Every entry point takes an inbound command and returns a view; nothing here knows which
platform asked. Time and randomness come from the injected clock and RNG.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta

from bot.application import standings
from bot.application.group_commit import GroupCommitter
from bot.application.multi_selections import Selections
from bot.application.presenting import build_question, build_receipt, build_reveal, response_label
from bot.application.quiz_cache import QuizCache, RoundContext
from bot.application.quiz_settings import CoreSettings, QuizError, no_questions
from bot.application.requests import Ask, SelfGrade, ShowLeaderboard, ShowStats, SubmitAnswer
from bot.application.standings import chat_scope, guild_scope
from bot.application.store_faults import log_failure
from bot.application.throttle import Throttle
from bot.domain import grading
from bot.domain.clock import Clock, zone
from bot.domain.kinds import (
    AnswerMode,
    AnswerPolicy,
    AnswerStatus,
    ChatKind,
    ChatRef,
    InputKind,
    RevealPolicy,
    RoundKind,
    RoundState,
    UserRef,
)
from bot.domain.next_question import choose_question, matching
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.records import AnswerOutcome, Chat, NewAnswer, NewRound, Round
from bot.domain.windows import Window, month_key, week_key
from bot.locales.i18n import match_language, normalize_language, simplified, t
from bot.ports.broadcast import RESYNC, Broadcast
from bot.ports.metrics import NO_METRICS, Metrics
from bot.ports.storage import SelectionStore, Store, ThrottleStore
from bot.views.quiz import LeaderboardView, QuestionView, ReceiptView, RevealView, StatsView

log = logging.getLogger("studybot.quiz")

# Told of every committed answer: its round, its status and the user's id.
AnswerListener = Callable[[Round, AnswerStatus, int], Awaitable[None]]


class Quiz:
    def __init__(
        self,
        store: Store,
        banks: dict[str, Bank],
        settings: CoreSettings,
        clock: Clock,
        rng: random.Random,
        *,
        metrics: Metrics = NO_METRICS,
        selections: SelectionStore | None = None,
        shared_limits: ThrottleStore | None = None,
    ) -> None:
        """`selections` and `shared_limits`: a person's multiple-choice toggles and request limits
        kept in the database, where several processes share it; None: in this process's memory."""
        if settings.default_bank not in banks:
            raise ValueError(f"default bank {settings.default_bank!r} is not loaded")
        self.store = store
        self.banks = banks
        self.settings = settings
        self.clock = clock
        self.rng = rng
        self.metrics = metrics
        self._committer: GroupCommitter[NewAnswer, AnswerOutcome] = GroupCommitter(store.record_answers)
        # New users arriving together (a busy daily) are registered in one transaction too.
        self._user_committer: GroupCommitter[UserRef, int] = GroupCommitter(store.ensure_users)
        self._cache = QuizCache()
        # Called (as tasks, so receipts are not delayed) after an answer to a round of one of
        # their kinds is committed; a task per answer only where someone listens.
        self.answer_listeners: list[tuple[frozenset[RoundKind], AnswerListener]] = []
        self._listener_tasks: set[asyncio.Task[None]] = set()
        self._ask_throttles = {
            ChatKind.GROUP: Throttle(clock, settings.ask_limit, settings.ask_window),
            ChatKind.PRIVATE: Throttle(clock, settings.private_ask_limit, settings.ask_window),
        }
        self.selections: SelectionStore = selections or Selections()
        self.broadcast: Broadcast | None = None  # other processes' caches, told of changes
        self.shared_limits = shared_limits

    def share_caches(self, broadcast: Broadcast) -> None:
        """Keep the caches right while other processes change chats and rounds on the database."""
        self.broadcast = broadcast
        broadcast.subscribe("chat", self._chat_changed)
        broadcast.subscribe("round", self._round_changed)
        broadcast.subscribe(RESYNC, self._resync)

    async def _chat_changed(self, key: str) -> None:
        self._cache.forget_chat(int(key))

    async def _round_changed(self, key: str) -> None:
        self._cache.drop_round(int(key))

    async def _resync(self, _key: str) -> None:
        self._cache = QuizCache()

    async def _tell(self, topic: str, key: int) -> None:
        if self.broadcast is not None:
            await self.broadcast.publish(topic, str(key))

    # ------------------------------------------------------------ chats and users

    async def chat(self, ref: ChatRef) -> Chat:
        key = (str(ref.platform), ref.chat_key)
        chat = self._cache.chat(key)
        if chat is None:
            defaults = self.settings.chat_defaults()
            hint = match_language(ref.language_hint)
            if hint is not None:  # only a new chat takes it: the store keeps a known chat's own
                defaults = replace(defaults, language=hint)
            chat = await self.store.ensure_chat(ref, defaults)
            if chat.paused:  # they are talking to us again: resume posting there
                await self.store.set_chat_paused(chat.id, False)
                await self._tell("chat", chat.id)
                chat = replace(chat, paused=False)
            self._cache.put_chat(key, chat)
        return chat

    async def update_settings(self, ref: ChatRef, **changes: object) -> Chat:
        chat = await self.chat(ref)
        settings = replace(chat.settings, **changes)  # type: ignore[arg-type]
        if settings.bank_id not in self.banks:
            raise QuizError("error.unknown_bank", bank=settings.bank_id, banks=", ".join(self.banks))
        try:
            zone(settings.timezone)
        except ValueError as exc:
            raise QuizError("error.bad_args", detail=str(exc)) from None
        settings = replace(settings, language=normalize_language(settings.language))
        updated = await self.store.update_chat(chat.id, settings)
        self._cache.forget_chat(chat.id)
        self._cache.put_chat((str(ref.platform), ref.chat_key), updated)
        await self._tell("chat", chat.id)
        return updated

    async def set_guild_language(self, ref: ChatRef, language: str) -> Chat:
        """Set the language of every chat in `ref`'s server, and of its channels yet to come."""
        if not ref.guild_key:
            return await self.update_settings(ref, language=language)
        await self.chat(ref)
        language = normalize_language(language)
        ids = await self.store.set_guild_language(str(ref.platform), ref.guild_key, language)
        for chat_id in ids:
            self._cache.forget_chat(chat_id)
            await self._tell("chat", chat_id)
        return await self.chat(ref)

    async def pause_chat(self, ref: ChatRef) -> None:
        """The bot was blocked or removed there: stop posting until someone talks to it again."""
        chat = await self.store.find_chat(str(ref.platform), ref.chat_key)
        if chat is not None:
            await self.store.set_chat_paused(chat.id, True)
            self._cache.forget_chat(chat.id)
            await self._tell("chat", chat.id)

    async def move_chat(self, ref: ChatRef, new_chat_key: str) -> None:
        """The platform gave the chat a new id (Telegram group → supergroup): keep its history."""
        chat = await self.store.find_chat(str(ref.platform), ref.chat_key)
        if chat is not None and await self.store.find_chat(str(ref.platform), new_chat_key) is None:
            await self.store.move_chat(chat.id, new_chat_key)
            self._cache.forget_chat(chat.id)
            await self._tell("chat", chat.id)

    async def user_id(self, ref: UserRef) -> int:
        key = (str(ref.platform), ref.user_key)
        cached = self._cache.users.get(key)
        if cached is not None and cached[1] == ref.display_name:
            return cached[0]
        user_id = await self._user_committer.submit(ref)
        self._cache.users[key] = (user_id, ref.display_name)
        return user_id

    def known_language(self, ref: ChatRef) -> str:
        """The chat's language as kept here, else the default: for saying the database is away."""
        chat = self._cache.chat((str(ref.platform), ref.chat_key))
        return chat.settings.language if chat is not None else self.settings.language

    def bank_for(self, chat: Chat) -> Bank:
        return self.banks.get(chat.settings.bank_id) or self.banks[self.settings.default_bank]

    # ------------------------------------------------------------ asking

    async def _ask_wait(self, kind: ChatKind, user: UserRef) -> float:
        throttle = self._ask_throttles[kind]
        if self.shared_limits is None:
            return throttle.check((str(user.platform), user.user_key))
        key = f"ask:{kind}:{user.platform}:{user.user_key}"
        now = self.clock.now().timestamp()
        return await self.shared_limits.hit(key, throttle.limit, throttle.window, now)

    async def ask(self, cmd: Ask) -> QuestionView:
        chat = await self.chat(cmd.chat)
        if cmd.user is not None:
            wait = await self._ask_wait(cmd.chat.kind, cmd.user)
            if wait:
                raise QuizError("error.rate_limited", seconds=math.ceil(wait))
        now = self.clock.now()
        closes_at = now + timedelta(minutes=self.settings.practice_minutes)
        only = cmd.only
        if cmd.review and cmd.user is not None:
            user_id = await self.user_id(cmd.user)
            mistakes = frozenset(await self.store.recent_mistakes(chat.id, user_id, 50))
            only = mistakes if only is None else mistakes & only
            if not only:
                raise QuizError("review.none")
        question = await self.pick_question(chat, tag=cmd.tag, qtype=cmd.qtype, only=only)
        round_ = await self.open_round(chat, question, RoundKind.PRACTICE, now, closes_at)
        return self.question_view(round_, chat, question)

    async def pick_question(
        self,
        chat: Chat,
        *,
        tag: str | None = None,
        qtype: QuestionType | None = None,
        types: tuple[QuestionType, ...] | None = None,
        exclude: frozenset[str] = frozenset(),
        only: frozenset[str] | None = None,
    ) -> Question:
        bank = self.bank_for(chat)
        candidates = [
            q
            for q in matching(bank, tag=tag, qtype=qtype, types=types)
            if q.id not in exclude and (only is None or q.id in only)
        ]
        asked = await self.store.question_counts(chat.id, bank.id)
        question = choose_question(candidates, asked, self.rng)
        if question is None:
            raise no_questions(tag, qtype)
        return question

    async def open_round(
        self,
        chat: Chat,
        question: Question,
        kind: RoundKind,
        opened_at: datetime,
        closes_at: datetime,
        *,
        daily_date: str | None = None,
        contest_id: int | None = None,
        mode: AnswerMode = AnswerMode.BUTTONS,
    ) -> Round:
        practice = kind is RoundKind.PRACTICE
        reveal = chat.settings.reveal_policy if practice else RevealPolicy.ROUND
        # An answer graded on the spot cannot be changed afterwards.
        policy = AnswerPolicy.FIRST if reveal is RevealPolicy.PRACTICE else chat.settings.answer_policy
        if kind is RoundKind.CONTEST:
            policy = AnswerPolicy.FIRST
        round_ = await self.store.open_round(
            NewRound(
                chat_id=chat.id,
                bank_id=self.bank_for(chat).id,
                question_id=question.id,
                kind=kind,
                opened_at=opened_at,
                closes_at=closes_at,
                reveal=reveal,
                answer_policy=policy,
                partial_credit=chat.settings.partial_credit,
                daily_date=daily_date,
                contest_id=contest_id,
                mode=mode,
            )
        )
        self._cache.put_round(RoundContext(round_, chat, question))
        return round_

    def question_view(
        self, round_: Round, chat: Chat, question: Question, position: tuple[int, int] | None = None
    ) -> QuestionView:
        return build_question(round_, chat, question, self.bank_for(chat).title, position)

    async def set_message_ref(self, round_id: int, message_ref: str) -> None:
        await self.store.set_message_ref(round_id, message_ref)
        self._cache.set_message_ref(round_id, message_ref)

    async def round_context(self, round_id: int) -> RoundContext | None:
        context = self._cache.round(round_id)
        if context is not None:
            return context
        round_ = await self.store.get_round(round_id)
        if round_ is None:
            return None
        chat = await self.store.get_chat(round_.chat_id)
        bank = self.banks.get(round_.bank_id)
        if chat is None or bank is None:
            return None
        try:
            question = bank.question(round_.question_id)
        except KeyError:
            return None
        context = RoundContext(round_, chat, question)
        if round_.state is RoundState.OPEN:
            self._cache.put_round(context)
        return context

    async def round_for_message(self, ref: ChatRef, message_ref: str) -> Round | None:
        """The round posted as that platform message in this chat (survives restarts)."""
        chat = await self.chat(ref)
        return await self.store.round_by_message(chat.id, message_ref)

    async def answerable(self, round_id: int) -> RoundContext | None:
        """The round's context if it still takes answers (open, before its deadline), else None."""
        context = await self.round_context(round_id)
        if context is None or not context.round.takes_answers(self.clock.now()):
            return None
        return context

    async def current_round(self, ref: ChatRef) -> Round | None:
        chat = await self.chat(ref)
        round_ = await self.store.last_round(chat.id)
        if round_ is None or round_.state is RoundState.CLOSED:
            return None
        return round_

    # ------------------------------------------------------------ answering

    async def submit(self, cmd: SubmitAnswer, context: RoundContext | None = None) -> ReceiptView:
        """Grade and record an answer; `context`: the round as the caller just read it (a click),
        so it is not read again."""
        if context is None or context.round.id != cmd.round_id:
            context = await self.round_context(cmd.round_id)
        if context is None:
            return ReceiptView(cmd.round_id, AnswerStatus.UNKNOWN_ROUND, self.settings.language)
        round_, chat, question = context.round, context.chat, context.question
        lang = chat.settings.language
        now = self.clock.now()
        if not round_.takes_answers(now):
            return ReceiptView(cmd.round_id, AnswerStatus.CLOSED, lang)
        if len(cmd.response) > self.settings.max_answer_chars:
            detail = t(lang, "error.answer_too_long", limit=self.settings.max_answer_chars)
            return ReceiptView(cmd.round_id, "invalid", lang, detail=detail)
        await grading.prepare(question)
        try:
            # Typed in traditional characters, graded as the bank's simplified form.
            grade = grading.grade(question, simplified(cmd.response), partial_credit=round_.partial_credit)
        except grading.InvalidResponse as exc:
            return ReceiptView(cmd.round_id, "invalid", lang, detail=exc.render(lang))
        user_id = await self.user_id(cmd.user)
        tz = chat.settings.timezone
        outcome = await self._committer.submit(
            NewAnswer(
                round_id=round_.id,
                user_id=user_id,
                response=grade.response,
                answered_at=now,
                verdict=str(grade.verdict),
                fraction=grade.fraction,
                # A provisional key-point score is kept as the fraction only: points are
                # earned (totals, leaderboards) by the learner's own grade.
                points=question.points * grade.fraction if grade.is_final else 0.0,
                week_key=week_key(now, tz),
                month_key=month_key(now, tz),
                scored_now=round_.reveal is RevealPolicy.PRACTICE,
            )
        )
        self.metrics.answer_recorded(outcome.status)
        if outcome.status in (AnswerStatus.CLOSED, AnswerStatus.UNKNOWN_ROUND):
            self._cache.drop_round(round_.id)
            return ReceiptView(cmd.round_id, outcome.status, lang)
        stored = outcome.answer
        assert stored is not None
        for kinds, listener in self.answer_listeners:
            if round_.kind not in kinds:
                continue
            task = asyncio.create_task(self._notify(listener, round_, outcome.status, user_id))
            self._listener_tasks.add(task)
            task.add_done_callback(self._listener_tasks.discard)
        return build_receipt(round_, question, stored, outcome.status, lang)

    async def _notify(
        self, listener: AnswerListener, round_: Round, status: AnswerStatus, user_id: int
    ) -> None:
        try:
            await listener(round_, status, user_id)
        except Exception:  # a listener's failure must not lose the answer, only be seen
            log_failure(log, "answer listener failed for round %s", round_.id)

    async def restart_round(self, round_id: int, opened_at: datetime, closes_at: datetime) -> None:
        """Give an open round a fresh timer (a contest question resumed after a restart)."""
        await self.store.restart_round(round_id, opened_at, closes_at)
        self._cache.drop_round(round_id)
        await self._tell("round", round_id)

    async def self_grade(self, cmd: SelfGrade) -> ReceiptView:
        context = await self.round_context(cmd.round_id)
        if context is None or TYPES[context.question.type].input_kind is not InputKind.SELF_GRADED:
            return ReceiptView(cmd.round_id, AnswerStatus.UNKNOWN_ROUND, self.settings.language)
        lang = context.chat.settings.language
        try:
            grade = grading.self_grade(cmd.level)
        except grading.InvalidResponse as exc:
            return ReceiptView(cmd.round_id, "invalid", lang, detail=exc.render(lang))
        user_id = await self.user_id(cmd.user)
        points = context.question.points * grade.fraction
        done = await self.store.self_grade(cmd.round_id, user_id, str(grade.verdict), grade.fraction, points)
        if done:
            return ReceiptView(
                cmd.round_id, "self_graded", lang, graded=True, verdict=str(grade.verdict), points=points
            )
        stored = await self.store.user_answer(cmd.round_id, user_id)
        if stored is None:  # never answered: nothing to grade
            return ReceiptView(cmd.round_id, "invalid", lang, detail=t(lang, "error.no_round"))
        label = response_label(context.question, stored.response, lang)
        return ReceiptView(
            cmd.round_id, AnswerStatus.DUPLICATE, lang, response=stored.response, response_label=label
        )

    # ------------------------------------------------------------ closing

    async def close_round(self, round_id: int, *, due_by: datetime | None = None) -> RevealView | None:
        """Close a round and build its reveal; None if it was closed already (or unknown), or,
        with `due_by`, if its time runs out later than that (the store checks it as it closes)."""
        context = await self.round_context(round_id)
        if context is None:
            return None
        now = self.clock.now()
        closed = await self.store.close_round(round_id, now, due_by=due_by)
        self._cache.drop_round(round_id)
        if not closed and due_by is not None:
            return None  # maybe still open: its toggles stay
        await self.selections.forget_round(round_id)
        if not closed:
            return None
        await self._tell("round", round_id)
        round_ = await self.store.get_round(round_id) or context.round
        return await self.reveal_view(round_, context.chat, context.question)

    async def reveal_view(self, round_: Round, chat: Chat, question: Question) -> RevealView:
        return await build_reveal(self.store, round_, chat, question, top_n=self.settings.reveal_top_n)

    async def leaderboard(self, cmd: ShowLeaderboard) -> LeaderboardView:
        return await standings.leaderboard(self.store, await self.chat(cmd.chat), self.clock.now(), cmd)

    async def stats(self, cmd: ShowStats) -> StatsView:
        return await standings.stats(self.store, await self.chat(cmd.chat), cmd)

    async def flush(self) -> None:
        await self._committer.flush()
        if self._listener_tasks:
            await asyncio.gather(*self._listener_tasks, return_exceptions=True)

    @property
    def commit_batches(self) -> int:
        return self._committer.batches

    @property
    def answers_waiting(self) -> int:
        """Answers queued for the next group commit."""
        return self._committer.waiting


__all__ = ["CoreSettings", "Quiz", "QuizError", "Window", "chat_scope", "guild_scope"]
