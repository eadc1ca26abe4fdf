"""The execution interface (adapters/storage/database.py) on the SQLite store's connections:
reads on its reader connection, writes in BEGIN IMMEDIATE transactions on its writer (see
sqlite/store.py). SQLite takes the stores' `?` text as written."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import aiosqlite

from adapters.storage.database import Dialect, Row, StoreDatabase
from adapters.storage.sqlite.fetch import fetch_all, fetch_one

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


class SqliteDatabase(StoreDatabase[aiosqlite.Connection]):
    dialect: Dialect = SQLITE

    def statements(self, conn: aiosqlite.Connection) -> SqliteTransaction:
        return SqliteTransaction(conn)
