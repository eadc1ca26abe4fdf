"""Firings claimed once across processes, and the processes alive, on either backend.

A claim is `INSERT … ON CONFLICT DO NOTHING` inside the caller's transaction: on PostgreSQL a
second process claiming the same key waits for the first one's transaction, and gets nothing if
it committed, or the claim if it rolled back (its process died mid-way). On SQLite (one process)
every claim is its own, but the same table keeps a firing from being done twice."""

from __future__ import annotations

from datetime import datetime

from adapters.storage.database import Database
from adapters.storage.sql import to_db


class SqlFiringStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim_firing(self, key: str, owner: str, now: datetime) -> bool:
        async with self.db.transaction() as tx:
            claimed = await tx.execute(
                "INSERT INTO firings (key, owner, fired_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                key, owner, to_db(now),
            )  # fmt: skip
        return claimed == 1

    async def forget_firings(self, before: datetime) -> int:
        async with self.db.transaction() as tx:
            return await tx.execute("DELETE FROM firings WHERE fired_at < ?", to_db(before))

    async def heartbeat(self, owner: str, now: datetime, until: datetime) -> int:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO members (owner, started_at, seen_until) VALUES (?, ?, ?) "
                "ON CONFLICT (owner) DO UPDATE SET seen_until = excluded.seen_until",
                owner, to_db(now), to_db(until),
            )  # fmt: skip
            await tx.execute("DELETE FROM members WHERE seen_until < ?", to_db(now))
            row = await tx.one("SELECT count(*) FROM members")
        return int(row[0]) if row else 1

    async def leave(self, owner: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM members WHERE owner = ?", owner)
            await tx.execute("DELETE FROM outbox_leases WHERE owner = ?", owner)
