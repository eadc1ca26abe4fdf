"""The fan-out benchmark's fake platform shared by several bot processes: one HTTP server in the
benchmark's own process enforcing the platform's limits for the bot as a whole (the limits are
per bot token, not per process), and the ChatPort each bot process posts through.

The server keeps the same sliding windows as benchmarks/fanout_sink.py (it reuses its
LimitedSink), answers 429 with retry_after past them, and records every accepted post with the
process that sent it, on its own loop clock.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

import aiohttp
from aiohttp import web

from benchmarks.fanout_sink import LimitedSink, PlatformRules
from bot.domain.kinds import ChatRef
from bot.ports.chat import PostRejected, RetryLater


@dataclass(frozen=True, slots=True)
class SharedPost:
    at: float  # the sink's loop.time() when accepted
    kind: str
    chat_key: str
    round_id: int | None
    pid: int


class SharedSink:
    """The platform: POST /post {kind, chat_key, round_id, pid} → 200, or 429 {retry_after}."""

    def __init__(self, rules: PlatformRules) -> None:
        self.rules = rules
        self.limits = LimitedSink(rules)
        self.posts: list[SharedPost] = []
        self.questions = 0
        self.changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> SharedSink:
        app = web.Application()
        app.router.add_post("/post", self._post)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/post"
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _post(self, request: web.Request) -> web.Response:
        body = await request.json()
        try:
            at = self.limits._admit(body["chat_key"])
        except RetryLater as later:
            return web.json_response({"retry_after": later.retry_after}, status=429)
        self.posts.append(SharedPost(at, body["kind"], body["chat_key"], body.get("round_id"), body["pid"]))
        if body["kind"] == "question":
            self.questions += 1
        self.changed.set()
        return web.json_response({"ok": True})

    @property
    def refusals(self) -> int:
        return len(self.limits.refusals)

    async def wait(self, predicate, timeout: float) -> bool:
        """Wait (event-driven) until predicate() holds; False on timeout."""
        try:
            async with asyncio.timeout(timeout):
                while not predicate():
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            return False
        return True


class SinkPort:
    """A bot process's ChatPort onto the shared sink (one keep-alive HTTP session)."""

    def __init__(self, rules: PlatformRules, url: str) -> None:
        self.platform = str(rules.platform)
        self.limits = rules.limits
        self.url = url
        self.pid = os.getpid()
        self._session: aiohttp.ClientSession | None = None

    async def _send(self, kind: str, chat: ChatRef, round_id: int | None) -> None:
        if self._session is None:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=32))
        payload = {"kind": kind, "chat_key": chat.chat_key, "round_id": round_id, "pid": self.pid}
        async with self._session.post(self.url, json=payload) as response:
            if response.status == 429:
                raise RetryLater(float((await response.json())["retry_after"]), "429 Too Many Requests")
            if response.status != 200:
                raise PostRejected(f"sink answered {response.status}")

    async def post_question(self, chat, view) -> str:
        await self._send("question", chat, view.round_id)
        return f"{self.platform}-msg-{view.round_id}"

    async def post_reveal(self, chat, view) -> None:
        await self._send("reveal", chat, view.round_id)

    async def post_standings(self, chat, view) -> None:
        await self._send("standings", chat, None)

    async def post_notice(self, chat, notice) -> None:
        await self._send("notice", chat, None)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
