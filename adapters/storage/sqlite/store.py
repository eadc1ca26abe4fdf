"""The SQLite implementation of the core's Store port, on aiosqlite.

One database file in WAL mode with foreign keys on. Writes go through one connection under an
asyncio lock, each an explicit BEGIN IMMEDIATE ... COMMIT; reads use a second connection so a
leaderboard never waits behind a burst of answers and never sees uncommitted rows.

Chats, users and rounds are ChatsAndRounds (chats_rounds.py), run through this store's
`Database` (sqlite/database.py); what is SQLite's own is here: connections and transactions,
users registered in bulk, and the answer path.

A unit of work (`unit_of_work()`) is one such transaction that the task's further writes join,
whichever aggregate's store makes them (they all run on this store's connections, through
`self.sql`); reads inside it go to the writer, so they see what it wrote.

A full or failing disk (SQLITE_FULL, SQLITE_IOERR_*) raises the core's StoreFull, logged once
per episode (fault_episodes.py); a small disk gets a WAL sized to it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from adapters.storage.chats_rounds import ChatsAndRounds
from adapters.storage.database import Database
from adapters.storage.fault_episodes import FaultEpisodes
from adapters.storage.migrations import LATEST, migrate
from adapters.storage.open_errors import SchemaTooNew, classify, quick_check
from adapters.storage.sqlite import reads, users
from adapters.storage.sqlite.answers import APPLY_SCORES, CREATE_INCOMING, record_answers
from adapters.storage.sqlite.database import SqliteDatabase
from adapters.storage.sqlite.fetch import fetch_all, fetch_one
from bot.domain.kinds import UserRef
from bot.domain.records import AnswerOutcome, NewAnswer, ScoreRow, StoredAnswer, StreakRecord, UserTotals
from bot.ports.storage import StoreFull

log = logging.getLogger("studybot.storage")
MIN_AUTOCHECKPOINT = 16  # pages: the smallest automatic checkpoint a small disk is given
WAL_FRAME_HEADER = 24  # bytes before each page in the WAL
FOLD_EVERY = 5.0  # seconds: a full disk folds the WAL at most this often


class SqliteStore(ChatsAndRounds):
    scores_sql = APPLY_SCORES

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.sql: Database = SqliteDatabase(self)
        self.path = str(path)
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self.faults = FaultEpisodes()  # a full disk: one warning, and one line once it writes again
        self._folded = float("-inf")  # when the WAL was last folded after a full disk
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
            await self._size_wal_to_disk()
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
            try:
                await self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield self.db
                    await self.db.execute("COMMIT")
                except BaseException:
                    # After a full disk or an I/O error SQLite may have rolled back already; a
                    # COMMIT that failed may have left the transaction open (the next BEGIN
                    # would fail for good): undone either way.
                    if self.db.in_transaction:
                        await self._roll_back()
                    raise
            except sqlite3.Error as exc:
                fault = _fault(exc)
                if fault is None:
                    raise
                self.faults.failed(fault)
                await self._fold_wal()
                raise fault from exc
        self.faults.succeeded()

    async def _roll_back(self) -> None:
        """ROLLBACK, unless the transaction has ended meanwhile: a COMMIT cancelled (at shutdown)
        while aiosqlite's thread runs it still completes, after `in_transaction` was read."""
        try:
            await self.db.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if "no transaction is active" not in str(exc):
                raise

    async def _fold_wal(self) -> None:
        """After a full disk: checkpoint at half the WAL the disk held from now on, so the WAL
        does not fill it again, and try to fold the WAL into the file and truncate it (it fails
        when the file itself would have to grow). Best effort, at most every FOLD_EVERY seconds,
        and without waiting for a reader (the writer is held meanwhile)."""
        now = time.monotonic()
        if self.path == ":memory:" or now - self._folded < FOLD_EVERY:
            return
        self._folded = now
        try:
            wal = await asyncio.to_thread(os.path.getsize, self.path + "-wal")
            held = wal // (WAL_FRAME_HEADER + await self._page_size())
            if held > 0:
                await self._limit_wal(held // 2)
            await self.db.execute("PRAGMA busy_timeout = 100")
            try:
                await self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                await self.db.execute("PRAGMA busy_timeout = 5000")
        except (OSError, sqlite3.Error):
            pass

    async def _size_wal_to_disk(self) -> None:
        """On a small disk, checkpoint before the WAL takes a quarter of the space left. SQLite
        checkpoints once the WAL reaches 1000 pages (4 MB): on a disk of half a megabyte the
        WAL fills it first, and every write fails from then on."""
        if self.path == ":memory:":
            return
        try:
            free = (await asyncio.to_thread(shutil.disk_usage, Path(self.path).parent)).free
            await self._limit_wal(free // 4 // await self._page_size())
        except (OSError, sqlite3.Error):
            pass

    async def _limit_wal(self, pages: int) -> None:
        """Checkpoint automatically every `pages` pages (if fewer than now), and truncate the WAL
        to that size whenever a checkpoint lets it start over."""
        pages = max(MIN_AUTOCHECKPOINT, pages)
        async with self.db.execute("PRAGMA wal_autocheckpoint") as cursor:
            row = await cursor.fetchone()
        if row is None or not 0 < pages < row[0]:
            return
        await self.db.execute(f"PRAGMA wal_autocheckpoint = {pages}")
        await self.db.execute(f"PRAGMA journal_size_limit = {pages * await self._page_size()}")
        log.info("database: little disk space; the WAL is checkpointed every %d pages", pages)

    async def _page_size(self) -> int:
        async with self.db.execute("PRAGMA page_size") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 4096

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

    async def one(self, sql: str, *params: Any) -> tuple[Any, ...] | None:
        """One row (or None) read on the reader connection (on the writer inside a unit of work)."""
        with self._faults_as_unavailable():
            return await fetch_one(self.db if self._in_unit() else self.reader, sql, params)

    async def read_own(self, sql: str, *params: Any) -> tuple[Any, ...] | None:
        """A read on the writer, for reading back what was just written (read-your-writes)."""
        with self._faults_as_unavailable():
            if self._in_unit():
                return await fetch_one(self.db, sql, params)
            async with self._write_lock:
                return await fetch_one(self.db, sql, params)

    async def all(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Every row read on the reader connection (on the writer inside a unit of work)."""
        with self._faults_as_unavailable():
            return await fetch_all(self.db if self._in_unit() else self.reader, sql, params)

    @contextmanager
    def _faults_as_unavailable(self) -> Iterator[None]:
        """A read that fails for the disk (a sort spilling to a full one, a failing sector) is
        the core's StoreFull; inside a unit of work the unit's transaction reports it."""
        try:
            yield
        except sqlite3.Error as exc:
            fault = _fault(exc)
            if fault is None or self._in_unit():
                raise
            self.faults.failed(fault)
            raise fault from exc

    @property
    def _read_conn(self) -> aiosqlite.Connection:
        return self.db if self._in_unit() else self.reader

    # ------------------------------------------------------------ users (the rest: chats_rounds.py)

    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) users in one transaction; their ids, in order."""
        async with self.transaction() as db:
            return await users.register_users(db, refs)

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


def _fault(exc: sqlite3.Error) -> StoreFull | None:
    """The core's StoreFull for a full or failing disk (SQLITE_FULL, SQLITE_IOERR_*), else None."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_FULL", "SQLITE_IOERR")):
        return StoreFull(f"{exc} [{name}]")
    return None


def _prepare_file(path: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        quick_check(conn, path)  # before anything writes to a damaged file
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # One version at a time, each folded into the file and its WAL truncated: run in one go
        # the migrations of a new file leave a third of a megabyte of WAL behind (every page
        # they touched, several times over), which a small disk needs for the bot's own writes.
        found = migrate(conn, target=0)  # the version found (a newer one is refused here)
        for version in range(found + 1, LATEST + 1):
            migrate(conn, target=version)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        _probe_write(conn)
    finally:
        conn.close()


def _probe_write(conn: sqlite3.Connection) -> None:
    """Fail now, as SQLITE_READONLY, if the file cannot be written. SQLite opens a write-protected
    file read-only without a word, and with its -wal and -shm files left beside it (a process
    killed, a copied volume) even WAL mode and an up-to-date schema need no write: the first
    heartbeat would be the first to find out. The probe rewrites the schema version inside a
    transaction it rolls back, so nothing changes."""
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"PRAGMA user_version = {int(version)}")
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
