"""Signing in to the web app without passwords: Telegram Mini App `initData`, one-time links and
the session cookie they are exchanged for.

Inside Telegram the Mini App is opened with `initData`, a query string Telegram signs with a key
derived from the bot's token (HMAC_SHA256 of the token keyed by "WebAppData"); it is believed
only when its `hash` matches and its `auth_date` is recent (`INIT_DATA_MAX_AGE`). Elsewhere `/web`
in a private chat gives the person a one-time link: a random token, stored only as its SHA-256,
bound to that person and chat, good for `LINK_TTL` and once. Either way the person gets a session
token (the cookie), stored the same way; the CSRF token for its state changes is derived from it,
so it needs no storage of its own. Tokens are never logged: only their hashes reach the store.

The session names the chat the web app acts in (a Telegram private chat, the Discord DM where
/web was typed): the same chat as the chat adapter's, so a mock started in the chat continues on
the web and the other way round.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl

from bot.domain.clock import Clock
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.ports.web_storage import WebAccessStore, WebGrant

LINK_TTL = timedelta(minutes=10)
SESSION_TTL = timedelta(days=7)
INIT_DATA_MAX_AGE = timedelta(hours=1)  # an initData older than this starts no session
MAX_INIT_DATA = 4096  # Telegram's are well under 1 KiB
TOKEN_BYTES = 32
# A session read from the store is believed this long without asking again (every request of the
# web app names its session): a sign-out in another process is seen within this time.
SESSION_CACHE = timedelta(seconds=30)
MAX_CACHED = 20_000


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session: derived, so a page that cannot read the cookie cannot make it."""
    return hmac.new(session_token.encode("utf-8"), b"studybot-csrf", hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class TelegramUser:
    user_key: str
    display_name: str
    language_code: str | None


def verify_init_data(init_data: str, bot_token: str, now: datetime,
                     max_age: timedelta = INIT_DATA_MAX_AGE) -> TelegramUser | None:  # fmt: skip
    """The Telegram user a Mini App's `initData` speaks for, when Telegram signed it for this bot
    and it is fresh; None otherwise (tampered, stale, from the future, malformed)."""
    if not init_data or len(init_data) > MAX_INIT_DATA or not bot_token:
        return None
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # a field given twice: which one was signed?
        return None
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode("utf-8"), hashlib.sha256).digest()
    expected = hmac.new(secret, check.encode("utf-8"), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(
        expected.encode("ascii"), given.encode("utf-8")
    ):  # any text, never a TypeError
        return None
    try:
        signed = int(fields.get("auth_date", ""))
        user = json.loads(fields.get("user", ""))
        user_id = int(user["id"])
    except (ValueError, TypeError, KeyError):
        return None
    age = now.timestamp() - signed
    if age > max_age.total_seconds() or age < -60:  # a minute's clock skew either way
        return None
    name = " ".join(str(user.get(k) or "") for k in ("first_name", "last_name")).strip()
    name = name or str(user.get("username") or user_id)
    code = user.get("language_code")
    return TelegramUser(str(user_id), name[:64], code if isinstance(code, str) else None)


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """`fields` signed as Telegram signs a Mini App's initData (for tests and the load benchmark)."""
    from urllib.parse import urlencode

    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode("utf-8"), hashlib.sha256).digest()
    signed = hmac.new(secret, check.encode("utf-8"), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": signed})


class WebAccess:
    """Issues links and sessions and reads them back; the web adapter sets the cookie."""

    def __init__(self, store: WebAccessStore, clock: Clock, base_url: str, telegram_token: str = "") -> None:
        self.store = store
        self.clock = clock
        self.base_url = base_url.rstrip("/")
        self.telegram_token = telegram_token
        self._sessions: dict[str, tuple[WebGrant, datetime]] = {}  # token hash -> (grant, read at)

    @property
    def secure(self) -> bool:
        """Served over HTTPS: the cookie gets `Secure`."""
        return self.base_url.startswith("https://")

    def app_url(self) -> str:
        return f"{self.base_url}/app/"

    async def issue_link(self, chat: ChatRef, user: UserRef) -> str:
        """A one-time sign-in link for `user` acting in `chat` (their private chat)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        grant = WebGrant(user.platform, chat.chat_key, user.user_key, user.display_name,
                         self.clock.now() + LINK_TTL, chat.kind)  # fmt: skip
        await self.store.add_web_link(token_hash(token), grant)
        return f"{self.base_url}/app/login#{token}"  # a fragment: never sent to a server or proxy log

    async def redeem_link(self, token: str) -> tuple[str, WebGrant] | None:
        """A new session for the link's person (the link is spent); None for a bad link."""
        if not token or len(token) > 128:
            return None
        grant = await self.store.take_web_link(token_hash(token), self.clock.now())
        if grant is None:
            return None
        return await self._session(grant)

    async def sign_in_telegram(self, init_data: str) -> tuple[str, WebGrant] | None:
        """A new session for the Telegram user of a valid, fresh initData, acting in their
        private chat with the bot."""
        user = verify_init_data(init_data, self.telegram_token, self.clock.now())
        if user is None:
            return None
        grant = WebGrant(Platform.TELEGRAM, user.user_key, user.user_key, user.display_name,
                         self.clock.now(), ChatKind.PRIVATE)  # fmt: skip
        return await self._session(grant)

    async def _session(self, grant: WebGrant) -> tuple[str, WebGrant]:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        session = WebGrant(grant.platform, grant.chat_key, grant.user_key, grant.display_name,
                           self.clock.now() + SESSION_TTL, grant.chat_kind)  # fmt: skip
        await self.store.add_web_session(token_hash(token), session)
        return token, session

    async def session(self, token: str) -> WebGrant | None:
        if not token or len(token) > 128:
            return None
        key, now = token_hash(token), self.clock.now()
        cached = self._sessions.get(key)
        if cached is not None and now - cached[1] < SESSION_CACHE and now < cached[0].expires_at:
            return cached[0]
        grant = await self.store.web_session(key, now)
        if grant is None:
            self._sessions.pop(key, None)
            return None
        if len(self._sessions) >= MAX_CACHED:
            self._sessions.pop(next(iter(self._sessions)))
        self._sessions[key] = (grant, now)
        return grant

    async def sign_out(self, token: str) -> None:
        self._sessions.pop(token_hash(token), None)
        await self.store.end_web_session(token_hash(token))
