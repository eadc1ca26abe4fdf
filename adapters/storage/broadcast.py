"""The Broadcast port for one process alone (SQLite): nobody else keeps a copy, nothing to say."""

from __future__ import annotations

from bot.ports.broadcast import Listener


class Alone:
    async def publish(self, topic: str, key: str) -> None:
        return None

    def subscribe(self, topic: str, handler: Listener) -> None:
        return None

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None
