"""Firings claimed once across processes, and the processes alive, on PostgreSQL.

A claim is `INSERT … ON CONFLICT DO NOTHING` inside the caller's transaction: a second process
claiming the same key waits for the first one's transaction, and gets nothing if it committed,
or the claim if it rolled back (its process died mid-way)."""

from __future__ import annotations

from datetime import datetime

from adapters.storage.postgres.store import PostgresStore, affected
from adapters.storage.sql import to_db


class PostgresFiringStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def claim_firing(self, key: str, owner: str, now: datetime) -> bool:
        async with self.store.transaction() as db:
            status = await db.execute(
                "INSERT INTO firings (key, owner, fired_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                key, owner, to_db(now),
            )  # fmt: skip
        return affected(status) == 1

    async def forget_firings(self, before: datetime) -> int:
        async with self.store.transaction() as db:
            return affected(await db.execute("DELETE FROM firings WHERE fired_at < $1", to_db(before)))

    async def heartbeat(self, owner: str, now: datetime, until: datetime) -> int:
        async with self.store.transaction() as db:
            await db.execute(
                "INSERT INTO members (owner, started_at, seen_until) VALUES ($1, $2, $3) "
                "ON CONFLICT (owner) DO UPDATE SET seen_until = excluded.seen_until",
                owner, to_db(now), to_db(until),
            )  # fmt: skip
            await db.execute("DELETE FROM members WHERE seen_until < $1", to_db(now))
            return int(await db.fetchval("SELECT count(*) FROM members"))

    async def leave(self, owner: str) -> None:
        async with self.store.transaction() as db:
            await db.execute("DELETE FROM members WHERE owner = $1", owner)
            await db.execute("DELETE FROM outbox_leases WHERE owner = $1", owner)
