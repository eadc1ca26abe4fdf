"""The Broadcast port on PostgreSQL's LISTEN/NOTIFY: tells the other processes on the database
what changed (a chat's settings, a schedule, a closed round), so their copies stay right.

A publish made inside a unit of work is sent when it commits (NOTIFY is transactional). One
connection per process listens; when it is lost (the server restarted) it reconnects by itself
and tells its subscribers to resynchronise (topic RESYNC), as notices may have been missed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

import asyncpg

from adapters.storage.postgres.store import PostgresStore
from bot.ports.broadcast import RESYNC, Listener

log = logging.getLogger("studybot.broadcast")
CHANNEL = "studybot"


class PostgresBroadcast:
    def __init__(self, store: PostgresStore, owner: str, *, retry_seconds: float = 1.0) -> None:
        self.store = store
        self.owner = owner
        self.retry_seconds = retry_seconds
        self._handlers: dict[str, list[Listener]] = {}
        self._listening: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.connected = asyncio.Event()

    async def publish(self, topic: str, key: str) -> None:
        async with self.store.transaction() as db:
            await db.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{self.owner}|{topic}|{key}")

    def subscribe(self, topic: str, handler: Listener) -> None:
        self._handlers.setdefault(topic, []).append(handler)

    async def start(self) -> None:
        if self._listening is None:
            self._listening = asyncio.create_task(self._listen(), name="broadcast-listen")

    async def close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            await asyncio.gather(self._listening, return_exceptions=True)
            self._listening = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _listen(self) -> None:
        first = True
        while True:
            conn: asyncpg.Connection | None = None
            try:
                conn = await asyncpg.connect(self.store.dsn)
                lost = asyncio.Event()
                conn.add_termination_listener(functools.partial(_set, lost))
                await conn.add_listener(CHANNEL, self._on_notify)
                self.connected.set()
                if not first:
                    log.info("broadcast: listening again; resynchronising")
                    self._dispatch(RESYNC, "")
                first = False
                await lost.wait()
                log.warning("broadcast: the listening connection was lost; reconnecting")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the server is down or restarting: try again shortly
                log.debug("broadcast: cannot listen yet: %s", type(exc).__name__)
            finally:
                self.connected.clear()
                if conn is not None and not conn.is_closed():
                    conn.terminate()
            await asyncio.sleep(self.retry_seconds)

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        owner, topic, key = payload.split("|", 2)
        if owner != self.owner:
            self._dispatch(topic, key)

    def _dispatch(self, topic: str, key: str) -> None:
        for handler in self._handlers.get(topic, ()):
            task = asyncio.create_task(self._run(handler, topic, key), name=f"broadcast-{topic}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, handler: Listener, topic: str, key: str) -> None:
        try:
            await handler(key)
        except Exception:
            log.exception("broadcast: %s %r not applied", topic, key)


def _set(event: asyncio.Event, _conn: object) -> None:
    event.set()
