"""Multi-choice selections being built with toggle buttons, per round and user, before Submit.

Kept in memory by one process alone: a half-built selection is UI state, not an answer; only
Submit makes an answer. With several processes (a person's clicks may reach any of them) the
selections live in the database instead (the SelectionStore port, on PostgreSQL).
"""

from __future__ import annotations

from bot.domain.kinds import UserRef


class Selections:
    def __init__(self) -> None:
        self._chosen: dict[tuple[int, str, str], tuple[str, ...]] = {}

    @staticmethod
    def _key(round_id: int, user: UserRef) -> tuple[int, str, str]:
        return (round_id, str(user.platform), user.user_key)

    async def toggle(self, round_id: int, user: UserRef, token: str) -> tuple[str, ...]:
        """Add or remove `token` from the user's selection; return the selection, sorted."""
        key = self._key(round_id, user)
        chosen = set(self._chosen.get(key, ())) ^ {token}
        self._chosen[key] = tuple(sorted(chosen))
        return self._chosen[key]

    async def get(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        return self._chosen.get(self._key(round_id, user), ())

    async def take(self, round_id: int, user: UserRef) -> tuple[str, ...]:
        """The selection, removed (it is being submitted)."""
        return self._chosen.pop(self._key(round_id, user), ())

    async def forget_round(self, round_id: int) -> None:
        self._chosen = {k: v for k, v in self._chosen.items() if k[0] != round_id}
