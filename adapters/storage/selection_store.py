"""Multiple-choice selections kept in the database, for several processes sharing the clicks.

On SQLite (one process) the core keeps them in memory instead (bot/selections.py); this SQLite
version exists for the contract tests and for a single process that wants them kept. The tokens
are stored comma-joined (option letters and true/false never contain a comma)."""

from __future__ import annotations

from adapters.storage.sqlite_store import SqliteStore
from bot.kinds import UserRef


def tokens(chosen: str | None) -> tuple[str, ...]:
    return tuple(sorted(t for t in (chosen or "").split(",") if t))


class SqliteSelectionStore:
    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        key = (round_id, str(user.platform), user.user_key)
        async with self.store.transaction() as db:
            cursor = await db.execute(
                "SELECT chosen FROM selections WHERE round_id = ? AND platform = ? AND user_key = ?", key
            )
            row = await cursor.fetchone()
            chosen = tuple(sorted(set(tokens(row[0] if row else None)) ^ {token}))
            await db.execute(
                "INSERT INTO selections (round_id, platform, user_key, chosen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (round_id, platform, user_key) DO UPDATE SET chosen = excluded.chosen",
                (*key, ",".join(chosen)),
            )
        return chosen

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        row = await self.store.read_own(
            "SELECT chosen FROM selections WHERE round_id = ? AND platform = ? AND user_key = ?",
            (round_id, str(user.platform), user.user_key),
        )
        return tokens(row[0] if row else None)

    async def take(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        async with self.store.transaction() as db:
            cursor = await db.execute(
                "DELETE FROM selections WHERE round_id = ? AND platform = ? AND user_key = ? "
                "RETURNING chosen",
                (round_id, str(user.platform), user.user_key),
            )
            row = await cursor.fetchone()
        return tokens(row[0] if row else None)

    async def forget_round(self, round_id: int) -> None:
        async with self.store.transaction() as db:
            await db.execute("DELETE FROM selections WHERE round_id = ?", (round_id,))
