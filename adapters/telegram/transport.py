"""How the bot's Bot API calls travel: httpx over aiohttp's connection pool, and callback answers
past the rate limiter.

python-telegram-bot sends through httpx, whose pool (httpcore) re-examines every connection
(a poll(2) on each idle one) and every queued request whenever a request starts or ends. With
PTB's 256 connections, 500 clicks answered together spent two thirds of the bot's CPU there and
waited seconds for their turn. The same httpx requests over aiohttp's pool (httpx-aiohttp, by an
httpx maintainer) take a free connection or queue for one at constant cost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

import httpx
from httpx_aiohttp import AiohttpTransport
from telegram._utils.types import JSONDict
from telegram.ext import AIORateLimiter
from telegram.request import HTTPXRequest

from adapters.telegram.transient import InvalidResponse

# Connections to the Bot API at most; more calls wait for one (FIFO). Against the real API, tens
# of milliseconds away, 64 connections carry well over a thousand calls a second.
CONNECTIONS = 64
# A call may wait this long for a free connection: in a burst a late toast beats none (PTB: 1 s).
POOL_TIMEOUT = 30.0


class AiohttpRequest(HTTPXRequest):
    """PTB's HTTPXRequest (timeouts, errors, uploads unchanged) on an aiohttp connection pool."""

    def __init__(self, connections: int = CONNECTIONS, **kwargs: Any) -> None:
        self._limits = httpx.Limits(max_connections=connections)
        kwargs.setdefault("pool_timeout", POOL_TIMEOUT)
        super().__init__(connection_pool_size=connections, **kwargs)

    def _build_client(self) -> httpx.AsyncClient:
        # A fresh transport each time PTB (re)builds its client: a closed one cannot be reopened.
        self._client_kwargs["transport"] = AiohttpTransport(limits=self._limits)
        return super()._build_client()

    @staticmethod
    def parse_json_payload(payload: bytes) -> JSONDict:
        """PTB's parser without its traceback for a body that is not JSON (an HTML 502 page):
        that is the platform's passing failure, reported once by whoever made the call."""
        try:
            parsed: JSONDict = json.loads(payload.decode("utf-8", "replace"))
        except ValueError as exc:
            raise InvalidResponse(f"Invalid server response: {payload[:80]!r}") from exc
        return parsed


class RateLimiter(AIORateLimiter):
    """PTB's AIORateLimiter for messages; callback answers go straight out.

    Telegram's limits are on messages (30 a second, 20 a minute in a group); a toast is not one,
    and waiting behind a flood-control pause would only let the client give up on it.
    """

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        if endpoint == "answerCallbackQuery":
            return await callback(*args, **kwargs)
        return await super().process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
