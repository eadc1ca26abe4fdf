"""The execution interface (adapters/storage/database.py) on the SQLite store's connections:
reads on its reader connection, writes in BEGIN IMMEDIATE transactions on its writer (see
sqlite/store.py). SQLite takes the stores' `?` text as written."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

import aiosqlite

from adapters.storage.database import Dialect, Row
from adapters.storage.sqlite.fetch import Params, fetch_all, fetch_one


class SqliteConnections(Protocol):
    """What the execution interface runs on: the SQLite store's connections (sqlite/store.py)."""

    def transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]: ...

    def unit_of_work(self) -> AbstractAsyncContextManager[None]: ...

    async def one(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None: ...

    async def read_own(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None: ...

    async def all(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]: ...

SQLITE = Dialect(unique_violation=(sqlite3.IntegrityError,))


class SqliteTransaction:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, *params: Any) -> int:
        cursor = await self.conn.execute(sql, params)
        count = cursor.rowcount
        await cursor.close()
        return count

    async def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(sql, rows)

    async def one(self, sql: str, *params: Any) -> Row | None:
        return await fetch_one(self.conn, sql, params)

    async def all(self, sql: str, *params: Any) -> list[Row]:
        return list(await fetch_all(self.conn, sql, params))


class SqliteDatabase:
    dialect: Dialect = SQLITE

    def __init__(self, store: SqliteConnections) -> None:
        self.store = store

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        async with self.store.transaction() as conn:
            yield SqliteTransaction(conn)

    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        return self.store.unit_of_work()

    async def one(self, sql: str, *params: Any) -> Row | None:
        return await self.store.one(sql, params)

    async def all(self, sql: str, *params: Any) -> list[Row]:
        return list(await self.store.all(sql, params))

    async def read_own(self, sql: str, *params: Any) -> Row | None:
        return await self.store.read_own(sql, params)
