"""The broadcast port: telling the other processes on one database that something changed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.ports.missing_extra import MissingExtra as MissingExtra  # re-exported: a backend raises it

Listener = Callable[[str], Awaitable[None]]


class Broadcast(Protocol):
    """Tells the other processes on the database that something they may keep in memory changed
    (a chat's settings, a schedule, a closed round); in one process alone it carries nothing."""

    async def publish(self, topic: str, key: str) -> None: ...
    def subscribe(self, topic: str, handler: Listener) -> None:
        """Call `handler(key)` when another process publishes on `topic`. The topic RESYNC is
        published (key "") after a lost connection came back: messages may have been missed."""
        ...


RESYNC = "resync"
