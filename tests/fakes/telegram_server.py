"""A fake Telegram Bot API server (aiohttp on 127.0.0.1) for tests with the real
python-telegram-bot: spec-checked requests, stateful chats, simulated users, injected failures."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

from aiohttp import web

from tests.fakes.telegram_methods import BotMethods
from tests.fakes.telegram_model import ApiError
from tests.fakes.telegram_spec import TelegramSpec, load_spec
from tests.fakes.telegram_webhook import WebhookDelivery
from tests.waits import HANG

T = TypeVar("T")
DEFAULT_TOKEN = "123456789:AAFakeTelegramTokenForStudybotTests_x"
_PATH_RE = re.compile(r"^/bot([^/]+)/([^/]*)$")
_FILE_RE = re.compile(r"^/file/bot([^/]+)/(.+)$")
_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: injected failure",
    403: "Forbidden: injected failure",
    409: "Conflict: injected failure",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


@dataclass
class HeldAnswer:
    """The answer to one call, kept back until ``release()``: the call has its effect at once
    (a message is posted and users see it), only the bot hears of it late, as over a slow link."""

    method: str
    match: Callable[[dict[str, Any]], bool] | None
    params: dict[str, Any] | None = None  # the call held, once it came
    released: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def arrived(self) -> bool:
        return self.params is not None

    def release(self) -> None:
        self.released.set()


@dataclass
class LoggedRequest:
    """One request the fake answered: ``params`` decoded, ``status`` and ``response`` sent."""

    index: int
    method: str
    params: dict[str, Any]
    status: int
    response: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.status == 200


class FakeTelegramServer(BotMethods):
    """Bot API on ``base_url`` (pass it to ``ApplicationBuilder().base_url``).

    Use as ``async with FakeTelegramServer() as server:`` or ``await start()`` / ``close()``.
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "studybot_test_bot",
        bot_name: str = "StudyBot Test",
        spec: TelegramSpec | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        super().__init__(token, bot_username, bot_name)
        self.spec = spec or load_spec()
        self.host = host
        self.port: int | None = None
        self.log: list[LoggedRequest] = []
        self.spec_violations: list[str] = []
        self.downloads: list[str] = []  # file paths the bot downloaded
        self.fake_errors: list[str] = []  # answers of the fake itself that break the spec
        self.strict = True  # the fixture asserts no violations at teardown while True
        self._failures: dict[str, list[ApiError]] = {}
        self._storm: dict[str, int] = {}
        self._generic: dict[str, Any] = {}
        self._holds: list[HeldAnswer] = []
        self._claimed: set[int] = set()
        self._runner: web.AppRunner | None = None
        self.webhook_delivery = WebhookDelivery(
            updates=lambda: [u for u in self._updates if self._deliverable(u)],
            confirm=self._confirm_update, webhook=lambda: self.webhook, changed=self._signal.notify,
        )  # fmt: skip
        self._signal.listeners.append(self.webhook_delivery.poke)

    def _confirm_update(self, update_id: int) -> None:
        """The webhook took this update (answered 2xx): Telegram forgets it."""
        self._updates = [u for u in self._updates if u["update_id"] != update_id]

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> Self:
        self.closing = False
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self.webhook_delivery.start()
        return self

    async def close(self) -> None:
        self.closing = True
        self._signal.notify()  # releases held getUpdates long polls
        for held in self._holds:  # and held answers
            held.release()
        await self.webhook_delivery.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/bot``: PTB appends ``<token>/<method>``."""
        if self.port is None:
            raise RuntimeError("start the fake Telegram server first")
        return f"http://{self.host}:{self.port}/bot"

    # -- what tests inspect -------------------------------------------------------------------

    @property
    def requests(self) -> list[tuple[str, dict[str, Any]]]:
        """Every request as (method, params), answered or refused, in arrival order."""
        return [(entry.method, entry.params) for entry in self.log]

    def calls(self, method: str) -> list[dict[str, Any]]:
        """Parameters of the successful calls of ``method``."""
        name = self._method_name(method)
        return [e.params for e in self.log if e.method == name and e.ok]

    def assert_all_requests_valid(self) -> None:
        problems = self.spec_violations + [f"fake server bug: {e}" for e in self.fake_errors]
        if problems:
            raise AssertionError("Telegram spec violations:\n  " + "\n  ".join(problems))

    # -- failure injection, extra methods -----------------------------------------------------

    def fail_next(
        self,
        method: str,
        times: int = 1,
        code: int = 429,
        retry_after: int = 1,
        description: str | None = None,
        parameters: dict[str, Any] | None = None,
        html: str | None = None,
    ) -> None:
        """Answer the next ``times`` valid calls of ``method`` with an error.

        The default is flood control (429 "Too Many Requests: retry after N" with
        parameters.retry_after); any other ``code`` answers ``description``. With ``html``,
        the answer is that HTML page instead of JSON (a proxy's error page before the API).
        """
        if code == 429:
            description = description or f"Too Many Requests: retry after {retry_after}"
            parameters = {"retry_after": retry_after, **(parameters or {})}
        elif description is None:
            description = _DEFAULT_DESCRIPTIONS.get(code, f"Error {code}")
        queue = self._failures.setdefault(self._method_name(method), [])
        queue.extend(ApiError(code, description, parameters, html) for _ in range(times))

    def storm(self, *methods: str, retry_after: int = 1) -> None:
        """Answer every call of ``methods`` with flood control (429, retry_after) until ``calm()``."""
        for method in methods:
            self._storm[self._method_name(method)] = retry_after

    def calm(self) -> None:
        self._storm.clear()

    def hold(self, method: str, match: Callable[[dict[str, Any]], bool] | None = None) -> HeldAnswer:
        """Keep back the answer to the next call of ``method`` (that ``match`` accepts) until the
        returned hold is released; the call itself takes effect at once."""
        held = HeldAnswer(self._method_name(method), match)
        self._holds.append(held)
        return held

    async def _held(self, method: str, params: dict[str, Any]) -> None:
        waiting = (h for h in self._holds if not h.arrived and h.method == method)
        held = next((h for h in waiting if h.match is None or h.match(params)), None)
        if held is None:
            return
        held.params = params
        self._signal.notify()
        await held.released.wait()

    def allow_method(self, method: str, result: Any = True) -> None:
        """Let a spec method the fake does not implement answer ``{"ok":true,"result":result}``."""
        self._generic[self._method_name(method)] = result

    def _method_name(self, method: str) -> str:
        name = self.spec.canonical_method(method)
        if name is None:
            raise ValueError(f"{method!r} is not a Bot API method")
        return name

    # -- waits (event-driven) -----------------------------------------------------------------

    # The waits take ``timeout`` (ASYNC109) so that a miss fails as an AssertionError saying what
    # was awaited, not as a bare TimeoutError.
    async def wait_until(self, predicate: Callable[[], T], timeout: float = HANG) -> T:
        """Wait for ``predicate()`` to be truthy, re-checking whenever the fake's state changes."""
        try:
            async with asyncio.timeout(timeout):
                return await self._signal.wait_for(predicate)
        except TimeoutError:
            raise AssertionError(f"condition not met within {timeout}s") from None

    async def wait_for_request(
        self,
        method: str,
        predicate: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = HANG,
        *,
        include_failed: bool = False,
    ) -> dict[str, Any]:
        """Params of the earliest successful ``method`` call not yet returned by this wait.

        Past requests count, so there is no race with a fast bot; each request is returned once.
        """
        name = self._method_name(method)

        def find() -> LoggedRequest | None:
            for entry in self.log:
                if (
                    entry.index not in self._claimed
                    and entry.method == name
                    and (entry.ok or include_failed)
                    and (predicate is None or predicate(entry.params))
                ):
                    return entry
            return None

        try:
            async with asyncio.timeout(timeout):
                entry = await self._signal.wait_for(find)
        except TimeoutError:
            seen = [(e.method, e.status, e.params) for e in self.log[-10:]]
            raise AssertionError(f"no matching {name} within {timeout}s; last requests: {seen}") from None
        self._claimed.add(entry.index)
        return entry.params

    async def wait_for_callback_answer(self, callback_query_id: str, timeout: float = HANG) -> dict[str, Any]:
        """The answerCallbackQuery params the bot gave for this click."""
        state = self.callbacks[callback_query_id]
        try:
            async with asyncio.timeout(timeout):
                return await self._signal.wait_for(lambda: state.answer)
        except TimeoutError:
            raise AssertionError(
                f"callback query {callback_query_id} not answered within {timeout}s"
            ) from None

    # -- HTTP ---------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        download = _FILE_RE.match(request.path)
        if download is not None:
            return self._download(*download.groups())
        match = _PATH_RE.match(request.path)
        if match is None:
            return self._answer("?", {}, ApiError(404, "Not Found"), violation="bad URL path")
        token, raw_name = match.groups()
        raw, typed = await _read_params(request)
        if token != self.token:
            return self._answer(
                raw_name, raw, ApiError(401, "Unauthorized"), violation="request with a wrong bot token"
            )
        method = self.spec.canonical_method(raw_name)
        if method is None:
            return self._answer(
                raw_name, raw, ApiError(404, "Not Found"), violation=f"unknown method {raw_name!r}"
            )
        params, issues = self.spec.decode_params(method, raw, typed=typed)
        if issues:
            self.spec_violations.extend(f"{method}: {i.describe()}" for i in issues)
            reason = f"Bad Request: {issues[0].describe()}"
            return self._answer(method, params, ApiError(400, reason))
        handler = getattr(self, f"api_{method}", None)
        if handler is None and method not in self._generic:
            return self._answer(
                method,
                params,
                ApiError(400, "Bad Request: method not implemented by the fake"),
                violation=f"{method}: method not implemented by the fake (allow_method() it?)",
            )
        if method in self._storm:
            retry_after = self._storm[method]
            flood = ApiError(
                429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
            )
            return self._answer(method, params, flood)
        if self._failures.get(method):
            return self._answer(method, params, self._failures[method].pop(0))
        try:
            result = await handler(params) if handler else self._generic[method]
        except ApiError as err:
            return self._answer(method, params, err)
        await self._held(method, params)
        returns = self.spec.methods[method].get("returns") or []
        self.fake_errors.extend(
            f"{method}: {i.describe()}" for i in self.spec.check_value(returns, result, "result")
        )
        return self._answer(method, params, result)

    def _download(self, token: str, file_path: str) -> web.Response:
        """A file as Telegram serves it after getFile: its bytes, or 404."""
        if token != self.token:
            self.spec_violations.append("file download with a wrong bot token")
            return web.Response(status=401)
        file = next((f for f in self.files.values() if f.file_path == file_path), None)
        self.downloads.append(file_path)
        self._signal.notify()
        if file is None:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=file.data, content_type="application/octet-stream")

    def _answer(
        self, method: str, params: dict[str, Any], outcome: Any, *, violation: str | None = None
    ) -> web.Response:
        if violation:
            self.spec_violations.append(violation)
        if isinstance(outcome, ApiError):
            status, body = outcome.code, outcome.payload()
        else:
            status, body = 200, {"ok": True, "result": outcome}
        self.log.append(LoggedRequest(len(self.log), method, params, status, body))
        self._signal.notify()
        if isinstance(outcome, ApiError) and outcome.html is not None:
            return web.Response(text=outcome.html, status=status, content_type="text/html")
        return web.json_response(body, status=status)


async def _read_params(request: web.Request) -> tuple[dict[str, Any], bool]:
    """Query string plus body; True when the body was JSON (values already typed)."""
    raw: dict[str, Any] = dict(request.query)
    if request.content_type == "application/json":
        body = await request.json()
        if isinstance(body, dict):
            raw.update(body)
        return raw, True
    if request.method == "POST":
        form = await request.post()
        raw.update({key: form[key] for key in form})
    return raw, False
