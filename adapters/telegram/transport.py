"""How the bot's Bot API calls travel: straight on aiohttp's connection pool, and callback
answers past the rate limiter.

python-telegram-bot sends through httpx by default, whose pool (httpcore) re-examines every
connection (a poll(2) on each idle one) and every queued request whenever a request starts or
ends: with PTB's 256 connections, 500 clicks answered together spent two thirds of the bot's CPU
there. Over aiohttp's pool (httpx-aiohttp) that cost went, but httpx still built and checked
every request (URL parsing, header models, auth and redirect handling): a fifth of the bot's CPU
per click. PTB lets a bot bring its own `BaseRequest`; this one hands PTB's request data to an
aiohttp session directly and maps its failures onto PTB's errors as HTTPXRequest does: a timeout
is `TimedOut`, any other client failure `NetworkError`. Uploads go as multipart form data.

Every other call's body is form-urlencoded here, once, as bytes: handed a dict, aiohttp builds a
FormData for it, and every FormData starts a multipart writer with a fresh random boundary (a
uuid4 from os.urandom) that a urlencoded body never uses: a twentieth of the bot's CPU per click.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlencode

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.ext import AIORateLimiter
from telegram.request import BaseRequest, RequestData

from adapters.telegram.transient import InvalidResponse

# Connections to the Bot API at most; more calls wait for one (FIFO). Against the real API, tens
# of milliseconds away, 64 connections carry well over a thousand calls a second.
CONNECTIONS = 64
# A call may wait this long for a free connection: in a burst a late toast beats none (PTB: 1 s).
POOL_TIMEOUT = 30.0
FORM = {"Content-Type": "application/x-www-form-urlencoded"}  # what aiohttp's FormData would say
# PTB's HTTPXRequest defaults: 5 s to connect, read and write; 20 s to write an upload.
TIMEOUT = 5.0
MEDIA_WRITE_TIMEOUT = 20.0


class AiohttpRequest(BaseRequest):
    """PTB's request interface on one aiohttp session (a pool of `connections`)."""

    def __init__(
        self,
        connections: int = CONNECTIONS,
        *,
        read_timeout: float | None = TIMEOUT,
        connect_timeout: float | None = TIMEOUT,
        pool_timeout: float | None = POOL_TIMEOUT,
    ) -> None:
        self._connections = connections
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            # A fresh session each time PTB (re)initializes: a closed one cannot be reopened.
            connector = aiohttp.TCPConnector(limit=self._connections)
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": self.USER_AGENT}, skip_auto_headers=("Accept",)
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else {}
        body: aiohttp.FormData | bytes = urlencode(fields).encode()  # as aiohttp's FormData would
        headers: dict[str, str] | None = FORM
        if files:
            form = aiohttp.FormData()
            for name, value in fields.items():
                form.add_field(name, value)
            for name, part in files.items():
                filename, content, *mimetype = part if isinstance(part, tuple) else (None, part)
                kind = mimetype[0] if mimetype else None
                form.add_field(name, content, filename=filename, content_type=kind)
            body, headers = form, None
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        if isinstance(write_timeout, DefaultValue):
            write_timeout = MEDIA_WRITE_TIMEOUT if files else TIMEOUT
        # aiohttp has no write timeout of its own: a request is bounded as a whole by the time to
        # get a connection, write the body and read the answer.
        total = None if read is None else (pool or 0) + (connect or 0) + (write_timeout or 0) + read
        timeout = aiohttp.ClientTimeout(
            total=total, connect=None if pool is None and connect is None else (pool or 0) + (connect or 0),
            sock_connect=connect, sock_read=read,
        )  # fmt: skip
        try:
            async with session.request(method, url, data=body, headers=headers, timeout=timeout) as response:
                return response.status, await response.read()
        except TimeoutError as err:  # asyncio's and aiohttp's timeouts are TimeoutErrors
            raise TimedOut from err
        except (aiohttp.ClientError, OSError, asyncio.IncompleteReadError) as err:
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err

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
