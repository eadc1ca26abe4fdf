"""The web app's routes on aiohttp, mounted under /app on the bot's HTTP server.

The client is one HTML page, one small vanilla JS file and one stylesheet, served from this
package (no framework, no CDN: the page must load where no CDN is reachable, and inside
Telegram's in-app browser on a slow phone). It talks to a small JSON API here, which runs the
same application layer as the chat adapters: a mock's item, answer and move is a `MockClick`
(checked by the one rule in bot/application/clicks.py), a flag or the report is the chat's own `/mock`
command, drilling answers through `Answering.typed` as the console does, and a question's ☆ / ★
is the chat's ☆ click (`Act.FAVOURITE`, the use case `favourite_click`).

Sign-in: POST /api/session with a Mini App's `initData` or a one-time link's token sets the
session cookie (HttpOnly, SameSite=Strict, Secure behind HTTPS). Every other POST carries the
session's CSRF token in `X-CSRF-Token`; the sign-in POST needs the `X-Studybot` header, which a
cross-site form cannot send. Requests are limited per session (and sign-ins per address).

A bank's admin pages (/api/admin/…) are for its owners only: bot/application/study/bank_admin.py
asks `BankOwners` (the rule of /reports and /bank stats) on every request, so a bank id changed
by hand is refused (403, `itemstats.not_owner`) and a report not theirs is not closed.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from adapters.web import admin_views, views
from bot.application.answering import TextReply
from bot.application.app import Application, WebAccess, WebGrant, csrf_token
from bot.application.clicks import UNSTAR, Act, Click, MockAct, MockClick
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.store_faults import StoreFull, StoreUnavailable
from bot.application.study.bank_admin import BankAdmin
from bot.locales.i18n import t
from bot.views.study import FavouritesView, MistakesView

log = logging.getLogger("studybot.web")

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "studybot_session"
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "frame-ancestors https://web.telegram.org 'self'; base-uri 'none'; form-action 'self'")  # fmt: skip
MAX_BODY = 8 * 1024
_PICTURE_TYPES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
                  "webp": "image/webp"}  # fmt: skip
MAX_TEXT = 1000
MAX_QUESTION_ID = 200
# Per session: a burst of answers is fine, a script hammering is not.
REQUESTS_PER_MINUTE = 240
SIGN_INS_PER_MINUTE = 20  # per address
ACTS = {
    "pick": MockAct.PICK, "next": MockAct.NEXT, "back": MockAct.BACK, "sheet": MockAct.SHEET,
    "go": MockAct.GO, "submit": MockAct.SUBMIT, "confirm": MockAct.CONFIRM, "type": MockAct.TYPE,
}  # fmt: skip
GRADES = ("full", "half", "zero")  # a short answer's self-grade (the catalog's LEVEL choices)
# What the web app's pages run: fixed command lines, never text from the client.
PAGES = {
    "mistakes": "/mistakes list", "favorites": "/favorites list", "progress": "/stats", "ready": "/ready",
    "weak": "/weak",
}  # fmt: skip
DRILLS = {
    "random": "/quiz", "sequential": "/quiz next", "mistakes": "/mistakes practice",
    "favorites": "/favorites practice", "review": "/review",
}  # fmt: skip

CLOSES = {"resolve": "resolved", "dismiss": "dismissed"}  # a report's close, as /reports names it
MAX_BANK_ID = 200

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BadInput(Exception):
    """A request that does not fit: answered 400 with a catalog sentence."""


class Limiter:
    """At most `limit` requests per minute per key, in this process's memory (a sliding window)."""

    def __init__(self, limit: int, *, max_keys: int = 50_000) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self._hits: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        hits = self._hits.get(key)
        if hits is None:
            if len(self._hits) >= self.max_keys:
                self._hits.pop(next(iter(self._hits)))
            hits = self._hits[key] = deque()
        while hits and now - hits[0] >= 60:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        return True


class WebApp:
    """The /app sub-application over one `Application` and its `WebAccess`."""

    def __init__(self, application: Application, access: WebAccess, admin: BankAdmin | None = None) -> None:
        self.app = application
        self.access = access
        self.admin = admin  # a bank's admin pages, for its owners (None: no such pages)
        self.requests = Limiter(REQUESTS_PER_MINUTE)
        self.sign_ins = Limiter(SIGN_INS_PER_MINUTE)

    def build(self) -> web.Application:
        sub = web.Application(client_max_size=MAX_BODY, middlewares=[self._headers])
        sub.router.add_get("/", self._page)
        sub.router.add_get("/login", self._page)
        sub.router.add_get("/static/{name}", self._static)
        sub.router.add_post("/api/session", self._sign_in)
        sub.router.add_get("/api/hello", self._hello)
        sub.router.add_post("/api/logout", self._guard(self._sign_out))
        sub.router.add_get("/api/me", self._guard(self._me))
        sub.router.add_get("/api/mock", self._guard(self._mock_state))
        sub.router.add_post("/api/mock/start", self._guard(self._mock_start))
        sub.router.add_post("/api/mock/act", self._guard(self._mock_act))
        sub.router.add_post("/api/mock/flag", self._guard(self._mock_flag))
        sub.router.add_get("/api/mock/report", self._guard(self._mock_report))
        sub.router.add_post("/api/mock/grade", self._guard(self._mock_grade))
        sub.router.add_get("/api/mock/{mock_id}/review/{item}", self._guard(self._mock_review))
        sub.router.add_get("/api/page/{name}", self._guard(self._page_view))
        sub.router.add_post("/api/drill/start", self._guard(self._drill_start))
        sub.router.add_post("/api/drill/answer", self._guard(self._drill_answer))
        sub.router.add_post("/api/favourite", self._guard(self._favourite))
        sub.router.add_get("/api/mistakes/export", self._guard(self._mistakes_export))
        sub.router.add_get("/api/admin/banks", self._guard(self._admin_banks))
        sub.router.add_get("/api/admin/bank/{bank_id}", self._guard(self._admin_bank))
        sub.router.add_post("/api/admin/report", self._guard(self._admin_close))
        sub.router.add_get("/api/picture/{bank_id}/{name}", self._guard(self._picture))
        return sub

    # ------------------------------------------------------------ plumbing

    @web.middleware
    async def _headers(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    def _guard(
        self, handler: Callable[[web.Request, WebGrant, str], Awaitable[web.StreamResponse]]
    ) -> Handler:
        """The session (401 without one), the CSRF token on a POST (403), the rate limit (429),
        and a bad input's 400, around one handler."""

        async def guarded(request: web.Request) -> web.StreamResponse:
            token = request.cookies.get(COOKIE, "")
            try:
                grant = await self.access.session(token)
            except StoreUnavailable:  # the database is away: nobody can be signed in just now
                return _json(503, {"error": "store"})
            if grant is None:
                return _json(401, {"error": "signed_out"})
            language = await self.app.language(grant.chat)
            given = request.headers.get("X-CSRF-Token", "").encode("utf-8")
            if request.method == "POST" and not hmac.compare_digest(given, csrf_token(token).encode("ascii")):
                return _json(403, {"error": "csrf", "message": t(language, "web.closed")})
            person = f"{grant.platform}:{grant.user_key}"  # the limit is a person's, however many sessions
            if not self.requests.allow(person):
                return _json(429, {"error": "rate", "message": t(language, "web.rate_limited")})
            try:
                return await handler(request, grant, language)
            except BadInput:
                return _json(400, {"error": "bad_input", "message": t(language, "web.bad_input")})
            except StoreUnavailable as exc:  # nothing was committed: the page may simply try again
                full = isinstance(exc, StoreFull)
                key = "error.store_full_command" if full else "error.store_unavailable_command"
                return _json(503, {"error": "store", "message": t(language, key)})

        return guarded

    @staticmethod
    def caller(grant: WebGrant) -> Caller:
        return Caller(grant.chat, grant.user)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (ValueError, web.HTTPRequestEntityTooLarge):
            raise BadInput() from None
        if not isinstance(body, dict):
            raise BadInput()
        return body

    async def _run(self, line: str, grant: WebGrant) -> web.Response:
        return _json(200, views.reply(await self.app.run_text(line, self.caller(grant))))

    # ------------------------------------------------------------ pages and sign-in

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Content-Type": "text/html; charset=utf-8"})

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in ("app.js", "app.css"):
            raise web.HTTPNotFound()
        response = web.FileResponse(STATIC / name)
        response.headers["Cache-Control"] = "no-cache"
        return response

    async def _hello(self, request: web.Request) -> web.StreamResponse:
        """The sign-in sentences, before anyone is signed in: in the browser's language."""
        language = browser_language(request.headers.get("Accept-Language", ""))
        keys = ("sign_in_needed", "sign_in_failed", "error_network")
        return _json(200, {"language": language, "labels": {k: t(language, f"web.{k}") for k in keys}})

    async def _sign_in(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("X-Studybot") != "1":
            return _json(403, {"error": "csrf"})
        if not self.sign_ins.allow(client_address(request)):
            return _json(429, {"error": "rate"})
        try:
            body = await self._body(request)
        except BadInput:
            return _json(400, {"error": "bad_input"})
        init_data, link = body.get("init_data"), body.get("link")
        session = None
        try:
            if isinstance(init_data, str) and init_data:
                session = await self.access.sign_in_telegram(init_data)
            elif isinstance(link, str) and link:
                session = await self.access.redeem_link(link)
        except StoreUnavailable:  # nothing was spent: the same link works once the database is back
            return _json(503, {"error": "store"})
        if session is None:  # which check failed is not said; the token is never logged
            log.info("web sign-in refused (%s)", "initData" if init_data else "link")
            return _json(401, {"error": "sign_in_failed"})
        token, _grant = session
        response = _json(200, {"ok": True})
        response.set_cookie(COOKIE, token, httponly=True, secure=self.access.secure, samesite="Strict",
                            path="/app", max_age=7 * 24 * 3600)  # fmt: skip
        return response

    async def _sign_out(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        await self.access.sign_out(request.cookies.get(COOKIE, ""))
        response = _json(200, {"ok": True})
        response.del_cookie(COOKIE, path="/app")
        return response

    async def _me(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        token = request.cookies.get(COOKIE, "")
        admin = self.admin is not None and bool(self.admin.owned(self.caller(grant)))
        return _json(200, {"name": grant.display_name, "language": language, "csrf": csrf_token(token),
                           "labels": views.labels(language), "admin": admin})  # fmt: skip

    # ------------------------------------------------------------ the mock exam

    async def _mock_state(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        """The mock in progress at the item it shows (with its sheet), else the last report."""
        caller = self.caller(grant)
        current = await self.app.run_text("/mock go", caller)
        if isinstance(current.view, TextView):  # none open: the last report, if any
            last = await self.app.run_text("/mock report", caller)
            if not isinstance(last.view, TextView):
                return _json(200, views.reply(last))
            return _json(200, {"kind": "none", "text": current.view.text})
        return _json(200, await self._with_sheet(current, caller))

    async def _with_sheet(self, reply: Reply, caller: Caller) -> dict[str, Any]:
        """An item with the whole answer sheet (on opening the page; after that the page marks
        what each reply says of the item on screen and the one just kept)."""
        out = views.reply(reply)
        if out["kind"] == "mock_question":
            sheet = await self.app.run_text("/mock sheet", caller)
            if not isinstance(sheet.view, TextView):
                out["sheet"] = views.reply(sheet)
        return out

    async def _mock_start(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        caller = self.caller(grant)
        return _json(200, await self._with_sheet(await self.app.run_text("/mock start", caller), caller))

    async def _mock_act(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        body = await self._body(request)
        act = ACTS.get(str(body.get("act")))
        mock_id, item, token = body.get("mock_id"), body.get("item"), body.get("token")
        if act is None or not _small_int(mock_id) or not _small_int(item):
            raise BadInput()
        if token is not None and (not isinstance(token, str) or len(token) > MAX_TEXT):
            raise BadInput()
        assert isinstance(mock_id, int) and isinstance(item, int)
        click = MockClick(
            mock_id, item, act, token, grant.platform, grant.chat_key, control="web", controls=None
        )
        result = await self.app.click(grant.chat, grant.user, click)
        if isinstance(result.view, TextView) and result.view.text == t(
            result.language, "mock.button_refused"
        ):
            return _json(409, {"kind": "closed", "text": t(language, "web.closed")})
        return _json(200, views.reply(result))  # the page keeps its sheet up to date from the item

    async def _mock_flag(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        item = (await self._body(request)).get("item")
        if not _small_int(item):
            raise BadInput()
        return await self._run(f"/mock flag {item}", grant)

    async def _mock_report(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        return await self._run("/mock report", grant)

    async def _mock_grade(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        """A short answer of the handed-in mock graded by its author against the reference."""
        body = await self._body(request)
        item, level = body.get("item"), body.get("level")
        if not _small_int(item) or level not in GRADES:
            raise BadInput()
        return await self._run(f"/mock grade {item} {level}", grant)

    async def _mock_review(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        try:
            mock_id, item = int(request.match_info["mock_id"]), int(request.match_info["item"])
        except ValueError:
            raise BadInput() from None
        if not (_small_int(mock_id) and _small_int(item)):
            raise BadInput()
        click = MockClick(mock_id, item, MockAct.REVIEW, None, grant.platform, grant.chat_key, "web", None)
        result = await self.app.click(grant.chat, grant.user, click)
        if isinstance(result.view, TextView):  # another person's mock, or none: nothing of it is shown
            return _json(404, {"kind": "closed", "text": t(language, "web.closed")})
        return _json(200, await self._stars(views.reply(result), grant))

    # ------------------------------------------------------------ drilling and the other pages

    async def _page_view(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        line = PAGES.get(request.match_info["name"])
        if line is None:
            raise web.HTTPNotFound()
        reply = await self.app.run_text(line, self.caller(grant))
        if isinstance(reply.view, MistakesView):  # each row with its ☆, the web's own last line
            return _json(200, views.mistakes(reply.view, await self.app.starred(grant.chat, grant.user)))
        if isinstance(reply.view, FavouritesView):
            return _json(200, views.favourites(reply.view, await self.app.starred(grant.chat, grant.user)))
        return _json(200, views.reply(reply))

    async def _drill_start(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        line = DRILLS.get(str((await self._body(request)).get("mode")))
        if line is None:
            raise BadInput()
        reply = await self.app.run_text(line, self.caller(grant))
        await self._posted(reply)
        return _json(200, await self._stars(views.reply(reply), grant))

    async def _drill_answer(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        body = await self._body(request)
        round_id, text = body.get("round_id"), body.get("text")
        if not _small_int(round_id) or not isinstance(text, str) or len(text) > MAX_TEXT:
            raise BadInput()
        assert isinstance(round_id, int)
        result = await self.app.typed(grant.chat, grant.user, text, round_id=round_id)
        out = views.answer(result)
        next_reply = getattr(result, "reply", None)
        if isinstance(next_reply, Reply):
            await self._posted(next_reply)
        return _json(200, await self._stars(out, grant))

    async def _stars(self, out: dict[str, Any], grant: WebGrant) -> dict[str, Any]:
        """A question's or a reviewed item's ☆ or ★: whether the person has starred it."""
        if out.get("kind") in ("question", "mock_review") and out.get("question"):
            out["starred"] = out["question"] in await self.app.starred(grant.chat, grant.user)
        return out

    async def _favourite(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        """The ☆ / ★ toggle: on a practice question or its receipt, the chat's ☆ click on that
        round (the click rule: a round of this person's web chat); on a mock's reviewed item or a
        row of the notebook or the favourites, the same use case by the question's id (of the
        chat's bank, starred for this person only)."""
        body = await self._body(request)
        on, round_id, question = body.get("on"), body.get("round_id"), body.get("question")
        if not isinstance(on, bool):
            raise BadInput()
        if round_id is not None:
            if not _small_int(round_id):
                raise BadInput()
            assert isinstance(round_id, int)
            token = None if on else UNSTAR
            ref = f"web:{round_id}"  # as the page posted it (_posted)
            click = Click(round_id, grant.platform, grant.chat_key, ref, Act.FAVOURITE, token, "web", None)
            result = await self.app.click(grant.chat, grant.user, click)
        elif isinstance(question, str) and 0 < len(question) <= MAX_QUESTION_ID:
            result = await self.app.favourite(grant.chat, grant.user, question, on)
        else:
            raise BadInput()
        if isinstance(result, TextReply) and result.failed:  # the database is away: nothing was starred
            return _json(503, {"error": "store", "message": result.text})
        if not isinstance(result, TextReply) or result.closed:  # not this person's round, not this bank's
            said = result.text if isinstance(result, TextReply) else ""
            return _json(409, {"kind": "closed", "text": said or t(language, "web.closed")})
        return _json(200, {"kind": "star", "starred": on, "text": result.text})

    async def _mistakes_export(
        self, request: web.Request, grant: WebGrant, language: str
    ) -> web.StreamResponse:
        """The notebook as the chat's /mistakes export makes it: its CSV table, downloaded."""
        reply = await self.app.run_text("/mistakes export", self.caller(grant))
        table = next((f for f in reply.files if f.filename.endswith(".csv")), None)
        if table is None:  # an empty notebook: the chat's sentence
            return _json(404, views.reply(reply))
        disposition = f'attachment; filename="{table.filename}"'
        return web.Response(body=table.data, content_type="text/csv", charset="utf-8",
                            headers={"Content-Disposition": disposition})  # fmt: skip

    # ------------------------------------------------------------ a bank's admin pages (its owners only)

    async def _admin_banks(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        owned = self.admin.owned(self.caller(grant)) if self.admin is not None else ()
        return _json(200, admin_views.banks(owned, language))

    async def _admin_bank(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        bank_id = request.match_info["bank_id"]
        if len(bank_id) > MAX_BANK_ID:
            raise BadInput()
        if self.admin is None:
            return _json(403, {"error": "not_owner", "message": t(language, "itemstats.not_owner")})
        try:
            view = await self.admin.statistics(self.caller(grant), bank_id, language)
        except QuizError as exc:  # not one of the banks this person owns: nothing of it is shown
            return _json(403, {"error": "not_owner", "message": exc.render(language)})
        return _json(200, admin_views.bank_admin(view))

    async def _admin_close(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        """Resolve or dismiss a report with a note, as /reports resolve|dismiss does (the
        reporter is told where they reported)."""
        body = await self._body(request)
        report_id, state, note = body.get("id"), CLOSES.get(str(body.get("action"))), body.get("note", "")
        if not _small_int(report_id) or state is None or not isinstance(note, str) or len(note) > MAX_TEXT:
            raise BadInput()
        assert isinstance(report_id, int)
        if self.admin is None:
            return _json(403, {"error": "not_owner", "message": t(language, "itemstats.not_owner")})
        try:
            said = await self.admin.close(self.caller(grant), report_id, state, note, language)
        except QuizError as exc:  # not open, or not a report of a bank this person owns
            return _json(404, {"error": "not_open", "message": exc.render(language)})
        return _json(200, {"kind": "text", "text": said})

    async def _picture(self, request: web.Request, grant: WebGrant, language: str) -> web.StreamResponse:
        """A question's picture, of a bank the signed-in chat may use (404 for any other)."""
        found = self.app.picture(grant.chat, request.match_info["bank_id"], request.match_info["name"])
        if found is None:
            return _json(404, {"error": "not_found"})
        kind = _PICTURE_TYPES.get(found.filename.rsplit(".", 1)[-1].lower(), "application/octet-stream")
        # A bank's picture changes only with the bank: the browser may keep it for the session.
        cache = {"Cache-Control": "private, max-age=3600"}
        return web.Response(body=found.data, content_type=kind, headers=cache)

    async def _posted(self, reply: Reply) -> None:
        round_id = getattr(reply.view, "round_id", None)
        if isinstance(round_id, int):  # the question is on the page now: its answers are admitted
            await self.app.question_posted(round_id, f"web:{round_id}")


def client_address(request: web.Request) -> str:
    """Who is signing in, for the limit: behind the reverse proxy (docs/web.md) the address it
    adds last to X-Forwarded-For, else the connection's."""
    forwarded = request.headers.get("X-Forwarded-For", "")
    return forwarded.split(",")[-1].strip() or request.remote or "?"


def browser_language(accept: str) -> str:
    """zh-TW, zh-CN or en from an Accept-Language header (zh-CN when it names none of them)."""
    for part in accept.split(","):
        tag = part.split(";")[0].strip().casefold()
        if tag.startswith(("zh-tw", "zh-hk", "zh-mo", "zh-hant")):
            return "zh-TW"
        if tag.startswith("zh"):
            return "zh-CN"
        if tag.startswith("en"):
            return "en"
    return "zh-CN"


def _small_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53


def _json(status: int, payload: dict[str, Any]) -> web.Response:
    return web.Response(status=status, text=json.dumps(payload, ensure_ascii=False),
                        content_type="application/json")  # fmt: skip
