"""Live contests: N timed questions in a chat, Kahoot scoring, standings, surviving restarts.

A contest is a row whose phase (question / pause / finished / stopped), position and phase
deadline say exactly what happens next, so after a restart `restore()` picks it up: an open
question gets its timer again, a pause resumes, a question closed but not yet scored is scored.
Scores are saved once per question (the store refuses a second save), so nothing counts twice.

With several processes on one database each step is a firing claimed once in the unit of work
that does it (`contest:<id>:ask:<n>`, `…:close:<n>`, `…:finish`): the process that started a
contest keeps its timers, and if it dies any process's sweep (`sweep()`) takes the next step
when its time has come.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta

from bot.application.firings import AlreadyFired, Firings
from bot.application.keyed_locks import KeyedLocks
from bot.application.outbox import Outbox
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError, no_questions
from bot.application.store_faults import log_failure
from bot.domain.clock import Clock
from bot.domain.kahoot import PlayerState, score_question
from bot.domain.kinds import AnswerStatus, ChatRef, RoundKind, RoundState
from bot.domain.next_question import choose_question, matching
from bot.domain.question_types import TYPES
from bot.domain.questions import Question, QuestionType
from bot.domain.records import Chat, Contest, ContestPhase, ContestScore, Round
from bot.ports.scheduler import Scheduler
from bot.ports.storage import ContestRunning, ContestStore
from bot.views.quiz import ContestStatusView, QuestionView, StandingRow, StandingsView, notice

log = logging.getLogger("studybot.contest")
# What a contest asks unless told to include typed items too: each type says.
CHOICE_TYPES = tuple(qtype for qtype, rules in TYPES.items() if rules.in_contests)
QUESTIONS = range(1, 101)  # questions a contest may have
SECONDS = range(1, 601)  # seconds a contest question may last
STEP_SLACK = timedelta(seconds=2)  # the contest's own timer normally takes the step; the sweep after


DUE_TOLERANCE = timedelta(seconds=0.5)  # a timer firing this early still counts as on time


class _NotDue(Exception):
    """The question's timer ends later than this close: roll its unit of work back."""


def contest_job_id(contest_id: int) -> str:
    return f"contest:{contest_id}"


def rank(scores: list[ContestScore]) -> list[ContestScore]:
    return sorted(scores, key=lambda s: (-s.points, -s.correct, s.user_id))


class Contests:
    def __init__(
        self,
        quiz: Quiz,
        store: ContestStore,
        scheduler: Scheduler,
        outbox: Outbox,
        clock: Clock,
        *,
        default_questions: int = 10,
        default_seconds: int = 30,
        pause_seconds: float = 5.0,
        standings_top: int = 5,
        firings: Firings | None = None,
        shared: bool = False,
    ) -> None:
        self.quiz = quiz
        self.store = store
        self.scheduler = scheduler
        self.outbox = outbox
        self.clock = clock
        self.default_questions = default_questions
        self.default_seconds = default_seconds
        self.pause_seconds = pause_seconds
        self.standings_top = standings_top
        self._locks = KeyedLocks()  # within this process; across processes the firings decide
        self.firings = firings or Firings()
        self.shared = shared  # other processes may take some of the answers
        # Contest round id -> joined players yet to answer it: two reads on the round's first
        # answer, then a set operation per answer (re-reading every answer each time is quadratic).
        self._waiting: dict[int, set[int] | None] = {}
        quiz.answer_listeners.append((frozenset({RoundKind.CONTEST}), self._after_answer))
        outbox.late_questions = self.deliver_late
        outbox.abandoned_questions = self.skip_undeliverable

    # ------------------------------------------------------------ commands

    async def start(
        self,
        ref: ChatRef,
        questions: int | None = None,
        seconds: int | None = None,
        *,
        tag: str | None = None,
        qtype: QuestionType | None = None,
        include_typed: bool = False,
    ) -> ContestStatusView:
        chat = await self.quiz.chat(ref)
        # Only what was left out takes the default: 0 is a number asked for, and refused.
        n = self.default_questions if questions is None else questions
        timer = self.default_seconds if seconds is None else seconds
        if n not in QUESTIONS or timer not in SECONDS:
            raise QuizError("contest.bad_numbers", questions_min=QUESTIONS[0], questions_max=QUESTIONS[-1],
                            seconds_min=SECONDS[0], seconds_max=SECONDS[-1])  # fmt: skip
        types = None if include_typed or qtype else CHOICE_TYPES
        candidates = matching(self.quiz.bank_for(chat), tag=tag, qtype=qtype, types=types)
        if not candidates:
            raise no_questions(tag, qtype)
        asked = await self.quiz.store.question_counts(chat.id, self.quiz.bank_for(chat).id)
        picked: list[str] = []
        pool = list(candidates)
        while len(picked) < n and pool:
            question = choose_question(pool, asked, self.quiz.rng)
            assert question is not None
            picked.append(question.id)
            pool.remove(question)
        try:
            async with self.quiz.store.unit_of_work():
                contest = await self.store.create_contest(
                    chat.id, picked, timer, self.pause_seconds, self.clock.now()
                )
                await self.outbox.owe(
                    chat, notice("contest.started", chat.settings.language, count=len(picked), seconds=timer)
                )
        except ContestRunning:
            raise QuizError("contest.already_running") from None
        log.info("contest %s started in chat %s: %d questions, %ds", contest.id, chat.id, len(picked), timer)
        await self._ask(contest.id, 0)
        return await self.status(ref)

    async def stop(self, ref: ChatRef) -> bool:
        chat = await self.quiz.chat(ref)
        contest = await self.store.running_contest(chat.id)
        if contest is None:
            return False
        async with self._locks.hold(contest.id):
            self.scheduler.cancel(contest_job_id(contest.id))
            try:
                async with self.quiz.store.unit_of_work():
                    current = await self.store.get_contest(contest.id) or contest
                    if not current.running:
                        return False
                    if (
                        current.phase is ContestPhase.QUESTION
                        and current.round_id
                        and await self.firings.once(f"contest:{current.id}:close:{current.position}")
                    ):
                        await self._score(current, post=True)
                    await self._finish(current, stopped=True)
            except AlreadyFired:
                return False  # another process finished it meanwhile
        await self.outbox.drain(chat.id)
        return True

    async def status(self, ref: ChatRef) -> ContestStatusView:
        chat = await self.quiz.chat(ref)
        contest = await self.store.running_contest(chat.id) or await self.store.latest_contest(chat.id)
        lang = chat.settings.language
        if contest is None:
            return ContestStatusView(None, False, 0, 0, 0, 0, lang)
        players = len(await self.store.contest_scores(contest.id))
        position = contest.position + (1 if contest.running else 0)
        return ContestStatusView(
            contest.id, contest.running, min(position, len(contest.question_ids)),
            len(contest.question_ids), contest.seconds, players, lang,
        )  # fmt: skip

    async def standings(self, ref: ChatRef) -> StandingsView | None:
        chat = await self.quiz.chat(ref)
        contest = await self.store.running_contest(chat.id) or await self.store.latest_contest(chat.id)
        if contest is None:
            return None
        scores = rank(await self.store.contest_scores(contest.id))
        return self._standings(
            contest, scores, {}, final=not contest.running, top=len(scores), language=chat.settings.language
        )

    # ------------------------------------------------------------ the steps

    async def _ask(self, contest_id: int, position: int) -> None:
        async with self._locks.hold(contest_id):
            contest = await self.store.get_contest(contest_id)
            if contest is None or not contest.running:
                return
            chat = await self.quiz.store.get_chat(contest.chat_id)
            assert chat is not None
            question = self.quiz.bank_for(chat).question(contest.question_ids[position])
            now = self.clock.now()
            closes_at = now + timedelta(seconds=contest.seconds)
            try:
                async with self.quiz.store.unit_of_work():  # the claim, the step and its question
                    await self.firings.claim(f"contest:{contest.id}:ask:{position}")
                    await self._open_question(contest, chat, question, position, closes_at)
            except AlreadyFired:
                return  # another process asked it
            self._at(contest.id, closes_at, lambda: self._close(contest_id, position))
        await self.outbox.drain(chat.id)

    async def _open_question(
        self, contest: Contest, chat: Chat, question: Question, position: int, closes_at: datetime
    ) -> Round:
        """The question's round, the contest's step onto it, and the question owed to the chat."""
        now = closes_at - timedelta(seconds=contest.seconds)
        round_ = await self.quiz.open_round(
            chat, question, RoundKind.CONTEST, now, closes_at, contest_id=contest.id
        )
        await self.store.set_contest_phase(
            contest.id, position=position, phase=ContestPhase.QUESTION, phase_until=closes_at,
            round_id=round_.id, now=now,
        )  # fmt: skip
        view = self.quiz.question_view(round_, chat, question, (position + 1, len(contest.question_ids)))
        await self.outbox.owe(chat, view, round_.id)
        return round_

    async def _close(
        self, contest_id: int, position: int, *, early: bool = False, skipped: bool = False
    ) -> None:
        """Close the question (its time is over, or everyone answered it: `early`). A question
        whose timer was restarted meanwhile (posted late, or still not posted) is left open, as
        the database says: the timer at its later time closes it."""
        async with self._locks.hold(contest_id):
            contest = await self.store.get_contest(contest_id)
            if contest is None or contest.phase is not ContestPhase.QUESTION or contest.position != position:
                return  # already moved on (closed early, stopped, or a stale job)
            last = position + 1 >= len(contest.question_ids)
            until = self.clock.now() + timedelta(seconds=contest.pause_seconds)
            try:
                async with self.quiz.store.unit_of_work():  # claimed, scored, moved on, posts owed
                    if not early and await self._not_due(contest):
                        raise _NotDue
                    await self.firings.claim(f"contest:{contest.id}:close:{position}")
                    # Due in the closing statement too: a timer another process restarted after
                    # the check above keeps the question open (_score raises _NotDue).
                    due_by = None if early else self.clock.now() + DUE_TOLERANCE
                    await self._score(contest, post=True, due_by=due_by, skipped=skipped)
                    if last:
                        await self._finish(contest, stopped=False)
                    else:
                        await self.store.set_contest_phase(
                            contest.id, position=position, phase=ContestPhase.PAUSE, phase_until=until,
                            round_id=contest.round_id, now=self.clock.now(),
                        )  # fmt: skip
            except AlreadyFired:
                return  # another process closed it (or stopped the contest)
            except _NotDue:
                await self._hold_open(contest)
                return
            if not last:
                self._at(contest.id, until, lambda: self._ask(contest_id, position + 1))
        await self.outbox.drain(contest.chat_id)

    async def _not_due(self, contest: Contest) -> bool:
        """Read in the database, inside the closing's unit of work: the round's timer ends later
        (another process restarted it), or its question was never posted."""
        if contest.round_id is None:
            return False
        round_ = await self.quiz.store.get_round(contest.round_id)
        if round_ is None or round_.state is not RoundState.OPEN:
            return False
        if round_.closes_at - self.clock.now() > DUE_TOLERANCE:
            return True
        return await self.outbox.posts.question_owed(round_.id)

    async def _hold_open(self, contest: Contest) -> None:
        """Keep a question open that is not due: its timer here set to the round's end, and a
        question still not posted (a 429 storm, its chat's process killed) given its whole time
        again, counted once more from its delivery when it goes out."""
        assert contest.round_id is not None
        round_ = await self.quiz.store.get_round(contest.round_id)
        if round_ is None:
            return
        now = self.clock.now()
        closes_at = round_.closes_at
        if closes_at - now <= DUE_TOLERANCE:
            closes_at = now + timedelta(seconds=contest.seconds)
            await self._restart(contest, round_.id, now, closes_at)
            log.info("contest %s: question %d not posted yet, waiting", contest.id, contest.position + 1)
        else:
            self._at(contest.id, closes_at, functools.partial(self._close, contest.id, contest.position))

    async def _restart(
        self, contest: Contest, round_id: int, opened_at: datetime, closes_at: datetime
    ) -> None:
        """Give the contest's open question a fresh timer: in the database (every process's
        timer and sweep read it there) and here."""
        await self.quiz.restart_round(round_id, opened_at, closes_at)
        await self.store.set_contest_phase(
            contest.id, position=contest.position, phase=ContestPhase.QUESTION, phase_until=closes_at,
            round_id=round_id, now=opened_at,
        )  # fmt: skip
        self._at(contest.id, closes_at, functools.partial(self._close, contest.id, contest.position))

    async def deliver_late(self, view: QuestionView, now: datetime) -> QuestionView | None:
        """The outbox is posting a contest question late (a 429 storm, or its chat's process
        was killed and another took it over): its time counts from now, the delivery. None: its
        round is over, nothing to post (its closing owes the reveal)."""
        round_ = await self.quiz.store.get_round(view.round_id)
        if round_ is None or round_.state is not RoundState.OPEN or round_.contest_id is None:
            return None
        async with self._locks.hold(round_.contest_id):
            contest = await self.store.get_contest(round_.contest_id)
            if contest is None or contest.phase is not ContestPhase.QUESTION or contest.round_id != round_.id:
                return None
            closes_at = now + timedelta(seconds=contest.seconds)
            await self._restart(contest, round_.id, now, closes_at)
        log.info("contest %s: question %d posted late, timer restarted", contest.id, contest.position + 1)
        return replace(view, opened_at=now, closes_at=closes_at)

    async def skip_undeliverable(self, view: QuestionView, reason: str) -> None:
        """The outbox gave up on a contest question (the platform kept failing on it, or
        refused it): the chat is told it was skipped, and the contest moves on to the next."""
        round_ = await self.quiz.store.get_round(view.round_id)
        if round_ is None or round_.contest_id is None or round_.state is not RoundState.OPEN:
            return
        contest = await self.store.get_contest(round_.contest_id)
        if contest is None or contest.phase is not ContestPhase.QUESTION or contest.round_id != round_.id:
            return
        log.info("contest %s: question %d skipped (%s)", contest.id, contest.position + 1, reason)
        await self._close(contest.id, contest.position, early=True, skipped=True)

    async def _score(
        self, contest: Contest, *, post: bool, due_by: datetime | None = None, skipped: bool = False
    ) -> None:
        """Close the current question's round, score it once, post the reveal and standings.
        With `due_by`, only a round whose time is over by then (else _NotDue); `skipped`: its
        question could not be posted, so the chat is told that instead of its reveal."""
        assert contest.round_id is not None
        reveal = await self.quiz.close_round(contest.round_id, due_by=due_by)
        round_ = await self.quiz.store.get_round(contest.round_id)
        assert round_ is not None
        if round_.state is RoundState.OPEN:  # not due after all: its timer runs on
            raise _NotDue
        self._waiting.pop(contest.round_id, None)
        before = {s.user_id: s for s in await self.store.contest_scores(contest.id)}
        answers = {a.user_id: a for a in await self.quiz.store.round_answers(round_.id)}
        after = []
        for user_id in before.keys() | answers.keys():
            old = before.get(user_id)
            state = PlayerState(old.points, old.correct, old.answered, old.streak) if old else PlayerState()
            answer = answers.get(user_id)
            new = score_question(
                state,
                answered=answer is not None,
                correct=answer is not None and answer.verdict == "correct",
                elapsed=(answer.answered_at - round_.opened_at).total_seconds() if answer else 0.0,
                timer=contest.seconds,
            )
            name = answer.display_name if answer else old.display_name  # type: ignore[union-attr]
            after.append(ContestScore(user_id, name, new.points, new.correct, new.answered, new.streak))
        saved = await self.store.save_contest_scores(contest.id, contest.position, after)
        if not (saved and post):
            return
        chat = await self.quiz.store.get_chat(contest.chat_id)
        assert chat is not None
        if reveal is None:  # closed before a restart: rebuild the reveal from the stored round
            question = self.quiz.bank_for(chat).question(round_.question_id)
            reveal = await self.quiz.reveal_view(round_, chat, question)
        await self.outbox.posts.drop_questions(round_.id)  # its time is over: the reveal replaces it
        if skipped:
            skip = notice("contest.question_skipped", chat.settings.language, number=contest.position + 1)
            await self.outbox.owe(chat, skip)
        else:
            await self.outbox.owe(chat, reveal, round_.id)
        old_ranks = {s.user_id: i for i, s in enumerate(rank(list(before.values())), start=1)}
        view = self._standings(
            contest, rank(await self.store.contest_scores(contest.id)), old_ranks, final=False,
            top=self.standings_top, language=chat.settings.language,
        )  # fmt: skip
        await self.outbox.owe(chat, view)

    def _standings(
        self,
        contest: Contest,
        scores: list[ContestScore],
        old_ranks: dict[int, int],
        *,
        final: bool,
        top: int,
        language: str,
    ) -> StandingsView:
        rows = []
        for place, s in enumerate(scores[:top], start=1):
            previous = old_ranks.get(s.user_id)
            moved = previous - place if previous else 0
            rows.append(StandingRow(place, s.display_name, s.points, s.correct, s.answered, max(moved, 0)))
        done = contest.scored_position if final else contest.position + 1
        return StandingsView(
            contest_id=contest.id, rows=tuple(rows), position=done, total=len(contest.question_ids),
            final=final, stopped=contest.phase is ContestPhase.STOPPED, language=language,
        )  # fmt: skip

    async def _finish(self, contest: Contest, *, stopped: bool) -> None:
        await self.firings.claim(f"contest:{contest.id}:finish")
        phase = ContestPhase.STOPPED if stopped else ContestPhase.FINISHED
        await self.store.set_contest_phase(
            contest.id, position=contest.position, phase=phase, phase_until=None,
            round_id=contest.round_id, now=self.clock.now(),
        )  # fmt: skip
        self.scheduler.cancel(contest_job_id(contest.id))
        final = await self.store.get_contest(contest.id)
        chat = await self.quiz.store.get_chat(contest.chat_id)
        assert final is not None and chat is not None
        scores = rank(await self.store.contest_scores(contest.id))
        log.info("contest %s %s with %d players", contest.id, phase, len(scores))
        view = self._standings(
            final, scores, {}, final=True, top=len(scores), language=chat.settings.language
        )
        await self.outbox.owe(chat, view)

    def _at(self, contest_id: int, when: datetime, step: Callable[[], Awaitable[None]]) -> None:
        async def run() -> None:
            await step()

        self.scheduler.at(contest_job_id(contest_id), when, run)

    async def _after_answer(self, round_: Round, status: AnswerStatus, user_id: int) -> None:
        """Close a contest question early once every player who joined has answered it."""
        if round_.contest_id is None or status is not AnswerStatus.ACCEPTED:
            return
        if round_.id not in self._waiting:
            players = {s.user_id for s in await self.store.contest_scores(round_.contest_id)}
            answered = {a.user_id for a in await self.quiz.store.round_answers(round_.id)}
            found = players - answered if players else None  # None: nobody joined yet, no early close
            known = self._waiting.setdefault(round_.id, found)
            if known is not None and found is not None:
                # Answers arriving meanwhile read their own sets; each holds everyone still
                # waiting, so the intersection is exact.
                known &= found
        waiting = self._waiting[round_.id]
        if waiting is None:
            return
        waiting.discard(user_id)
        if waiting and self.shared:  # answers taken by other processes are seen only in the database
            waiting -= {a.user_id for a in await self.quiz.store.round_answers(round_.id)}
        if not waiting:
            contest = await self.store.get_contest(round_.contest_id)
            if contest and contest.phase is ContestPhase.QUESTION and contest.round_id == round_.id:
                await self._close(contest.id, contest.position, early=True)

    # ------------------------------------------------------------ other processes

    async def sweep(self) -> int:
        """Take the steps whose time has come that no timer here takes (the process running the
        contest died); every process runs this now and then. How many steps were taken."""
        now = self.clock.now()
        taken = 0
        for contest in await self.store.running_contests():
            if contest.phase_until is None or contest.phase_until > now - STEP_SLACK:
                continue
            try:
                if contest.phase is ContestPhase.PAUSE:
                    await self._ask(contest.id, contest.position + 1)
                elif contest.phase is ContestPhase.QUESTION:
                    await self._close(contest.id, contest.position)
                taken += 1
            except Exception:
                log_failure(log, "contest %s: the overdue step failed", contest.id)
        return taken

    # ------------------------------------------------------------ start-up

    async def restore(self, *, others_running: bool = False) -> None:
        """Pick up the running contests at start-up. Alone, a question interrupted by the stop
        gets its whole timer again; with other processes running (they kept it going), its timer
        here is merely set to when it ends."""
        now = self.clock.now()
        for contest in await self.store.running_contests():
            contest_id, position = contest.id, contest.position
            if contest.phase is ContestPhase.PAUSE:
                when = max(contest.phase_until or now, now)
                self._at(contest_id, when, functools.partial(self._ask, contest_id, position + 1))
                continue
            round_ = await self.quiz.store.get_round(contest.round_id) if contest.round_id else None
            if round_ is None:
                await self._ask(contest_id, position)
            elif round_.state is RoundState.CLOSED:
                await self._close(contest_id, position)
            elif others_running:
                when = max(contest.phase_until or now, now)
                self._at(contest_id, when, functools.partial(self._close, contest_id, position))
            else:
                # The question it was on gets its whole timer again.
                closes_at = now + timedelta(seconds=contest.seconds)
                await self.quiz.restart_round(round_.id, now, closes_at)
                await self.store.set_contest_phase(
                    contest_id, position=position, phase=ContestPhase.QUESTION, phase_until=closes_at,
                    round_id=round_.id, now=now,
                )  # fmt: skip
                self._at(contest_id, closes_at, functools.partial(self._close, contest_id, position))
                log.info("contest %s resumed at question %d", contest_id, position + 1)
                await self._repost(contest, round_.id)

    async def _repost(self, contest: Contest, round_id: int) -> None:
        """Post the resumed question again: its timer restarted, and chats may have moved on."""
        round_ = await self.quiz.store.get_round(round_id)
        chat = await self.quiz.store.get_chat(contest.chat_id)
        if round_ is None or chat is None:
            return
        question = self.quiz.bank_for(chat).question(round_.question_id)
        view = self.quiz.question_view(
            round_, chat, question, (contest.position + 1, len(contest.question_ids))
        )
        view = replace(view, replaces=round_.message_ref)  # the copy posted before the stop, if it was
        async with self.quiz.store.unit_of_work():  # the new timer's question replaces one still owed
            await self.outbox.posts.drop_questions(round_id)
            await self.outbox.owe(chat, view, round_id)
        await self.outbox.drain(chat.id)
