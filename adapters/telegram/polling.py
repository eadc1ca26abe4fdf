"""Receiving updates so that none is confirmed to Telegram before it was handled.

PTB's Updater confirms a fetched batch (the next getUpdates offset) as soon as it is queued, so a
crash between fetching and handling loses those updates: the user's click spins and nothing is
stored. Here the Application runs without an Updater (ApplicationBuilder().updater(None), as
PTB documents for fetching updates yourself) and:

- long polling (`ConfirmingPoller`) handles each fetched batch through the Application's own
  update processor (per-user order, concurrency across users) and only then asks for the next
  offset; after a crash Telegram sends the unconfirmed updates again.
- a webhook (`HandlingWebhook`, on aiohttp) answers Telegram's POST only once the update was
  handled, so Telegram retries an update whose handling never finished. Telegram sends a chat's
  next update only once the last one was answered, so with several processes behind one URL a
  chat's updates are still handled in order, whichever process each reaches. Every request must
  carry the configured secret (the same in every process), else 403 before anything is read.

A re-delivered update is handled again; answers are unique per user and round, so a click
counts once (its toast may be sent twice).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.error import InvalidToken, RetryAfter, TelegramError, TimedOut
from telegram.ext import Application

from adapters.telegram.transient import BACKOFF, FIRST_WAIT, LONGEST_WAIT
from adapters.telegram.update_reading import UpdateReader

log = logging.getLogger("studybot.telegram")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SHORT_POLL = 0.2  # seconds between polls while an update is still being handled
# Seconds between polls in a burst (fresh updates keep coming while others are being handled).
# Each poll brings back every update still in hand (the offset stays at the oldest), up to 100;
# polled back to back, a burst of clicks had each update fetched and decoded dozens of times.
# A click waits at most this long longer for its turn.
BUSY_POLL = 0.02
STOP_WAIT = 10.0  # seconds a stop waits for updates being handled


async def handle(application: Application[Any, Any, Any, Any, Any, Any], update: Update) -> None:
    """Handle one update as the Application's own fetcher would: through its update processor."""
    await application.update_processor.process_update(update, application.process_update(update))


class ConfirmingPoller:
    """Long polling that confirms an update (moves the getUpdates offset past it) only once it
    and every update before it were handled.

    Updates are handled as they arrive, concurrently across users: a slow one (a reply waiting
    out flood control) does not hold up the clicks behind it. While one is still being handled,
    the offset stays at it, so Telegram keeps returning it; such polls are short (every
    SHORT_POLL seconds, or as soon as a handling ends) and skip the updates already taken; in a
    burst they are BUSY_POLL seconds apart.
    """

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        *,
        timeout: timedelta,
        allowed_updates: Sequence[str],
        error_callback: Callable[[TelegramError], None],
    ) -> None:
        self.application = application
        self.timeout = timeout
        self.allowed_updates = list(allowed_updates)
        self.error_callback = error_callback
        self.reader = UpdateReader(application.bot)
        self.offset = 0  # every update below it was handled: what Telegram is told
        self._inflight: dict[int, asyncio.Task[None]] = {}
        self._done: set[int] = set()  # handled, at or above the offset (an earlier one is still going)
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        await self.application.bot.delete_webhook(drop_pending_updates=False)
        self._stopping = False
        self._task = asyncio.create_task(self._poll(), name="telegram-polling")

    async def _poll(self) -> None:
        failures = 0
        while not self._stopping:
            busy = bool(self._inflight)
            try:
                batch = await self._fetch(0 if busy else self.timeout.total_seconds())
            except InvalidToken:
                log.error("telegram polling stopped: the token was refused")
                raise
            except TimedOut:
                continue  # a long poll that outlived the read timeout: poll again
            except TelegramError as exc:
                self.error_callback(exc)
                wait = exc.retry_after if isinstance(exc, RetryAfter) else FIRST_WAIT * BACKOFF**failures
                failures += 1
                await asyncio.sleep(
                    wait.total_seconds() if isinstance(wait, timedelta) else min(wait, LONGEST_WAIT)
                )
                continue
            failures = 0
            # Skipped: those taken already, and those handled while this poll was on its way.
            taken = self._inflight.keys() | self._done
            fresh = self._parse_fresh(batch, taken)
            for update in fresh:
                self._inflight[update.update_id] = asyncio.create_task(self._handle(update))
            if not self._inflight:
                self._advance()
            elif fresh:
                await asyncio.sleep(BUSY_POLL)
            else:  # only updates being handled came back: wait a little, not in a loop
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), SHORT_POLL)

    async def _fetch(self, timeout: float) -> list[Any]:
        """One getUpdates call with its result left as JSON: `Bot.get_updates` less its parsing.

        It goes through `Bot._post` (python-telegram-bot<23 is pinned), as `get_updates` itself
        does: the same request object, rate limiter and errors. `do_api_request` would be the
        public door but warns on every call that getUpdates has a method of its own.
        """
        bot = self.application.bot
        # PTB keeps getUpdates on a request object of its own (Bot._request[0]) and waits its read
        # timeout on top of the long poll's, as Bot.get_updates does.
        read_timeout = (bot._request[0].read_timeout or 0) + timeout
        data = {"offset": self.offset, "timeout": int(timeout), "allowed_updates": self.allowed_updates}
        result = await bot._post("getUpdates", data, read_timeout=read_timeout)
        return result if isinstance(result, list) else []

    def _parse_fresh(self, batch: list[Any], taken: set[int]) -> list[Update]:
        """The updates of a fetched batch not taken yet, parsed; one that PTB cannot parse is
        logged once and counted as handled, so it is confirmed instead of fetched forever."""
        fresh: list[Update] = []
        bot = self.application.bot
        for raw in batch:
            update_id = raw.get("update_id") if isinstance(raw, dict) else None
            if not isinstance(update_id, int) or update_id < self.offset or update_id in taken:
                continue
            try:
                update = self.reader.read(raw)
            except Exception:
                log.warning("telegram: update %s could not be read and was skipped", update_id)
                self._done.add(update_id)
                continue
            bot.insert_callback_data(update)  # what ExtBot.get_updates does for each update
            fresh.append(update)
        return fresh

    async def _handle(self, update: Update) -> None:
        try:
            await handle(self.application, update)
        finally:
            self._inflight.pop(update.update_id, None)
            self._done.add(update.update_id)
            self._advance()
            self._changed.set()

    def _advance(self) -> None:
        if self._inflight:
            self.offset = max(self.offset, min(self._inflight))
        elif self._done:
            self.offset = max(self.offset, max(self._done) + 1)
        self._done = {i for i in self._done if i >= self.offset}

    async def stop(self) -> None:
        if self._task is None:
            return
        self._stopping = True  # the transport may turn a cancelled request into a timeout: ends the loop
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, TelegramError, TimeoutError):
            await asyncio.wait_for(self._task, STOP_WAIT)
        self._task = None
        if self._inflight:  # let what was taken finish, so it can be confirmed
            await asyncio.wait(list(self._inflight.values()), timeout=STOP_WAIT)
        if self.offset:
            # Confirm what was handled, so the next start does not handle it again.
            with contextlib.suppress(TelegramError, TimeoutError):
                await asyncio.wait_for(
                    self.application.bot.get_updates(offset=self.offset, timeout=0), STOP_WAIT
                )


class HandlingWebhook:
    """A webhook endpoint that answers Telegram only once the update was handled."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        *,
        listen: str,
        port: int,
        url_path: str,
        webhook_url: str,
        secret_token: str,
        allowed_updates: Sequence[str],
    ) -> None:
        self.application = application
        self.listen, self.port = listen, port
        self.url_path = "/" + url_path.lstrip("/")
        self.webhook_url = webhook_url
        self.secret_token = secret_token
        self.allowed_updates = list(allowed_updates)
        self.reader = UpdateReader(application.bot)
        self._runner: web.AppRunner | None = None
        self.bound_port: int | None = None

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def start(self) -> None:
        server = web.Application()
        server.router.add_post(self.url_path, self._receive)
        self._runner = web.AppRunner(server, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.listen, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or ()  # the port when 0 was asked for
        self.bound_port = sockets[0].getsockname()[1] if sockets else self.port
        log.info("telegram webhook: listening on %s:%s%s", self.listen, self.bound_port, self.url_path)
        await self.application.bot.set_webhook(
            self.webhook_url, allowed_updates=self.allowed_updates, secret_token=self.secret_token
        )

    async def _receive(self, request: web.Request) -> web.Response:
        # Checked on every request, before anything is read or done; bytes, so that a header
        # with other than ASCII in it is refused like any wrong secret.
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(given, self.secret_token.encode()):
            return web.Response(status=403)
        try:
            update = self.reader.read(await request.json())
        except Exception:  # not an update: Telegram would not send it again anyway
            log.warning("telegram webhook: a request that is not an update was refused")
            return web.Response(status=400)
        await handle(self.application, update)  # only then is Telegram told it arrived
        return web.Response(status=200)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
