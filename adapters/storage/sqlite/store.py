"""The SQLite implementation of the core's Store port, on aiosqlite.

One database file in WAL mode with foreign keys on. Writes go through one connection under an
asyncio lock, each an explicit BEGIN IMMEDIATE ... COMMIT; reads use a second connection so a
leaderboard never waits behind a burst of answers and never sees uncommitted rows.

Chats, users and rounds are ChatsAndRounds (chats_rounds.py), run through this store's
`Database` (sqlite/database.py); what is SQLite's own is here: connections and transactions,
users registered in bulk, and the answer path.

A unit of work (`unit_of_work()`) is one such transaction that the task's further writes join,
whichever aggregate's adapter makes them (SqliteScheduleStore and SqliteStudyStore share this
store's connections); reads inside it go to the writer, so they see what it wrote.
"""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from adapters.storage.chats_rounds import ChatsAndRounds
from adapters.storage.database import Database
from adapters.storage.migrations import migrate
from adapters.storage.open_errors import SchemaTooNew, classify, quick_check
from adapters.storage.sqlite import reads, users
from adapters.storage.sqlite.answers import APPLY_SCORES, CREATE_INCOMING, record_answers
from adapters.storage.sqlite.database import SqliteDatabase
from adapters.storage.sqlite.fetch import Params, fetch_all, fetch_one
from bot.kinds import UserRef
from bot.records import AnswerOutcome, NewAnswer, ScoreRow, StoredAnswer, StreakRecord, UserTotals


class SqliteStore(ChatsAndRounds):
    scores_sql = APPLY_SCORES

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.sql: Database = SqliteDatabase(self)
        self.path = str(path)
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        # The task whose unit of work holds the writer; tasks it starts inherit the variable, so
        # the owner is compared, not merely the variable's presence.
        self._unit_owner: contextvars.ContextVar[asyncio.Task[Any] | None] = contextvars.ContextVar(
            f"sqlite_unit_{id(self)}", default=None
        )

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "FULL") -> SqliteStore:
        store = cls(path, synchronous=synchronous)
        await store.connect()
        return store

    async def connect(self) -> None:
        """Open (creating, checking and migrating) the file; a StoreOpenError says why not."""
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            await asyncio.to_thread(_prepare_file, self.path)
            self._db = await self._connection()
            await self._db.execute(CREATE_INCOMING)
            self._reader = await self._connection()
        except (sqlite3.Error, OSError, SchemaTooNew) as exc:
            await self.close()
            problem = classify(exc, self.path)
            if problem is None:
                raise
            raise problem from exc

    async def _connection(self) -> aiosqlite.Connection:
        conn = await aiosqlite.connect(self.path, isolation_level=None)
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA busy_timeout = 5000")
        await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        return conn

    @property
    def is_open(self) -> bool:
        return self._db is not None

    async def close(self) -> None:
        for conn in (self._db, self._reader):
            if conn is not None:
                await conn.close()
        self._db = self._reader = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("store is not open")
        return self._db

    @property
    def reader(self) -> aiosqlite.Connection:
        if self._reader is None:
            raise RuntimeError("store is not open")
        return self._reader

    def _in_unit(self) -> bool:
        owner = self._unit_owner.get()
        return owner is not None and owner is asyncio.current_task()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; committed on exit, rolled back on any error. Inside this task's
        unit of work it is part of the unit's transaction instead."""
        if self._in_unit():
            yield self.db
            return
        async with self._write_lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        """The writes this task makes inside the block commit together, or none does."""
        if self._in_unit():  # nested: part of the outer unit
            yield
            return
        async with self.transaction():
            token = self._unit_owner.set(asyncio.current_task())
            try:
                yield
            finally:
                self._unit_owner.reset(token)

    async def one(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
        """One row (or None) read on the reader connection (on the writer inside a unit of work)."""
        return await fetch_one(self.db if self._in_unit() else self.reader, sql, params)

    async def read_own(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
        """A read on the writer, for reading back what was just written (read-your-writes)."""
        if self._in_unit():
            return await fetch_one(self.db, sql, params)
        async with self._write_lock:
            return await fetch_one(self.db, sql, params)

    async def all(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """Every row read on the reader connection (on the writer inside a unit of work)."""
        return await fetch_all(self.db if self._in_unit() else self.reader, sql, params)

    @property
    def _read_conn(self) -> aiosqlite.Connection:
        return self.db if self._in_unit() else self.reader

    # ------------------------------------------------------------ users (the rest: chats_rounds.py)

    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) users in one transaction; their ids, in order."""
        async with self.transaction() as db:
            return await users.register_users(db, refs)

    # ------------------------------------------------------------ rounds

    # ------------------------------------------------------------ answers (reads: sqlite/reads.py)

    async def record_answers(self, batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
        async with self.transaction() as db:
            return await record_answers(db, batch)

    async def round_answers(self, round_id: int) -> list[StoredAnswer]:
        return await reads.round_answers(self._read_conn, round_id)

    async def answer_count(self, round_id: int) -> int:
        return await reads.answer_count(self._read_conn, round_id)

    async def user_answer(self, round_id: int, user_id: int) -> StoredAnswer | None:
        return await reads.user_answer(self._read_conn, round_id, user_id)

    # ------------------------------------------------------------ scores (reads: sqlite/reads.py)

    async def top_scores(self, scope: str, window: str, limit: int) -> list[ScoreRow]:
        return await reads.top_scores(self._read_conn, scope, window, limit)

    async def score_of(self, scope: str, window: str, user_id: int) -> ScoreRow | None:
        return await reads.score_of(self._read_conn, scope, window, user_id)

    async def streak(self, chat_id: int, user_id: int) -> StreakRecord:
        return await reads.streak(self._read_conn, chat_id, user_id)

    async def top_streaks(self, chat_id: int, round_id: int, limit: int) -> list[tuple[str, int]]:
        """(name, current streak) of the longest streaks (> 1) among those right in a round."""
        return await reads.top_streaks(self._read_conn, chat_id, round_id, limit)

    async def totals(self, chat_id: int, user_id: int) -> UserTotals:
        return await reads.totals(self._read_conn, chat_id, user_id)

    async def recent_mistakes(self, chat_id: int, user_id: int, limit: int) -> list[str]:
        return await reads.recent_mistakes(self._read_conn, chat_id, user_id, limit)


def _prepare_file(path: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        quick_check(conn, path)  # before anything writes to a damaged file
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
    finally:
        conn.close()
