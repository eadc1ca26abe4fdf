"""The fake Telegram's webhook delivery: once the bot called setWebhook, queued updates are POSTed
to it, as Telegram does, instead of waiting for getUpdates.

Telegram POSTs each update to the webhook URL with the secret_token of setWebhook in the
X-Telegram-Bot-Api-Secret-Token header, up to max_connections (default 40) at a time, and keeps
an update until the webhook answered it with a 2xx, retrying after a failure. The updates of one
chat go one at a time, in order: the next only once the webhook answered the one before; those
of different chats go at the same time. The URL is
public (https://…), so the test says where its requests really go: `targets`, the addresses of
the bot processes behind it, taken in turn as a round-robin load balancer would."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
RETRY_WAIT = 0.05  # seconds before an update whose delivery failed is tried again


@dataclass
class Delivery:
    """One POST of an update: where it went and what the webhook answered (0: no answer)."""

    update_id: int
    target: str
    status: int


class WebhookDelivery:
    """Runs while the fake runs; `targets` empty: nothing is delivered (as if unreachable)."""

    def __init__(self, updates: Callable[[], list[dict[str, Any]]], confirm: Callable[[int], None],
                 webhook: Callable[[], dict[str, Any]], changed: Callable[[], Any]) -> None:  # fmt: skip
        self._updates, self._confirm, self._webhook, self._changed = updates, confirm, webhook, changed
        self.targets: list[str] = []
        self.log: list[Delivery] = []
        self._inflight: dict[int, int | None] = {}  # update id -> its chat
        self._turn = itertools.count()
        self._session: aiohttp.ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        self._task = asyncio.create_task(self._run(), name="fake-telegram-webhook")

    def poke(self) -> None:
        self._wake.set()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._session is not None:
            await self._session.close()

    async def _run(self) -> None:
        workers: set[asyncio.Task[None]] = set()
        try:
            while True:
                self._wake.clear()
                hook = self._webhook()
                limit = int(hook.get("max_connections") or 40)
                if hook.get("url") and self.targets:
                    waiting: set[int | None] = set(self._inflight.values())  # chats with one on its way
                    for update in self._updates():
                        if len(self._inflight) >= limit:
                            break
                        chat = chat_of(update)
                        if chat in waiting:  # an earlier update of this chat is not answered yet
                            continue
                        waiting.add(chat)
                        self._inflight[update["update_id"]] = chat
                        task = asyncio.create_task(self._deliver(update, hook))
                        workers.add(task)
                        task.add_done_callback(workers.discard)
                await self._wake.wait()
        finally:
            for task in workers:
                task.cancel()

    async def _deliver(self, update: dict[str, Any], hook: dict[str, Any]) -> None:
        target = self.targets[next(self._turn) % len(self.targets)]
        url = target.rstrip("/") + urlsplit(hook["url"]).path
        headers = {SECRET_HEADER: hook["secret_token"]} if hook.get("secret_token") else {}
        status = 0
        assert self._session is not None
        try:
            async with self._session.post(url, json=update, headers=headers) as response:
                status = response.status
        except (aiohttp.ClientError, OSError, TimeoutError):
            pass
        self.log.append(Delivery(update["update_id"], target, status))
        if 200 <= status < 300:
            self._confirm(update["update_id"])
        else:
            await asyncio.sleep(RETRY_WAIT)  # Telegram tries again later
        self._inflight.pop(update["update_id"], None)
        self._changed()
        self.poke()


def chat_of(update: dict[str, Any]) -> int | None:
    """The chat an update belongs to (a click: the chat of its message, else the user's)."""
    for kind, body in update.items():
        if kind == "update_id" or not isinstance(body, dict):
            continue
        if isinstance(body.get("chat"), dict):
            return int(body["chat"]["id"])
        message = body.get("message")
        if isinstance(message, dict) and isinstance(message.get("chat"), dict):
            return int(message["chat"]["id"])
        if isinstance(body.get("from"), dict):
            return int(body["from"]["id"])
    return None
