"""Firings claimed once, and the processes alive, on SQLite (one process: every claim is its own,
but the same port and table as PostgreSQL, so a firing is still never done twice)."""

from __future__ import annotations

from datetime import datetime

from adapters.storage.sql import to_db
from adapters.storage.sqlite_store import SqliteStore


class SqliteFiringStore:
    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    async def claim_firing(self, key: str, owner: str, now: datetime) -> bool:
        async with self.store.transaction() as db:
            cursor = await db.execute(
                "INSERT OR IGNORE INTO firings (key, owner, fired_at) VALUES (?, ?, ?)",
                (key, owner, to_db(now)),
            )
        return cursor.rowcount == 1

    async def forget_firings(self, before: datetime) -> int:
        async with self.store.transaction() as db:
            cursor = await db.execute("DELETE FROM firings WHERE fired_at < ?", (to_db(before),))
        return cursor.rowcount

    async def heartbeat(self, owner: str, now: datetime, until: datetime) -> int:
        async with self.store.transaction() as db:
            await db.execute(
                "INSERT INTO members (owner, started_at, seen_until) VALUES (?, ?, ?) "
                "ON CONFLICT (owner) DO UPDATE SET seen_until = excluded.seen_until",
                (owner, to_db(now), to_db(until)),
            )
            await db.execute("DELETE FROM members WHERE seen_until < ?", (to_db(now),))
            cursor = await db.execute("SELECT count(*) FROM members")
            row = await cursor.fetchone()
        return int(row[0]) if row else 1

    async def leave(self, owner: str) -> None:
        async with self.store.transaction() as db:
            await db.execute("DELETE FROM members WHERE owner = ?", (owner,))
            await db.execute("DELETE FROM outbox_leases WHERE owner = ?", (owner,))
