"""Selections on PostgreSQL: a person's taps may reach any process, so a toggle and an undo are
one atomic statement each (the rest is the shared store, adapters/storage/selection_store.py)."""

from __future__ import annotations

from adapters.storage.selection_store import SqlSelectionStore, tokens
from bot.domain.kinds import UserRef

TOGGLE = """
INSERT INTO selections AS s (round_id, platform, user_key, chosen) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (round_id, platform, user_key) DO UPDATE SET chosen = array_to_string(
    CASE WHEN ?4 = ANY (string_to_array(s.chosen, ','))
         THEN array_remove(string_to_array(s.chosen, ','), ?4)
         ELSE string_to_array(s.chosen, ',') || ?4::text END, ',')
RETURNING chosen
"""
UNDO = """
UPDATE selections SET chosen = array_to_string(
    (string_to_array(chosen, ','))[1:cardinality(string_to_array(chosen, ',')) - 1], ',')
WHERE round_id = ?1 AND platform = ?2 AND user_key = ?3
RETURNING chosen
"""


class PostgresSelectionStore(SqlSelectionStore):
    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        async with self.db.transaction() as tx:
            row = await tx.one(TOGGLE, round_id, str(user.platform), user.user_key, token)
        return tokens(row[0] if row else None)

    async def undo(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        async with self.db.transaction() as tx:
            row = await tx.one(UNDO, round_id, str(user.platform), user.user_key)
        return tokens(row[0] if row else None)
