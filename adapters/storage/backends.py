"""The storage backends as wholes (the `Storage` port): every aggregate of one database, and
the choice between them.

SQLite (a file, the default) or PostgreSQL (`STUDYBOT_DATABASE_URL=postgresql://…`, with the
`postgres` extra installed: `pip install '.[postgres]'` in the clone). Each backend's aggregates
share its connections, so a unit of work spans them all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.storage.bank_store import SqlBankStore
from adapters.storage.broadcast import Alone
from adapters.storage.database import Database
from adapters.storage.exam_store import SqlExamStore
from adapters.storage.firing_store import SqlFiringStore
from adapters.storage.item_answer_store import SqlItemAnswerStore
from adapters.storage.memory_store import SqlLearnerMemoryStore
from adapters.storage.mock_exam_store import SqlMockExamStore
from adapters.storage.outbox_store import SqlOutboxStore
from adapters.storage.report_store import SqlReportStore
from adapters.storage.schedule_store import SqlScheduleStore
from adapters.storage.selection_store import SqlSelectionStore
from adapters.storage.sqlite.store import SqliteStore
from adapters.storage.study_store import SqlStudyStore
from adapters.storage.throttle_store import SqlThrottleStore
from adapters.storage.web_store import SqlWebStore
from bot.ports.storage import MissingExtra

if TYPE_CHECKING:
    from adapters.storage.postgres.broadcast import PostgresBroadcast
    from adapters.storage.postgres.store import PostgresStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class SqlStorage:
    """Every aggregate, written once, over one backend's `Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.schedules = SqlScheduleStore(db)
        self.study = SqlStudyStore(db)
        self.exams = SqlExamStore(db)
        self.memory = SqlLearnerMemoryStore(db)
        self.mocks = SqlMockExamStore(db)
        self.reports = SqlReportStore(db)
        self.banks = SqlBankStore(db)
        self.outbox = SqlOutboxStore(db)
        self.firings = SqlFiringStore(db)
        self.selections = SqlSelectionStore(db)
        self.throttles = SqlThrottleStore(db)
        self.item_answers = SqlItemAnswerStore(db)  # the question statistics' read
        self.web = SqlWebStore(db)

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        async with self.db.unit_of_work():
            yield

    async def ping(self) -> None:
        await self.db.one("SELECT 1")


class SqliteStorage(SqlStorage):
    shared = False  # one process owns the file

    def __init__(self, store: SqliteStore) -> None:
        super().__init__(store.sql)
        self.store = store

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "FULL") -> SqliteStorage:
        return cls(await SqliteStore.open(path, synchronous=synchronous))

    async def close(self) -> None:
        await self.store.close()


class PostgresStorage(SqlStorage):
    shared = True  # several processes may run on one server

    def __init__(self, store: PostgresStore) -> None:
        from adapters.storage.postgres.selections import PostgresSelectionStore

        super().__init__(store.sql)
        self.store = store
        self.selections = PostgresSelectionStore(self.db)  # toggles race across processes here

    @classmethod
    async def open(cls, dsn: str) -> PostgresStorage:
        try:
            from adapters.storage.postgres.store import PostgresStore
        except ImportError:  # asyncpg is the `postgres` extra: one sentence at start-up
            raise MissingExtra("postgres", "asyncpg") from None
        return cls(await PostgresStore.open(dsn))

    async def ping(self) -> None:
        # On the pool, past any unit of work; a lost server shows as the driver's own error
        await self.store.pool.fetchval("SELECT 1")

    async def close(self) -> None:
        await self.store.close()


async def open_storage(
    url: str | None, path: str | Path, *, synchronous: str = "FULL"
) -> SqliteStorage | PostgresStorage:
    """PostgreSQL when `url` is a postgresql:// URL, else the SQLite file at `path`."""
    if url is not None and url.startswith(POSTGRES_SCHEMES):
        return await PostgresStorage.open(url)
    return await SqliteStorage.open(path, synchronous=synchronous)


def open_broadcast(storage: SqliteStorage | PostgresStorage, owner: str) -> Alone | PostgresBroadcast:
    """LISTEN/NOTIFY between the processes on a PostgreSQL database; nothing for SQLite (one process)."""
    if isinstance(storage, PostgresStorage):
        from adapters.storage.postgres.broadcast import PostgresBroadcast

        return PostgresBroadcast(storage.store, owner)
    return Alone()
