"""Request limits counted in the database (`throttles`), on either backend: one statement per
request, so several processes keep one limit together. A window begins with a key's first
request after the last window ended; requests past the limit are counted too, and refused until
the window ends."""

from __future__ import annotations

from adapters.storage.database import Database

HIT = """
INSERT INTO throttles AS t (key, started, hits) VALUES (?1, ?2, 1)
ON CONFLICT (key) DO UPDATE SET
    started = CASE WHEN t.started <= ?2 - ?3 THEN excluded.started ELSE t.started END,
    hits = CASE WHEN t.started <= ?2 - ?3 THEN 1 ELSE t.hits + 1 END
RETURNING started, hits
"""


def wait_after(started: float, hits: int, limit: int, window: float, now: float) -> float:
    return 0.0 if hits <= limit else max(started + window - now, 0.001)


class SqlThrottleStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def hit(self, key: str, limit: int, window: float, now: float) -> float:
        async with self.db.transaction() as tx:
            row = await tx.one(HIT, key, now, window)
        assert row is not None
        return wait_after(row[0], row[1], limit, window, now)

    async def forget_throttles(self, before: float) -> int:
        async with self.db.transaction() as tx:
            return await tx.execute("DELETE FROM throttles WHERE started < ?", before)
