"""The execution interface every stored aggregate is written against, once for both backends.

An aggregate's store (`outbox_store.py`, `schedule_store.py`, …) holds a `Database` and writes
its SQL text once, in SQLite's placeholder style (`?`, or `?1`…`?n` where a value is used more
than once). Each backend's `Database` (`sqlite/database.py`, `postgres/database.py`) runs that
text on its own connections, compiled for its dialect by `Dialect.sql` (PostgreSQL's `$1…$n`,
worked out once per statement and cached). What the two databases do not share in SQL is named
in the `Dialect`: a row lock, the error a unique index raises.

Both databases accept the rest as written: `INSERT … ON CONFLICT … DO UPDATE/NOTHING` (SQLite
3.24+), `RETURNING` (SQLite 3.35+), `coalesce`, `CASE`. Code that truly differs per backend (the
answer ingest, migrations' PostgreSQL text, LISTEN/NOTIFY, connection set-up and errors) stays
in `sqlite/` and `postgres/`, or for SQLite still beside the shared modules.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Generic, Protocol, TypeVar

Row = Sequence[Any]


class Transaction(Protocol):
    """Statements run inside one write transaction (or the task's unit of work)."""

    async def execute(self, sql: str, *params: Any) -> int:
        """Run one statement; the number of rows it changed."""

    async def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""

    async def one(self, sql: str, *params: Any) -> Row | None:
        """The first row of a statement's result (a SELECT, or a write with RETURNING)."""

    async def all(self, sql: str, *params: Any) -> list[Row]:
        """Every row of a statement's result."""


class Database(Protocol):
    """One backend's connections: committed reads, write transactions, units of work."""

    dialect: Dialect

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """One write transaction, committed on exit and rolled back on an error; inside the
        task's unit of work, part of the unit's transaction instead."""

    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        """The writes the task makes inside the block (through any aggregate) commit together."""

    async def one(self, sql: str, *params: Any) -> Row | None:
        """One committed row (inside a unit of work, what the unit sees)."""

    async def all(self, sql: str, *params: Any) -> list[Row]:
        """Every committed row (inside a unit of work, what the unit sees)."""

    async def read_own(self, sql: str, *params: Any) -> Row | None:
        """One row as the writer sees it, for reading back what this process just wrote
        (SQLite's reader connection may lag its writer; PostgreSQL's reads never do)."""


C = TypeVar("C")
C_co = TypeVar("C_co", covariant=True)


class Connections(Protocol[C_co]):
    """A backend store's connections, as its Database drives them (sqlite/store.py,
    postgres/store.py): write transactions, units of work, and reads of the backend's own text."""

    def transaction(self) -> AbstractAsyncContextManager[C_co]: ...

    def unit_of_work(self) -> AbstractAsyncContextManager[None]: ...

    async def one(self, sql: str, *params: Any) -> Row | None: ...

    async def all(self, sql: str, *params: Any) -> Sequence[Row]: ...

    async def read_own(self, sql: str, *params: Any) -> Row | None: ...


class StoreDatabase(Generic[C]):
    """The Database of either backend: the stores' text compiled by the backend's dialect, run
    on the backend store's connections. A backend names its dialect and how statements run on
    one transaction's connection (`statements`: sqlite/database.py, postgres/database.py)."""

    dialect: Dialect

    def __init__(self, store: Connections[C]) -> None:
        self.store = store

    def statements(self, conn: C) -> Transaction:
        """The statements run on one transaction's connection."""
        raise NotImplementedError

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self.store.transaction() as conn:
            yield self.statements(conn)

    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        return self.store.unit_of_work()

    async def one(self, sql: str, *params: Any) -> Row | None:
        return await self.store.one(self.dialect.sql(sql), *params)

    async def all(self, sql: str, *params: Any) -> list[Row]:
        return list(await self.store.all(self.dialect.sql(sql), *params))

    async def read_own(self, sql: str, *params: Any) -> Row | None:
        return await self.store.read_own(self.dialect.sql(sql), *params)


# A `?` or `?N` placeholder outside a quoted string, quoted name or comment.
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|\?(\d*)")


def numbered(sql: str) -> str:
    """SQL text with `?` / `?N` placeholders rewritten as PostgreSQL's `$1…$n`."""
    count = 0
    styles: set[bool] = set()

    def one(match: re.Match[str]) -> str:
        nonlocal count
        if not match.group(0).startswith("?"):
            return match.group(0)
        digits = match.group(1)
        styles.add(bool(digits))
        if digits:
            return f"${digits}"
        count += 1
        return f"${count}"

    out = _TOKENS.sub(one, sql)
    if len(styles) > 1:
        raise ValueError(f"mixed ? and ?N placeholders in {sql!r}")
    return out


class Dialect:
    """What one backend's SQL says differently from the text the stores are written in: SQLite's,
    so this base class is SQLite's dialect; PostgreSQL's (postgres/database.py) overrides it."""

    name = "sqlite"
    # Appended to a SELECT that must keep its rows from changing until the transaction ends
    # (SQLite's writer holds the whole database from BEGIN IMMEDIATE: nothing to add).
    for_share = ""
    for_update = ""

    def __init__(self, unique_violation: tuple[type[BaseException], ...]) -> None:
        # The exception a unique index's refusal raises.
        self.unique_violation = unique_violation

    def sql(self, text: str) -> str:
        """The statement as this backend runs it."""
        return text

    def violates(self, exc: BaseException, index: str, column: str) -> bool:
        """`exc` is the refusal of the unique index `index` (SQLite's message names its columns,
        as `table.column`, not the index)."""
        return isinstance(exc, self.unique_violation) and column in str(exc)

    def any_of(self, column: str, values: Sequence[Any], sql_type: str) -> tuple[str, list[Any]]:
        """`column` is one of `values`: the condition and its parameters (plain `?`)."""
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)

    def rows_of(self, rows: Sequence[Sequence[Any]], sql_types: Sequence[str]) -> tuple[str, list[Any]]:
        """A row source of these value rows (for `(a, b) IN (…)`): the SQL and its parameters."""
        one = "(" + ", ".join("?" * len(sql_types)) + ")"
        return "VALUES " + ", ".join([one] * len(rows)), [v for row in rows for v in row]
