"""One asyncio lock per key (a round, a user, a contest), kept only while someone holds or waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class KeyedLocks:
    """Counting holders and waiters, not asking `locked()`: a just-released lock can have a
    waiter about to take it, and dropping it then would let a second holder in on a new lock."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._users: dict[Hashable, int] = {}

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key], self._locks[key]

    def busy(self, key: Hashable) -> bool:
        """Someone holds or waits for the key's lock."""
        return key in self._locks

    def __len__(self) -> int:
        return len(self._locks)
