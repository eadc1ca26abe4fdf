"""The PostgreSQL implementation of the core's Store port, on an asyncpg pool: chats, users and
rounds are ChatsAndRounds (chats_rounds.py) run through this store's `Database`
(postgres/database.py); here is what is PostgreSQL's own: the pool and transactions, users
registered in bulk (arrays), the answer ingest, scoring and the leaderboards.

Every write is one transaction on a pooled connection; reads go to the pool too and see only
committed rows. A unit of work (`unit_of_work()`) pins one connection and one transaction to
the task: every write (and read) the task makes through this backend meanwhile joins it.

A lost server (restarting, network gone) raises the core's StoreUnavailable, a server out of
disk space StoreFull: nothing was committed, and the pool connects again by itself once the
server is back. Either is logged once per episode (fault_episodes.py).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import asyncpg

from adapters.storage.chats_rounds import ChatsAndRounds
from adapters.storage.database import Database
from adapters.storage.fault_episodes import FaultEpisodes
from adapters.storage.postgres import reads
from adapters.storage.postgres.answers import (
    APPLY_SCORES,
    NOT_ALL_NEW,
    accept_all,
    all_accepted,
    batch_columns,
    record_answers,
)
from adapters.storage.postgres.database import PostgresDatabase
from adapters.storage.postgres.migrate import migrate
from adapters.storage.postgres.open_errors import classify
from bot.domain.kinds import UserRef
from bot.domain.records import AnswerOutcome, NewAnswer, ScoreRow, StoredAnswer, StreakRecord, UserTotals
from bot.ports.storage import StoreFull, StoreUnavailable

LOST = (OSError, asyncpg.PostgresConnectionError, asyncpg.exceptions.OperatorInterventionError)


def is_lost(exc: BaseException) -> bool:
    """The server or the connection to it is gone (not a refusal of the statement itself)."""
    if isinstance(exc, LOST):
        return True
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def unavailable(exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(f"the PostgreSQL server cannot be reached: {type(exc).__name__}")


def fault_of(exc: BaseException) -> StoreUnavailable | None:
    """The core's StoreUnavailable for a lost server, StoreFull for a server out of disk space
    (SQLSTATE 53100); None for anything else (a refusal of the statement, a bug)."""
    if is_lost(exc):
        return unavailable(exc)
    if isinstance(exc, asyncpg.DiskFullError):
        return StoreFull(f"the PostgreSQL server's disk is full: {exc}")
    return None


async def keep_session(conn: asyncpg.Connection) -> None:
    """Nothing to undo when the pool takes a connection back (asyncpg has already rolled back
    an open transaction): the store leaves no session state behind (no LISTEN, which the
    broadcast does on a connection of its own, no session settings, cursors or session-level
    advisory locks). asyncpg's default reset is a round trip of four statements after every
    statement run on the pool, before its result is handed back: one for every group commit."""


class PostgresStore(ChatsAndRounds):
    scores_sql = APPLY_SCORES

    def __init__(self, dsn: str, *, max_connections: int = 10) -> None:
        self.sql: Database = PostgresDatabase(self)
        self.dsn = dsn
        self.max_connections = max_connections
        self._pool: asyncpg.Pool | None = None
        self.faults = FaultEpisodes()  # a lost server or full disk: one warning, one line once back
        self._unit: contextvars.ContextVar[tuple[asyncio.Task[Any], asyncpg.Connection] | None] = (
            contextvars.ContextVar(f"pg_unit_{id(self)}", default=None)
        )

    @classmethod
    async def open(cls, dsn: str, *, max_connections: int = 10) -> PostgresStore:
        store = cls(dsn, max_connections=max_connections)
        await store.connect()
        return store

    async def connect(self) -> None:
        """Connect, and bring the schema up to date; a StoreOpenError says why not."""
        try:
            self._pool = await asyncpg.create_pool(
                self.dsn,
                min_size=1,
                max_size=self.max_connections,
                server_settings={"jit": "off"},
                reset=keep_session,
            )
            async with self._pool.acquire() as conn:
                await migrate(conn)
        except BaseException as exc:
            await self.close()
            problem = classify(exc, self.dsn)
            if problem is None or problem is exc:
                raise
            raise problem from None  # the driver's traceback would show the URL, password and all

    @property
    def is_open(self) -> bool:
        return self._pool is not None

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("store is not open")
        return self._pool

    def _unit_conn(self) -> asyncpg.Connection | None:
        unit = self._unit.get()
        if unit is not None and unit[0] is asyncio.current_task():
            return unit[1]
        return None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """One write transaction; committed on exit, rolled back on any error. Inside this task's
        unit of work it is part of the unit's transaction instead."""
        joined = self._unit_conn()
        if joined is not None:
            yield joined
            return
        with self._faults_as_unavailable():
            async with self.pool.acquire() as conn, conn.transaction():
                yield conn
        self.faults.succeeded()

    @contextmanager
    def _faults_as_unavailable(self) -> Iterator[None]:
        """A lost server (or one out of disk space) is the core's StoreUnavailable (StoreFull),
        counted in this store's fault episodes; any other error passes as it is."""
        try:
            yield
        except Exception as exc:
            fault = fault_of(exc)
            if fault is None:
                raise
            self.faults.failed(fault)
            raise fault from exc

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        if self._unit_conn() is not None:
            yield
            return
        task = asyncio.current_task()
        assert task is not None
        async with self.transaction() as conn:
            token = self._unit.set((task, conn))
            try:
                yield
            finally:
                self._unit.reset(token)

    async def one(self, sql: str, *params: Any) -> asyncpg.Record | None:
        joined = self._unit_conn()
        with self._faults_as_unavailable():
            return await (self.pool if joined is None else joined).fetchrow(sql, *params)

    # PostgreSQL's reads see every committed row at once: reading one's own write is a read.
    read_own = one

    async def all(self, sql: str, *params: Any) -> list[asyncpg.Record]:
        joined = self._unit_conn()
        with self._faults_as_unavailable():
            return list(await (self.pool if joined is None else joined).fetch(sql, *params))

    # ------------------------------------------------------------ users (the rest: chats_rounds.py)

    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) users in one transaction; their ids, in order."""
        # One row per user (the last name given wins): ON CONFLICT DO UPDATE may touch a row once.
        names = {(str(r.platform), r.user_key): r.display_name for r in refs}
        platforms, keys = [p for p, _ in names], [k for _, k in names]
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO users AS u (platform, user_key, display_name) "
                "SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ORDER BY 1, 2 "
                "ON CONFLICT (platform, user_key) DO UPDATE SET display_name = excluded.display_name "
                "WHERE u.display_name != excluded.display_name",
                platforms, keys, list(names.values()),
            )  # fmt: skip
            rows = await db.fetch(
                "SELECT u.platform, u.user_key, u.id FROM users u "
                "JOIN unnest($1::text[], $2::text[]) AS k(platform, user_key) "
                "ON u.platform = k.platform AND u.user_key = k.user_key",
                platforms, keys,
            )  # fmt: skip
        found = {(r[0], r[1]): r[2] for r in rows}
        return [found[(str(r.platform), r.user_key)] for r in refs]

    # ------------------------------------------------------------ rounds

    # ------------------------------------------------------------ answers

    async def record_answers(self, batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
        columns = batch_columns(batch)
        if self._unit_conn() is None:
            # The usual batch in one statement, all or nothing, with no BEGIN and COMMIT round
            # trips; any other batch (a duplicate, a late answer, a changeable round) is told
            # apart by the full path, in a transaction.
            try:
                stored = await accept_all(self.pool, batch, columns)
            except NOT_ALL_NEW:
                stored = 0
            except Exception as exc:
                if is_lost(exc):
                    raise unavailable(exc) from exc
                raise
            if stored == len(batch):
                return all_accepted(batch)
        async with self.transaction() as db:
            return await record_answers(db, batch, columns)

    async def round_answers(self, round_id: int) -> list[StoredAnswer]:
        return reads.stored_answers(await self.all(reads.ROUND_ANSWERS, round_id))

    async def answer_count(self, round_id: int) -> int:
        row = await self.one("SELECT count(*) FROM answers WHERE round_id = $1", round_id)
        return int(row[0]) if row else 0

    async def user_answer(self, round_id: int, user_id: int) -> StoredAnswer | None:
        found = reads.stored_answers(await self.all(reads.USER_ANSWER, round_id, user_id))
        return found[0] if found else None

    # ------------------------------------------------------------ the leaderboards

    async def top_scores(self, scope: str, window: str, limit: int) -> list[ScoreRow]:
        return reads.ranked(await self.all(reads.TOP_SCORES, scope, window, limit))

    async def score_of(self, scope: str, window: str, user_id: int) -> ScoreRow | None:
        row = await self.one(reads.SCORE_OF, scope, window, user_id)
        return reads.score_row(row) if row else None

    async def streak(self, chat_id: int, user_id: int) -> StreakRecord:
        row = await self.one(
            "SELECT current, best, last_date FROM streaks WHERE chat_id = $1 AND user_id = $2",
            chat_id, user_id,
        )  # fmt: skip
        return StreakRecord(row[0], row[1], row[2]) if row else StreakRecord(0, 0, None)

    async def top_streaks(self, chat_id: int, round_id: int, limit: int) -> list[tuple[str, int]]:
        rows = await self.all(reads.TOP_STREAKS, chat_id, round_id, limit)
        return [(r[0], r[1]) for r in rows]

    async def totals(self, chat_id: int, user_id: int) -> UserTotals:
        row = await self.one(reads.TOTALS, user_id, chat_id)
        return UserTotals(int(row[0]), int(row[1]), float(row[2])) if row else UserTotals(0, 0, 0.0)

    async def recent_mistakes(self, chat_id: int, user_id: int, limit: int) -> list[str]:
        rows = await self.all(reads.RECENT_MISTAKES, user_id, chat_id, limit)
        return [r[0] for r in rows]
