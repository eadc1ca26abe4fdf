"""Selections being built with option buttons, per round and person, before Submit: a
multiple choice's toggles and an ordering's taps are one thing, a list of tokens in the order
tapped (a tap adds a token at the end, or takes it out if it is in already; undo takes the last
one out). A multiple choice reads it as a set, an ordering as the order.

Kept in memory by one process alone: a half-built selection is UI state, not an answer; only
Submit makes an answer. With several processes (a person's clicks may reach any of them) the
selections live in the database instead (the SelectionStore port, on PostgreSQL).
"""

from __future__ import annotations

from bot.domain.kinds import UserRef, toggled


class Selections:
    def __init__(self) -> None:
        self._chosen: dict[tuple[int, str, str], tuple[str, ...]] = {}

    @staticmethod
    def _key(round_id: int, user: UserRef) -> tuple[int, str, str]:
        return (round_id, str(user.platform), user.user_key)

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        """Add `token` at the end or take it out; return the selection, in the order tapped."""
        key = self._key(round_id, user)
        self._chosen[key] = toggled(self._chosen.get(key, ()), token)
        return self._chosen[key]

    async def undo(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        """Take the last token out; return the selection."""
        key = self._key(round_id, user)
        self._chosen[key] = self._chosen.get(key, ())[:-1]
        return self._chosen[key]

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        return self._chosen.get(self._key(round_id, user), ())

    async def take(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        """The selection, removed (it is being submitted)."""
        return self._chosen.pop(self._key(round_id, user), ())

    async def forget_round(self, round_id: int) -> None:
        self._chosen = {k: v for k, v in self._chosen.items() if k[0] != round_id}
