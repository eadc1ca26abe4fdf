"""The small async ports the core needs from the outside world: storage and publishing.

Storage is cut by aggregate: chats and users, rounds and answers, the leaderboard read model,
schedules, contests (and the study data, bot/ports/study_storage.py). `Store` is the first three
together, the face the Quiz sees; `Storage` is a whole backend with every aggregate and a unit
of work for writes that must commit together. Implementations live in `adapters/` (SQLite and
PostgreSQL in adapters/storage, chat platforms in their own packages); the contract tests in
tests/contract run the same tests against both storage backends.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.domain.kinds import ChatRef, UserRef
from bot.domain.records import (
    AnswerOutcome,
    Chat,
    ChatSettings,
    Contest,
    ContestPhase,
    ContestScore,
    DailySchedule,
    NewAnswer,
    NewRound,
    Round,
    ScoreRow,
    StoredAnswer,
    StoredBank,
    StreakRecord,
    UserTotals,
)
from bot.ports.exam_storage import ExamStore
from bot.ports.missing_extra import MissingExtra as MissingExtra  # re-exported: a backend raises it
from bot.ports.study_storage import LearnerMemoryStore, StudyStore
from bot.ports.web_storage import WebAccessStore as WebAccessStore  # re-exported: storage implements it
from bot.ports.web_storage import WebGrant as WebGrant
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView


class DuplicateDaily(Exception):
    """The chat already has a daily round for that local date."""


class ChatUserStore(Protocol):
    """The chats-and-users aggregate: chats, their settings and servers, and users."""

    async def ensure_chat(self, ref: ChatRef, defaults: ChatSettings) -> Chat:
        """The chat, added with `defaults` if new (in its server's language, if the server chose one)."""
        ...

    async def get_chat(self, chat_id: int) -> Chat | None: ...
    async def find_chat(self, platform: str, chat_key: str) -> Chat | None: ...
    async def update_chat(self, chat_id: int, settings: ChatSettings) -> Chat: ...
    async def set_chat_paused(self, chat_id: int, paused: bool) -> None: ...
    async def move_chat(self, chat_id: int, new_chat_key: str) -> None: ...
    async def set_guild_language(self, platform: str, guild_key: str, language: str) -> list[int]:
        """Save a server's language (Discord's /lang) and set it on every chat of that server, and
        on those added later; the ids of its chats now."""
        ...

    async def ensure_user(self, ref: UserRef) -> int: ...
    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) several users in one transaction; their ids in order."""
        ...

    async def find_user(self, ref: UserRef) -> int | None: ...


class RoundStore(Protocol):
    """The rounds-and-answers aggregate. The database holds the rules: one answer per user and
    round (UNIQUE), nothing taken by a closed or overdue round, scores applied with the answers
    or the close that makes them count."""

    async def question_counts(self, chat_id: int, bank_id: str) -> dict[str, int]:
        """How many rounds of each question the chat has had from this bank."""
        ...

    async def open_round(self, new: NewRound) -> Round:
        """Insert a round; raises DuplicateDaily if the chat has that date's daily already."""
        ...

    async def get_round(self, round_id: int) -> Round | None: ...
    async def set_message_ref(self, round_id: int, message_ref: str) -> None: ...
    async def round_by_message(self, chat_id: int, message_ref: str) -> Round | None:
        """The round whose question is that platform message (the latest, if several)."""
        ...

    async def open_rounds(self) -> list[Round]: ...
    async def last_round(self, chat_id: int) -> Round | None: ...
    async def restart_round(self, round_id: int, opened_at: datetime, closes_at: datetime) -> None: ...
    async def close_round(
        self, round_id: int, closed_at: datetime, *, due_by: datetime | None = None
    ) -> bool:
        """Mark the round closed and score it; True only for the call that closed it. With
        `due_by`, only if its `closes_at` is no later, checked in the closing statement itself:
        a timer another process restarted after the caller's check keeps the round open."""
        ...

    # answers
    async def record_answers(self, batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
        """Commit a batch of answers in one transaction; one outcome per input, in order."""
        ...

    async def self_grade(
        self, round_id: int, user_id: int, verdict: str, fraction: float, points: float
    ) -> bool: ...
    async def round_answers(self, round_id: int) -> list[StoredAnswer]: ...
    async def answer_count(self, round_id: int) -> int: ...
    async def user_answer(self, round_id: int, user_id: int) -> StoredAnswer | None: ...


class LeaderboardStore(Protocol):
    """The read model kept from the answers: scores by scope and window, ranks, streaks, totals."""

    async def top_scores(self, scope: str, window: str, limit: int) -> list[ScoreRow]: ...
    async def score_of(self, scope: str, window: str, user_id: int) -> ScoreRow | None: ...
    async def streak(self, chat_id: int, user_id: int) -> StreakRecord: ...
    async def top_streaks(self, chat_id: int, round_id: int, limit: int) -> list[tuple[str, int]]: ...
    async def totals(self, chat_id: int, user_id: int) -> UserTotals: ...
    async def recent_mistakes(self, chat_id: int, user_id: int, limit: int) -> list[str]: ...


class UnitOfWork(Protocol):
    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        """Every write this task makes through the backend inside the block commits together
        (or none does). Reads inside see those writes. Other tasks are not part of it."""
        ...


class Store(ChatUserStore, RoundStore, LeaderboardStore, UnitOfWork, Protocol):
    """What the Quiz uses: chats and users, rounds and answers, and the leaderboards."""

    async def close(self) -> None: ...


class ContestRunning(Exception):
    """The chat already has a contest running."""


class DailyStore(Protocol):
    """The schedules aggregate: each chat's daily question schedule."""

    async def save_daily(self, schedule: DailySchedule) -> None: ...
    async def get_daily(self, chat_id: int) -> DailySchedule | None: ...
    async def enabled_dailies(self) -> list[DailySchedule]: ...
    async def daily_round(self, chat_id: int, daily_date: str) -> Round | None: ...
    async def close_expired_practice(self, now: datetime) -> int: ...
    async def overdue_dailies(self, now: datetime) -> list[int]:
        """The open daily rounds whose deadline has passed (the overdue sweep closes them)."""
        ...


ScheduleStore = DailyStore


class ContestStore(Protocol):
    """The contests aggregate: a contest's progress and its players' scores."""

    async def create_contest(
        self, chat_id: int, question_ids: Sequence[str], seconds: int, pause_seconds: float, now: datetime
    ) -> Contest:
        """Raises ContestRunning if the chat has one running."""
        ...

    async def get_contest(self, contest_id: int) -> Contest | None: ...
    async def running_contest(self, chat_id: int) -> Contest | None: ...
    async def running_contests(self) -> list[Contest]: ...
    async def latest_contest(self, chat_id: int) -> Contest | None: ...
    async def set_contest_phase(
        self,
        contest_id: int,
        *,
        position: int,
        phase: ContestPhase,
        phase_until: datetime | None,
        round_id: int | None,
        now: datetime,
    ) -> None: ...
    async def contest_scores(self, contest_id: int) -> list[ContestScore]: ...
    async def save_contest_scores(
        self, contest_id: int, position: int, scores: Sequence[ContestScore]
    ) -> bool:
        """Store the totals after question `position`; False if that question was scored already."""
        ...


class ScheduleAndContestStore(DailyStore, ContestStore, Protocol):
    """Both, as one object (the backends keep schedules and contests together)."""


class SelectionStore(Protocol):
    """Selections being built with option buttons before Submit, per round and person: tokens in
    the order tapped (a multiple choice reads them as a set, an ordering as the order)."""

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        """Add `token` at the end, or take it out if it is in; the selection now, in order."""
        ...

    async def undo(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        """Take the last token out; the selection now."""
        ...

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]: ...
    async def take(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        """The selection, removed (it is being submitted)."""
        ...

    async def forget_round(self, round_id: int) -> None: ...


class ThrottleStore(Protocol):
    """Request limits counted in the database, so several processes keep one limit together."""

    async def hit(self, key: str, limit: int, window: float, now: float) -> float:
        """Count a request for `key` at `now` (epoch seconds): 0 if within `limit` in the window
        begun by the key's first request, else the seconds until a new window begins."""
        ...

    async def forget_throttles(self, before: float) -> int: ...


class UploadedBankStore(Protocol):
    """Banks uploaded in chats (bot/application/bank_uploads.py)."""

    async def save_bank(self, bank: StoredBank) -> None:
        """Insert, or replace the bank with the same id (an edited re-upload)."""
        ...

    async def stored_banks(self) -> list[StoredBank]: ...

    async def hold_upload(self, chat: tuple[str, str], bank: StoredBank, expires: datetime) -> None:
        """Keep the chat's (platform, chat key) upload waiting for /bank confirm until `expires`,
        replacing one it had; uploads expired meanwhile are forgotten."""
        ...

    async def take_upload(self, chat: tuple[str, str], now: datetime) -> StoredBank | None:
        """The chat's waiting upload, taken (once, whichever process asks); None if it has none,
        or it expired by `now`."""
        ...


PostView = QuestionView | RevealView | StandingsView | Notice


@dataclass(frozen=True, slots=True)
class PendingPost:
    """A post the bot owes a chat, kept in the database until the platform took it."""

    id: int
    chat_id: int
    view: PostView
    round_id: int | None  # a question's round (its message ref is stored on delivery), a reveal's
    created_at: datetime
    attempts: int = 0
    last_error: str = ""

    @property
    def what(self) -> str:
        return post_kind(self.view)


def post_kind(view: PostView) -> str:
    if isinstance(view, QuestionView):
        return "question"
    if isinstance(view, RevealView):
        return "reveal"
    if isinstance(view, StandingsView):
        return "standings"
    return "notice"


class OutboxStore(UnitOfWork, Protocol):
    """The outbox aggregate: posts owed to chats, oldest first per chat, until delivered.

    `add_post` joins the caller's unit of work, so a post is owed exactly when the state change
    that causes it (a round opened or closed, a contest step) is committed."""

    async def add_post(self, chat_id: int, view: PostView, round_id: int | None, now: datetime) -> int: ...
    async def next_post(self, chat_id: int) -> PendingPost | None:
        """The chat's oldest pending post."""
        ...

    async def post_delivered(self, post_id: int) -> None: ...
    async def post_failed(self, post_id: int, error: str) -> None:
        """Count a failed attempt (the post stays owed)."""
        ...

    async def drop_posts(self, chat_id: int) -> int:
        """Forget every post owed to a chat (it is gone); how many."""
        ...

    async def drop_questions(self, round_id: int) -> int:
        """Forget a round's question still owed (its time is over: the reveal replaces it)."""
        ...

    async def question_owed(self, round_id: int) -> bool:
        """Whether the round's question is still owed (not yet posted)."""
        ...

    async def pending_posts(self) -> list[PendingPost]:
        """Every post still owed, by chat and age."""
        ...

    async def pending_chats(self) -> list[int]:
        """The chats owed at least one post."""
        ...

    async def oldest_pending(self) -> datetime | None:
        """When the oldest post still owed was written."""
        ...

    # Several processes deliver from one outbox: one process at a time delivers to a chat, under
    # a lease it renews while it works; a lease not renewed (its process died) is taken over.
    async def hold_chat(self, chat_id: int, owner: str, now: datetime, until: datetime) -> bool:
        """Take (or keep) the lease on delivering to the chat until `until`; False while another
        owner's lease runs."""
        ...

    async def release_chat(self, chat_id: int, owner: str) -> None: ...
    async def renew_chats(self, owner: str, until: datetime) -> int:
        """Extend every lease the owner holds; how many."""
        ...

    async def unheld_chats(self, owner: str, now: datetime, owed_before: datetime, limit: int) -> list[int]:
        """Chats owed a post written before `owed_before` that nobody else's lease covers (none,
        expired, or the owner's own)."""
        ...

    async def pending_count(self) -> int:
        """How many posts are still owed (the outbox's queue depth)."""
        ...


class FiringStore(Protocol):
    """Due work done once, whichever of several processes on the database fires it, and the
    processes alive.

    A firing's key names its schedule, round or contest, its date or step, and its kind. The
    claim joins the caller's unit of work: it commits with the work it guards, so a process that
    dies before its commit leaves the firing free for another."""

    async def claim_firing(self, key: str, owner: str, now: datetime) -> bool:
        """True for the one claim of `key` that commits; False if it is claimed already."""
        ...

    async def forget_firings(self, before: datetime) -> int:
        """Drop claims made before `before` (their schedules have moved on); how many."""
        ...

    async def heartbeat(self, owner: str, now: datetime, until: datetime) -> int:
        """Say the owner is alive until `until`; how many processes are alive now, itself included."""
        ...

    async def leave(self, owner: str) -> None:
        """The owner stops: forget it and release its outbox leases, so others take over at once."""
        ...


class Storage(UnitOfWork, Protocol):
    """One storage backend, every aggregate on one database."""

    @property
    def shared(self) -> bool:
        """Whether several processes may run on this database (then a person's toggles and
        request limits are kept in it, and the outbox pins the chats it is sending to)."""
        ...

    @property
    def store(self) -> Store: ...
    @property
    def outbox(self) -> OutboxStore: ...
    @property
    def schedules(self) -> ScheduleAndContestStore: ...
    @property
    def study(self) -> StudyStore: ...
    @property
    def exams(self) -> ExamStore: ...
    @property
    def memory(self) -> LearnerMemoryStore: ...
    @property
    def banks(self) -> UploadedBankStore: ...
    @property
    def firings(self) -> FiringStore: ...
    @property
    def selections(self) -> SelectionStore: ...
    @property
    def throttles(self) -> ThrottleStore: ...
    @property
    def web(self) -> WebAccessStore: ...
    async def ping(self) -> None:
        """Run a trivial query (SELECT 1): raises when the database cannot be reached."""
        ...

    async def close(self) -> None: ...


class StoreUnavailable(Exception):
    """The database cannot be reached right now (lost connection, server restarting): nothing
    was committed; the same request may be tried again."""


class StoreFull(StoreUnavailable):
    """The database cannot write right now: its disk (or quota) is full, or failing. Nothing was
    committed; the same request may succeed once space is freed. Reads still work."""
