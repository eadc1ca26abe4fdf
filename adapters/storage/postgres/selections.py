"""Multiple-choice selections on PostgreSQL: a person's toggles may reach any process, so the
selection being built lives in the database; a toggle is one atomic statement."""

from __future__ import annotations

from adapters.storage.postgres.store import PostgresStore
from adapters.storage.selection_store import tokens
from bot.kinds import UserRef

TOGGLE = """
INSERT INTO selections AS s (round_id, platform, user_key, chosen) VALUES ($1, $2, $3, $4)
ON CONFLICT (round_id, platform, user_key) DO UPDATE SET chosen = array_to_string(
    CASE WHEN $4 = ANY (string_to_array(s.chosen, ','))
         THEN array_remove(string_to_array(s.chosen, ','), $4)
         ELSE string_to_array(s.chosen, ',') || $4::text END, ',')
RETURNING chosen
"""


class PostgresSelectionStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        async with self.store.transaction() as db:
            chosen = await db.fetchval(TOGGLE, round_id, str(user.platform), user.user_key, token)
        return tokens(chosen)

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        row = await self.store.one(
            "SELECT chosen FROM selections WHERE round_id = $1 AND platform = $2 AND user_key = $3",
            round_id, str(user.platform), user.user_key,
        )  # fmt: skip
        return tokens(row[0] if row else None)

    async def take(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        async with self.store.transaction() as db:
            chosen = await db.fetchval(
                "DELETE FROM selections WHERE round_id = $1 AND platform = $2 AND user_key = $3 "
                "RETURNING chosen",
                round_id, str(user.platform), user.user_key,
            )  # fmt: skip
        return tokens(chosen)

    async def forget_round(self, round_id: int) -> None:
        async with self.store.transaction() as db:
            await db.execute("DELETE FROM selections WHERE round_id = $1", round_id)
