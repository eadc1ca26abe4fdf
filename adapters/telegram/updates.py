"""Update processing: concurrent across users, in order for each user.

Concurrency lets answers from many people in one group arrive together (the core commits them
in one transaction); per-user order keeps one person's /quiz, answer, toggle and Submit in the
order they were sent.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.application.keyed_locks import KeyedLocks


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
        self._locks = KeyedLocks()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = _key(update)
        if key is None:
            await coroutine
            return
        async with self._locks.hold(key):
            await coroutine

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
