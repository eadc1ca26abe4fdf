"""Multiple-choice selections kept in the database, for several processes sharing the clicks.

On SQLite (one process) the core keeps them in memory instead
(bot/application/multi_selections.py); the SQLite
store exists for the contract tests and for a single process that wants them kept. The tokens
are stored comma-joined (option letters and true/false never contain a comma). A toggle here
reads and writes under SQLite's single writer; PostgreSQL's, where toggles of one person may
race in two processes, is one atomic statement (postgres/selections.py)."""

from __future__ import annotations

from adapters.storage.database import Database
from bot.domain.kinds import UserRef


def tokens(chosen: str | None) -> tuple[str, ...]:
    return tuple(sorted(t for t in (chosen or "").split(",") if t))


class SqlSelectionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        key = (round_id, str(user.platform), user.user_key)
        async with self.db.transaction() as tx:
            row = await tx.one(
                "SELECT chosen FROM selections WHERE round_id = ? AND platform = ? AND user_key = ?", *key
            )
            chosen = tuple(sorted(set(tokens(row[0] if row else None)) ^ {token}))
            await tx.execute(
                "INSERT INTO selections (round_id, platform, user_key, chosen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (round_id, platform, user_key) DO UPDATE SET chosen = excluded.chosen",
                *key, ",".join(chosen),
            )  # fmt: skip
        return chosen

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        row = await self.db.read_own(
            "SELECT chosen FROM selections WHERE round_id = ? AND platform = ? AND user_key = ?",
            round_id, str(user.platform), user.user_key,
        )  # fmt: skip
        return tokens(row[0] if row else None)

    async def take(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        async with self.db.transaction() as tx:
            row = await tx.one(
                "DELETE FROM selections WHERE round_id = ? AND platform = ? AND user_key = ? "
                "RETURNING chosen",
                round_id, str(user.platform), user.user_key,
            )  # fmt: skip
        return tokens(row[0] if row else None)

    async def forget_round(self, round_id: int) -> None:
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM selections WHERE round_id = ?", round_id)
