"""Rows read on an aiosqlite connection in one hop (the SQLite store's reads and writes)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import aiosqlite

Params = Sequence[Any] | dict[str, Any]


async def fetch_all(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
    """Every row, fetched in one hop: a cursor left open between hops would hold a reader on an
    old snapshot, and every other read on it would miss what was committed since."""
    # No row factory is set, so sqlite3 hands back plain tuples.
    return list(cast(Iterable[tuple[Any, ...]], await conn.execute_fetchall(sql, params)))


async def fetch_one(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
    rows = await fetch_all(conn, sql, params)
    return rows[0] if rows else None
