"""Update processing: concurrent across users, in order for each user.

Concurrency lets answers from many people in one group arrive together (the core commits them
in one transaction); per-user order keeps one person's /quiz, answer, toggle and Submit in the
order they were sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor


def _key(update: object) -> int | None:
    if not isinstance(update, Update):
        return None
    if update.effective_user is not None:
        return update.effective_user.id
    if update.effective_chat is not None:
        return update.effective_chat.id
    return None


class PerUserUpdateProcessor(BaseUpdateProcessor):
    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}  # updates holding or waiting for each lock

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = _key(update)
        if key is None:
            await coroutine
            return
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                await coroutine
        finally:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key], self._locks[key]

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
