"""The fake Discord's REST request pipeline: route lookup in the OpenAPI spec, auth, injected
failures, rate-limit buckets, body validation (spec + Discord's limits), then the handler."""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from aiohttp import web

import tests.fakes.discord_interactions  # noqa: F401  (registers the callback/webhook routes)
from tests.fakes.discord_rest import HANDLERS, REACTIONS, ApiRequest, ApiResponse
from tests.fakes.discord_rules import DiscordError, Finding, check_message, check_modal, invalid_form_body

if TYPE_CHECKING:
    from tests.fakes.discord_spec import OpenApiSpec

API_PREFIX = "/api/v10"
MESSAGE_BODY_ROUTES = {
    ("POST", "/channels/{channel_id}/messages"),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"),
    ("POST", "/webhooks/{webhook_id}/{webhook_token}"),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original"),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"),
}
CALLBACK_ROUTE = "/interactions/{interaction_id}/{interaction_token}/callback"
# (limit, seconds) per route and major parameter, used when enforce_rate_limits is on.
DEFAULT_RATE_LIMITS: dict[tuple[str, str], tuple[int, float]] = {
    ("POST", "/channels/{channel_id}/messages"): (5, 5.0),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"): (5, 5.0),
    ("DELETE", "/channels/{channel_id}/messages/{message_id}"): (5, 1.0),
    ("PUT", REACTIONS + "/{emoji_name}/@me"): (1, 0.25),
}
_DEFAULT_ERRORS = {
    400: (0, "400: Bad Request"), 401: (0, "401: Unauthorized"), 403: (50013, "Missing Permissions"),
    404: (0, "404: Not Found"), 500: (0, "500: Internal Server Error"), 502: (0, "502: Bad Gateway"),
}


@dataclass(frozen=True)
class SpecViolation:
    method: str
    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.method} {self.path}: {self.problem}"


@dataclass
class _Failure:
    method: str | None
    route: str | None  # a template or a regex over the path
    status: int
    retry_after: float
    is_global: bool
    code: int | None
    message: str | None
    times: int

    def matches(self, req: ApiRequest) -> bool:
        if self.method and self.method != req.method:
            return False
        return not self.route or self.route == req.template or re.fullmatch(self.route, req.path) is not None


class RestPipeline:
    """Mixed into FakeDiscord, which provides the attributes below and the store/handlers' API."""

    spec: OpenApiSpec
    token: str
    enforce_rate_limits: bool

    def clock(self) -> float:
        raise NotImplementedError

    def notify(self) -> None:
        raise NotImplementedError

    def _init_pipeline(self) -> None:
        self.requests: list[ApiRequest] = []
        self.spec_violations: list[SpecViolation] = []
        self.unhandled_routes: list[str] = []
        self.rate_limits = dict(DEFAULT_RATE_LIMITS)
        self._failures: list[_Failure] = []
        self._buckets: dict[tuple, list[float]] = {}

    def fail_next(self, route_or_method: str, code: int = 429, *, retry_after: float = 0.5, times: int = 1,
                  is_global: bool = False, error_code: int | None = None, message: str | None = None) -> None:
        """Answer the next `times` matching requests with HTTP `code` (429: Discord's rate-limit
        body and headers). `route_or_method`: "POST", "POST /channels/{channel_id}/messages",
        a template alone, or "METHOD <regex over the path>". Beware: discord.py sleeps 1s+ on 5xx."""
        method, _, route = route_or_method.partition(" ")
        if not method.isupper() or not method.isalpha():
            method, route = "", route_or_method
        self._failures.append(_Failure(method or None, route or None, code, retry_after, is_global,
                                       error_code, message, times))

    def calm(self) -> None:
        """Forget every failure `fail_next` has yet to inject (ends a storm of many `times`)."""
        self._failures.clear()

    def _injected_failure(self, req: ApiRequest) -> ApiResponse | None:
        failure = next((f for f in self._failures if f.matches(req)), None)
        if failure is None:
            return None
        failure.times -= 1
        if failure.times <= 0:
            self._failures.remove(failure)
        if failure.status == 429:
            return _rate_limited(req, failure.retry_after, failure.is_global)
        code, text = _DEFAULT_ERRORS.get(failure.status, (0, f"{failure.status}: Error"))
        body = {"message": failure.message or text, "code": failure.code or code}
        return ApiResponse(failure.status, body)

    def _take_bucket(self, req: ApiRequest) -> ApiResponse | dict[str, str] | None:
        limit_per = self.rate_limits.get((req.method, req.template or ""))
        if not self.enforce_rate_limits or limit_per is None:
            return None
        limit, per = limit_per
        p = req.params
        key = (req.method, req.template, p.get("channel_id") or p.get("guild_id") or p.get("webhook_token"))
        now = self.clock()
        bucket = self._buckets.setdefault(key, [now, 0])
        if now - bucket[0] >= per:
            bucket[:] = [now, 0]
        reset_after = per - (now - bucket[0])
        if bucket[1] >= limit:
            return _rate_limited(req, round(reset_after, 3))
        bucket[1] += 1
        return _ratelimit_headers(limit, limit - int(bucket[1]), reset_after, _bucket_hash(req))

    async def _handle_api(self, request: web.Request) -> web.StreamResponse:
        raw = request.rel_url.raw_path[len(API_PREFIX):] or "/"
        path = "/" + "/".join(unquote(seg) for seg in raw.strip("/").split("/"))
        req = ApiRequest(request.method, path, dict(request.query), None, dict(request.headers))
        self.requests.append(req)
        try:
            response = await self._process(req, request)
        except DiscordError as exc:
            response = ApiResponse(exc.status, exc.body())
        req.status, req.response = response.status, response.body
        self.notify()
        if response.body is None:
            return web.Response(status=204 if response.status < 300 else response.status,
                                headers=response.headers)
        # Exactly "application/json": discord.py compares the header verbatim, so no charset.
        headers = {**response.headers, "Content-Type": "application/json"}
        return web.Response(body=json.dumps(response.body).encode(), status=response.status, headers=headers)

    def _violation(self, req: ApiRequest, problem: str) -> None:
        self.spec_violations.append(SpecViolation(req.method, req.path, problem))

    async def _process(self, req: ApiRequest, request: web.Request) -> ApiResponse:
        match = self.spec.match(req.method, req.path)
        if match is None:
            self._violation(req, "no such route in Discord's API")
            raise DiscordError(404, 0, "404: Not Found")
        req.template, req.params = match.template, match.params
        if match.operation is None:
            allowed = self.spec.methods(match.template)
            self._violation(req, f"method not allowed on {match.template} (allowed: {allowed})")
            raise DiscordError(405, 0, "405: Method Not Allowed")
        shape = self.spec.check_path_params(match)
        if shape:
            self._violation(req, "; ".join(map(str, shape)))
            raise invalid_form_body(shape)
        token_route = match.template.startswith(("/webhooks/{webhook_id}/{webhook_token}", "/interactions/"))
        if not token_route and req.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")
        injected = self._injected_failure(req)
        if injected is not None:
            return injected
        bucket = self._take_bucket(req)
        if isinstance(bucket, ApiResponse):
            return bucket
        content_type = await self._read_body(req, request)
        findings = self.spec.check_query(match, req.query)
        findings += self.spec.check_body(match, req.body, content_type)
        for finding in findings:
            if finding.kind == "shape":
                self._violation(req, str(finding))
        # Discord's own limits first: their messages win over the spec's for the same field.
        findings = _rule_findings(req) + findings
        if findings:
            raise invalid_form_body(findings)
        handler = HANDLERS.get((req.method, match.template))
        if handler is None:
            self.unhandled_routes.append(f"{req.method} {match.template}")
            raise DiscordError(404, 0, f"404: Not Found (the fake does not implement {match.template})")
        result = await handler(self, req)  # type: ignore[arg-type]
        if not isinstance(result, ApiResponse):
            result = ApiResponse(200 if result is not None else 204, result)
        result.headers.update(bucket or {})
        return result

    async def _read_body(self, req: ApiRequest, request: web.Request) -> str:
        content_type = request.content_type
        if content_type == "multipart/form-data":
            async for part in await request.multipart():
                if part.name == "payload_json":
                    req.body = json.loads(await part.text())  # type: ignore[union-attr]
                elif part.filename:  # type: ignore[union-attr]
                    req.files.append(part.filename)  # type: ignore[union-attr]
                    req.uploads[part.filename] = bytes(await part.read())  # type: ignore[union-attr]
            return content_type
        raw = await request.read()
        if not raw:
            return "application/json"
        if content_type != "application/json":
            self._violation(req, f"body sent as {content_type!r}, not application/json")
        try:
            req.body = json.loads(raw)
        except ValueError:
            self._violation(req, "body is not valid JSON")
            raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None
        return "application/json"


def _rule_findings(req: ApiRequest) -> list[Finding]:
    body = req.body
    if not isinstance(body, dict):
        return []
    if (req.method, req.template) in MESSAGE_BODY_ROUTES:
        return check_message(body)
    if req.template == CALLBACK_ROUTE and isinstance(body.get("data"), dict):
        if body.get("type") in (4, 7):
            return check_message(body["data"], ("data",))
        if body.get("type") == 9:
            return check_modal(body["data"])
    return []


def _rate_limited(req: ApiRequest, retry_after: float, is_global: bool = False) -> ApiResponse:
    headers = _ratelimit_headers(1, 0, retry_after, _bucket_hash(req))
    headers["Retry-After"] = str(max(1, round(retry_after)))
    headers["X-RateLimit-Scope"] = "global" if is_global else "user"
    headers["Via"] = "1.1 google"  # discord.py takes a 429 without Via for a Cloudflare ban
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": is_global}
    return ApiResponse(429, body, headers)


def _bucket_hash(req: ApiRequest) -> str:
    return hashlib.sha1(f"{req.method} {req.template}".encode()).hexdigest()[:16]


def _ratelimit_headers(limit: int, remaining: int, reset_after: float, bucket: str) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": bucket,
    }
