"""Request limits counted in PostgreSQL for all processes together (see throttle_store.py)."""

from __future__ import annotations

from adapters.storage.postgres.store import PostgresStore, affected
from adapters.storage.throttle_store import HIT, wait_after


class PostgresThrottleStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def hit(self, key: str, limit: int, window: float, now: float) -> float:
        async with self.store.transaction() as db:
            row = await db.fetchrow(HIT, key, now, window)
        assert row is not None
        return wait_after(row[0], row[1], limit, window, now)

    async def forget_throttles(self, before: float) -> int:
        async with self.store.transaction() as db:
            return affected(await db.execute("DELETE FROM throttles WHERE started < $1", before))
