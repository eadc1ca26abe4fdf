"""The drilling loop: a person's practice run in a chat, and "next" (下一题) in its mode.

A run starts with the command that asks its first question — `/quiz` (random over the bank,
or over a type or tags), `/quiz next` or `/quiz N` (sequential), `/mistakes practice`,
`/favorites practice`, `/review` — and every "next" (the 下一题 ▶ button under a graded
answer, `n` or an empty line in the console, `下一题` / `next` typed) asks the following
question in the same mode:

- sequential: the bank in number order from the person's position (kept per person and bank);
  the question shows its place ("第 12 / 62 题") and `/quiz N` moves the position;
- random: an item of the pool (the bank, or its questions of a type or tags) the person has not
  been served yet; the served ones are kept per person and pool, so nothing repeats before the
  pool is used up;
- mistakes, favourites, review: each notebook entry, starred item or due card once per run;
- weak (`/quiz weak`, the button under `/weak`): the items of the person's weakest points
  (bot/domain/mastery.py, chosen when the run starts and kept as its tags), least likely to be
  recalled first, each once per run.

When the mode has nothing left the run is finished; `/quiz stop` ends it. Either way the person
gets a one-screen summary (answered, right, new mistakes, time), counted from the answers in
the rounds the run asked: the database says, not a counter kept here. A "next" after a run has
ended starts a new one in the same mode (sequential from the top after a finished pass). A
command in another mode (`/quiz 填空` during `/quiz 多选`) ends the open run too: its summary,
when something was answered, comes above the new mode's first question.

A typed "next" while the person's own practice question here is still unanswered skips it: the
next question comes with that one's answer and explanation above it (nothing is recorded, no
grade, no mistake), so that no question goes by without its answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from bot.application.presenting import correct_label, tag_label
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError, no_number, no_questions
from bot.application.replies import Reply, TextView
from bot.application.requests import Ask
from bot.application.study.feed import StudyFeed
from bot.domain import grading
from bot.domain.doubts import explanation_text
from bot.domain.kinds import ChatRef, RoundKind, UserRef
from bot.domain.mastery import weak_items
from bot.domain.next_question import matching
from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.readiness import Evidence, evidence, with_key_point_scores
from bot.domain.records import Chat
from bot.domain.study_records import PracticeRun
from bot.locales.i18n import t
from bot.ports.study_storage import StudyStore
from bot.views.progress import LocalDays
from bot.views.quiz import QuestionView
from bot.views.quiz_text import local_time
from bot.views.study import RunSummaryView
from bot.views.study_text import render_run_summary

SEQUENTIAL, RANDOM, MISTAKES, FAVOURITES, REVIEW = "sequential", "random", "mistakes", "favourites", "review"
WEAK = "weak"
MODES = (SEQUENTIAL, RANDOM, MISTAKES, FAVOURITES, REVIEW, WEAK)


@dataclass(frozen=True, slots=True)
class Spec:
    """What a run asks from: its mode and filters."""

    mode: str
    qtype: QuestionType | None = None
    tags: tuple[str, ...] = ()

    def matches(self, run: PracticeRun) -> bool:
        qtype = str(self.qtype) if self.qtype else None
        return (run.mode, run.qtype, run.tags) == (self.mode, qtype, self.tags)

    @property
    def pool(self) -> str:
        """The random-practice pool's key: type and tags."""
        return f"{self.qtype or '*'}|{','.join(sorted(self.tags)) or '*'}"


def spec_of(run: PracticeRun) -> Spec:
    return Spec(run.mode, QuestionType(run.qtype) if run.qtype else None, run.tags)


class _Finished(Exception):
    """The run's mode has nothing left to ask (`detail`: what to add to the summary)."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


class Drill:
    def __init__(self, quiz: Quiz, store: StudyStore, feed: StudyFeed) -> None:
        self.quiz = quiz
        self.store = store
        self.feed = feed
        # The learner's days (their chat's time zone and their day start, /settings daystart):
        # set by StudyUseCases; without it, the chat's days from midnight.
        self.days: Callable[[int, str], Awaitable[LocalDays]] | None = None

    async def learner_days(self, user_id: int, timezone: str) -> LocalDays:
        if self.days is None:
            return LocalDays.at(self.quiz.clock.now(), timezone)
        return await self.days(user_id, timezone)

    # ------------------------------------------------------------ entry points

    async def start(self, chat_ref: ChatRef, user: UserRef | None, spec: Spec, language: str,
                    *, number: int | None = None) -> Reply:  # fmt: skip
        """A command's question: the open run continues when it has this mode and filters, else
        a new one starts with it. `number` (sequential): that question, which becomes the place."""
        if user is None:
            raise QuizError("error.no_user")
        run = await self._open_run(chat_ref, user)
        replaced = None
        if run is not None and not spec.matches(run):
            replaced, run = run, None  # the new run ends it: its summary goes above the question
        try:
            asked = await self._ask(chat_ref, user, spec, run, explicit=True, number=number)
            return await self._after_replaced(asked, replaced, language)
        except _Finished as done:
            if run is None:
                return await self._finished(run, done, language)
        # The open run has asked everything once: the command asks for more, so a new run goes
        # through them again (or says there is nothing, as for a first start).
        try:
            return await self._ask(chat_ref, user, spec, None, explicit=True, number=number)
        except _Finished as done:
            return await self._finished(None, done, language)

    async def next(self, chat_ref: ChatRef, user: UserRef, after: int | None = None) -> Reply:
        """"Next": the following question of the person's run here (a new run in the mode of
        the last one when it has ended; random practice when there was none), or its summary.
        From the button under round `after`'s answer when a later question of the run still
        waits for the person's answer (a second click, an old receipt): that one is named, and
        nothing is skipped."""
        chat = await self.quiz.chat(chat_ref)
        language = chat.settings.language
        try:
            user_id = await self.quiz.user_id(user)
            waiting = await self._waiting(chat.id, user_id, after) if after is not None else None
            if waiting is not None:
                return Reply(TextView(t(language, "drill.already_next", number=waiting)), language)
            latest = await self.store.latest_run(user_id, chat.id)
            if latest is not None and latest.bank_id != self.quiz.bank_for(chat).id:
                latest = None  # the chat changed banks: the run is of another bank
            spec = spec_of(latest) if latest is not None else Spec(RANDOM)
            run = latest if latest is not None and latest.ended_at is None else None
            skipped = await self._unanswered(chat.id, user_id) if after is None else None
            lead = skipped_text(skipped, language) if skipped is not None else ""
            try:
                return _led(await self._ask(chat_ref, user, spec, run, explicit=run is None), lead)
            except _Finished as done:
                return await self._finished(run, done, language, lead=lead)
        except QuizError as exc:
            return Reply(TextView(exc.render(language)), language)

    async def stop(self, chat_ref: ChatRef, user: UserRef | None, language: str) -> Reply:
        """`/quiz stop`: end the person's run here with its summary."""
        run = await self._open_run(chat_ref, user) if user is not None else None
        if run is None:
            raise QuizError("drill.no_run")
        return await self._summary(run, language, finished=False)

    async def _waiting(self, chat_id: int, user_id: int, after: int) -> int | None:
        """The number of a practice question asked here after round `after` that the person has
        not answered yet (the chat's last round), or None."""
        question = await self._unanswered(chat_id, user_id, after)
        return question.number if question is not None else None

    async def _unanswered(self, chat_id: int, user_id: int, after: int = 0) -> Question | None:
        """The person's practice question open here (the chat's last round, asked after round
        `after`, in their open run) that they have not answered yet, or None."""
        last = await self.quiz.store.last_round(chat_id)
        if last is None or last.id <= after or last.kind is not RoundKind.PRACTICE:
            return None
        if not last.takes_answers(self.quiz.clock.now()):
            return None
        if await self.quiz.store.user_answer(last.id, user_id) is not None:
            return None
        latest = await self.store.latest_run(user_id, chat_id)
        if latest is None or latest.ended_at is not None:
            return None
        if last.question_id not in await self.store.run_questions(latest.id):
            return None  # someone else's question (a group): not this person's run
        bank = self.quiz.banks.get(last.bank_id)
        try:
            return bank.question(last.question_id) if bank is not None else None
        except KeyError:
            return None

    async def evidence(self, user_id: int, bank: Bank) -> Evidence:
        """The person's cards and answers on `bank` (what mastery and readiness are worked from)."""
        keys = [(user_id, bank.id, q.id) for q in bank.questions]
        cards = {key[2]: card for key, card in (await self.store.cards(keys)).items()}
        memory = (await self.feed.memories({user_id})).get(user_id)  # their own FSRS parameters
        parameters = memory.parameters if memory is not None else None
        ungraded = await self.store.ungraded(user_id, bank.id)
        for question in bank.questions:
            if question.id in ungraded:
                await grading.prepare(question)  # the segmenter, off the event loop
        grades = with_key_point_scores(bank, await self.store.grades(user_id, bank.id), ungraded)
        return evidence(cards, grades, parameters)

    async def pending_self_grade(self, chat_ref: ChatRef, user: UserRef) -> int | None:
        chat = await self.quiz.chat(chat_ref)
        return await self.store.pending_self_grade(await self.quiz.user_id(user), chat.id)

    # ------------------------------------------------------------ the steps

    async def _finished(self, run: PracticeRun | None, done: _Finished, language: str, *,
                        lead: str = "") -> Reply:  # fmt: skip
        """Nothing left to ask: the run's summary, or (no run yet) what the mode says instead;
        `lead` above it (the question just skipped)."""
        if run is None:
            text = done.detail or t(language, "drill.no_run")
            return Reply(TextView(f"{lead}\n\n{text}" if lead else text), language)
        return await self._summary(run, language, finished=True, detail=done.detail, lead=lead)

    async def _after_replaced(self, asked: Reply, replaced: PracticeRun | None, language: str) -> Reply:
        """The first question of a new run that ended `replaced` (another mode), with that run's
        summary above it when something was answered in it."""
        if replaced is None:
            return asked
        view = await self._summary_view(replaced, language, finished=False)
        if not view.answered:
            return asked
        return _led(asked, render_run_summary(view, how=False))

    async def _open_run(self, chat_ref: ChatRef, user: UserRef) -> PracticeRun | None:
        chat = await self.quiz.chat(chat_ref)
        latest = await self.store.latest_run(await self.quiz.user_id(user), chat.id)
        if latest is None or latest.ended_at is not None:
            return None
        return latest

    async def _ask(self, chat_ref: ChatRef, user: UserRef, spec: Spec, run: PracticeRun | None, *,
                   explicit: bool, number: int | None = None) -> Reply:  # fmt: skip
        chat = await self.quiz.chat(chat_ref)
        bank = self.quiz.bank_for(chat)
        user_id = await self.quiz.user_id(user)
        await self.feed.catch_up()  # the notebook and the due cards include the last answer
        asked = await self.store.run_questions(run.id) if run is not None else set()
        place: tuple[int, int] | None = None
        if spec.mode == SEQUENTIAL:
            question, place = await self._sequential(user_id, bank, spec, number, explicit)
        elif spec.mode == RANDOM:
            question = await self._random(user_id, bank, spec, explicit)
        else:
            question = await self._listed(user_id, bank, spec, asked, run is not None, chat)
        view = await self.quiz.ask(Ask(chat_ref, user, only=frozenset({question.id})))
        if run is None:
            now = self.quiz.clock.now()
            tags = spec.tags
            run = await self.store.start_run(
                PracticeRun(0, user_id, chat.id, bank.id, spec.mode, str(spec.qtype) if spec.qtype else None,
                            tags, now)
            )  # fmt: skip
        notebook = await self.store.mistakes([(user_id, bank.id, question.id)])
        entry = notebook.get((user_id, bank.id, question.id))
        await self.store.add_run_item(run.id, view.round_id, question.id, entry is not None and entry.active)
        if spec.mode == RANDOM:
            await self.store.mark_seen(user_id, bank.id, spec.pool, question.id)
        shown: QuestionView = replace(view, place=place) if place is not None else view
        return Reply(shown, chat.settings.language, public=True)

    def _candidates(self, bank: Bank, spec: Spec) -> list[Question]:
        found = matching(bank, qtype=spec.qtype)
        if spec.tags:
            wanted = set(spec.tags)
            found = [q for q in found if wanted & {x.lower() for x in q.tags}]
        if not found:
            raise no_questions(", ".join(spec.tags) if spec.tags else None, spec.qtype)
        return found

    async def _sequential(self, user_id: int, bank: Bank, spec: Spec, number: int | None,
                          explicit: bool) -> tuple[Question, tuple[int, int]]:  # fmt: skip
        """The question after the person's position (or `number`), which becomes the position."""
        if number is not None:
            ordered = sorted(bank.questions, key=lambda q: q.number)
            question = next((q for q in ordered if q.number == number), None)
            if question is None:
                raise no_number(bank, number)
        else:
            ordered = sorted(self._candidates(bank, spec), key=lambda q: q.number)
            last = await self.store.practice_position(user_id, bank.id)
            following = next((q for q in ordered if q.number > last), None)
            if following is None:
                if not explicit:  # a pass through the bank is done: the next one starts at the top
                    await self.store.set_practice_position(user_id, bank.id, 0)
                    raise _Finished()
                following = ordered[0]
            question = following
        await self.store.set_practice_position(user_id, bank.id, question.number)
        return question, (ordered.index(question) + 1, len(ordered))

    async def _random(self, user_id: int, bank: Bank, spec: Spec, explicit: bool) -> Question:
        """An item of the pool not served yet; a used-up pool finishes the run (a command starts
        the pool over)."""
        candidates = self._candidates(bank, spec)
        seen = await self.store.seen(user_id, bank.id, spec.pool)
        fresh = [q for q in candidates if q.id not in seen]
        if not fresh:
            await self.store.clear_seen(user_id, bank.id, spec.pool)
            if not explicit:
                raise _Finished()
            fresh = candidates
        return fresh[self.quiz.rng.randrange(len(fresh))]

    async def _listed(self, user_id: int, bank: Bank, spec: Spec, asked: set[str], running: bool,
                      chat: Chat) -> Question:  # fmt: skip
        """Mistakes, favourites, due cards: each once per run, in their own order."""
        known = {q.id: q for q in bank.questions}
        if spec.mode == MISTAKES:
            ids = [m.question_id for m in await self.store.notebook(user_id, bank.id)]
            if spec.tags:
                ids = [i for i in ids if i in known and set(spec.tags) & set(known[i].tags)]
        elif spec.mode == FAVOURITES:
            ids = await self.store.favourites(user_id, bank.id)
        elif spec.mode == WEAK:
            seen = await self.evidence(user_id, bank)
            ids = [q.id for q in weak_items(bank, spec.tags, seen, self.quiz.clock.now())]
        else:
            # Review: the cards due now. Today's others (a learning step back in ten minutes)
            # are not served early, which would skip the step; when none is due now,
            # _review_detail says when the next one is, and "today's reviews are done" only
            # once nothing more falls due before the learner's day ends (/stats' "due today").
            now = self.quiz.clock.now()
            ids = [c.question_id for c in await self.store.due_cards(user_id, bank.id, now, 200)]
        left = [i for i in ids if i in known and i not in asked]
        if left:
            return known[left[0]]
        if spec.mode == REVIEW:  # nothing (more) due: when the next card is
            raise _Finished(await self._review_detail(user_id, bank, chat))
        if running:
            raise _Finished()
        raise QuizError(_EMPTY[spec.mode])

    async def _review_detail(self, user_id: int, bank: Bank, chat: Chat) -> str:
        language = chat.settings.language
        following = await self.store.next_due(user_id, bank.id)
        if following is None:
            return t(language, "review.no_cards")
        zone = chat.settings.timezone
        # "Today's reviews are done" only when the next card is not due later today (the
        # learner's today, as /stats counts it); else just "nothing due now".
        done_today = following >= (await self.learner_days(user_id, zone)).start(1)
        key = "review.done" if done_today else "review.done_for_now"
        return t(language, key, when=local_time(following, zone))

    async def _summary(self, run: PracticeRun, language: str, *, finished: bool, detail: str = "",
                       lead: str = "") -> Reply:  # fmt: skip
        await self.store.end_run(run.id, self.quiz.clock.now())
        view = await self._summary_view(run, language, finished=finished, detail=detail)
        return Reply(replace(view, lead=lead), language)

    async def _summary_view(self, run: PracticeRun, language: str, *, finished: bool,
                            detail: str = "") -> RunSummaryView:  # fmt: skip
        tally = await self.store.run_tally(run.id)
        seconds = 0
        if tally.last_at is not None:
            seconds = max(0, round((tally.last_at - run.started_at).total_seconds()))
        bank = self.quiz.banks.get(run.bank_id)
        tags = tuple(tag_label(language, bank, tag) for tag in run.tags) if bank is not None else run.tags
        view = RunSummaryView(
            language, run.mode, run.qtype, tags, tally.answered, tally.right, tally.new_mistakes, seconds,
            finished, detail,
        )  # fmt: skip
        return view


def skipped_text(question: Question, language: str) -> str:
    """A practice question skipped with "next": its answer and explanation (nothing recorded)."""
    lines = [t(language, "drill.skipped", number=question.number, answer=correct_label(question, language))]
    if question.explanation or question.doubt:
        lines.append(t(language, "memorise.explanation", explanation=explanation_text(language, question)))
    return "\n".join(lines)


def _led(reply: Reply, lead: str) -> Reply:
    """`reply` with `lead` above its question (a summary or a text: above its text)."""
    if not lead:
        return reply
    view = reply.view
    if isinstance(view, QuestionView):
        return replace(reply, view=replace(view, lead=f"{view.lead}\n\n{lead}" if view.lead else lead))
    if isinstance(view, TextView):
        return replace(reply, view=TextView(f"{lead}\n\n{view.text}"))
    if isinstance(view, RunSummaryView):
        return replace(reply, view=replace(view, lead=lead))
    return reply


# What starting a mode says when it has nothing at all.
_EMPTY = {MISTAKES: "mistakes.empty", FAVOURITES: "favorites.empty", WEAK: "weak.empty"}
