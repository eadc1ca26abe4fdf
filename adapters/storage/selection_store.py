"""Selections (a multiple choice's toggles, an ordering's taps: tokens in the order tapped) kept
in the database, for several processes sharing the clicks.

On SQLite (one process) the core keeps them in memory instead
(bot/application/multi_selections.py); the SQLite
store exists for the contract tests and for a single process that wants them kept. The tokens
are stored comma-joined in the order tapped (option letters and true/false never contain a
comma). A toggle or an undo here reads and writes under SQLite's single writer; PostgreSQL's,
where taps of one person may race in two processes, are one atomic statement each
(postgres/selections.py)."""

from __future__ import annotations

from collections.abc import Callable

from adapters.storage.database import Database
from bot.domain.kinds import UserRef, toggled

_READ = "SELECT chosen FROM selections WHERE round_id = ? AND platform = ? AND user_key = ?"
_WRITE = (
    "INSERT INTO selections (round_id, platform, user_key, chosen) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (round_id, platform, user_key) DO UPDATE SET chosen = excluded.chosen"
)


def tokens(chosen: str | None) -> tuple[str, ...]:
    return tuple(t for t in (chosen or "").split(",") if t)


class SqlSelectionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        return await self._change(round_id, user, lambda chosen: toggled(chosen, token))

    async def undo(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        return await self._change(round_id, user, lambda chosen: chosen[:-1])

    async def _change(
        self, round_id: int, user: UserRef, change: Callable[[tuple[str, ...]], tuple[str, ...]]
    ) -> tuple[str, ...]:
        key = (round_id, str(user.platform), user.user_key)
        async with self.db.transaction() as tx:
            row = await tx.one(_READ, *key)
            chosen = change(tokens(row[0] if row else None))
            await tx.execute(_WRITE, *key, ",".join(chosen))
        return chosen

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        row = await self.db.read_own(_READ, round_id, str(user.platform), user.user_key)
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
