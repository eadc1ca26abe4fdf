"""The execution interface (adapters/storage/database.py) on the PostgreSQL store's pool: the
stores' `?` text compiled to `$1…$n` once per statement, reads and writes through PostgresStore
(which joins the task's unit of work and turns a lost server into StoreUnavailable)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg

from adapters.storage.database import Dialect, Row, StoreDatabase, numbered


def affected(status: str) -> int:
    """The row count of a command status such as 'UPDATE 3' or 'INSERT 0 1'."""
    return int(status.rsplit(" ", 1)[-1])


class PostgresDialect(Dialect):
    name = "postgres"
    for_share = " FOR SHARE"
    for_update = " FOR UPDATE"

    def __init__(self) -> None:
        super().__init__(unique_violation=(asyncpg.UniqueViolationError,))
        self._compiled: dict[str, str] = {}

    def sql(self, text: str) -> str:
        """`$1…$n` for `?`: compiled once per statement text, then cached."""
        found = self._compiled.get(text)
        if found is None:
            found = self._compiled[text] = numbered(text)
        return found

    def violates(self, exc: BaseException, index: str, column: str) -> bool:
        return isinstance(exc, asyncpg.UniqueViolationError) and exc.constraint_name == index

    # One array parameter a column, whatever the number of values: one prepared statement.
    def any_of(self, column: str, values: Sequence[Any], sql_type: str) -> tuple[str, list[Any]]:
        return f"{column} = ANY(?::{sql_type}[])", [list(values)]

    def rows_of(self, rows: Sequence[Sequence[Any]], sql_types: Sequence[str]) -> tuple[str, list[Any]]:
        arrays = ", ".join(f"?::{t}[]" for t in sql_types)
        return f"SELECT * FROM unnest({arrays})", [[row[i] for row in rows] for i in range(len(sql_types))]


POSTGRES = PostgresDialect()


class PostgresTransaction:
    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, *params: Any) -> int:
        return affected(await self.conn.execute(POSTGRES.sql(sql), *params))

    async def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(POSTGRES.sql(sql), rows)

    async def one(self, sql: str, *params: Any) -> Row | None:
        return await self.conn.fetchrow(POSTGRES.sql(sql), *params)

    async def all(self, sql: str, *params: Any) -> list[Row]:
        return list(await self.conn.fetch(POSTGRES.sql(sql), *params))


class PostgresDatabase(StoreDatabase[asyncpg.Connection]):
    dialect: Dialect = POSTGRES

    def statements(self, conn: asyncpg.Connection) -> PostgresTransaction:
        return PostgresTransaction(conn)
