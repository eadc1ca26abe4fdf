"""The fake Discord's websocket gateway: HELLO, IDENTIFY, heartbeats, READY and GUILD_CREATE,
dispatches with sequence numbers, RESUME with replay, member chunks, and transport compression.

Sharding as on Discord: a session identified with `shard: [id, count]` gets the events of the
guilds with (guild_id >> 22) % count == id, and only shard 0 gets those of no guild (DMs)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from tests.fakes.discord_server import FakeDiscord

try:  # discord.py asks for zstd-stream when one of these zstd modules exists, else zlib-stream.
    import zstandard as _zstandard  # type: ignore[import-not-found]
except ImportError:
    _zstandard = None
try:
    from compression import zstd as _stdlib_zstd  # type: ignore[import-not-found]  # Python 3.14+
except ImportError:
    _stdlib_zstd = None

GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_PRESENCES = 1 << 8
GUILD_MESSAGES = 1 << 9
GUILD_MESSAGE_REACTIONS = 1 << 10
DIRECT_MESSAGES = 1 << 12
DIRECT_MESSAGE_REACTIONS = 1 << 13
MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT

# Close codes Discord uses (https://discord.com/developers/docs/topics/opcodes-and-status-codes)
UNKNOWN_OPCODE, DECODE_ERROR, NOT_AUTHENTICATED, AUTHENTICATION_FAILED = 4001, 4002, 4003, 4004
ALREADY_AUTHENTICATED, INVALID_SHARD, INVALID_API_VERSION = 4005, 4010, 4012
INVALID_INTENTS, DISALLOWED_INTENTS = 4013, 4014


class Connection:
    """One websocket; compresses outgoing frames the way the client asked in `?compress=`."""

    def __init__(self, ws: web.WebSocketResponse, path: str, compression: str | None) -> None:
        self.ws, self.path, self.compression = ws, path, compression
        self.session: GatewaySession | None = None
        self.server_closed = False  # closed by the fake, not by the client
        self._lock = asyncio.Lock()
        self._compress = _stream_compressor(compression)

    async def send(self, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload, separators=(",", ":")).encode()
        # The compression context is shared by every frame, so compress and send under one lock.
        async with self._lock:
            if self.ws.closed:
                return
            with contextlib.suppress(ConnectionError, RuntimeError):
                if self._compress is not None:
                    await self.ws.send_bytes(self._compress(raw))
                else:
                    await self.ws.send_str(raw.decode())

    async def close(self, code: int, reason: str = "") -> None:
        self.server_closed = True
        await self.ws.close(code=code, message=reason.encode())


def _stream_compressor(kind: str | None) -> Callable[[bytes], bytes] | None:
    """One compression context per connection, flushed after every message as Discord does.
    None (plain text frames, which discord.py also accepts) for no or unavailable compression."""
    if kind == "zlib-stream":
        zlib_ctx = zlib.compressobj()
        return lambda raw: zlib_ctx.compress(raw) + zlib_ctx.flush(zlib.Z_SYNC_FLUSH)
    if kind == "zstd-stream" and _zstandard is not None:
        zstd_ctx = _zstandard.ZstdCompressor().compressobj()
        return lambda raw: zstd_ctx.compress(raw) + zstd_ctx.flush(_zstandard.COMPRESSOBJ_FLUSH_BLOCK)
    if kind == "zstd-stream" and _stdlib_zstd is not None:
        std_ctx = _stdlib_zstd.ZstdCompressor()
        return lambda raw: std_ctx.compress(raw, mode=_stdlib_zstd.ZstdCompressor.FLUSH_BLOCK)
    return None


@dataclass
class GatewaySession:
    id: str
    intents: int
    identify: dict[str, Any]
    seq: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    conn: Connection | None = None
    ready: bool = False
    invalid: bool = False

    @property
    def shard(self) -> tuple[int, int]:
        """(shard id, shard count); an IDENTIFY without `shard` is shard 0 of 1."""
        given = self.identify.get("shard") or [0, 1]
        return int(given[0]), int(given[1])

    def owns(self, guild_id: int | str | None) -> bool:
        """Whether this session gets the events of `guild_id` (None: a DM, only shard 0's)."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (int(guild_id) >> 22) % count == shard_id


class Gateway:
    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.sessions: dict[str, GatewaySession] = {}
        self.connections: list[Connection] = []  # every connection ever made, in order
        self.heartbeats = 0
        self.resumes = 0
        self.presence_updates: list[dict[str, Any]] = []

    @property
    def live_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if not s.invalid]

    @property
    def intents(self) -> int | None:
        """Intents of the newest live session (what the bot identified with)."""
        live = self.live_sessions
        return live[-1].intents if live else None

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = Connection(ws, request.path, request.query.get("compress"))
        self.connections.append(conn)
        try:
            if request.query.get("encoding", "json") != "json":
                await conn.close(DECODE_ERROR, "Only JSON encoding is supported by the fake")
                return ws
            if request.query.get("v", "10") not in ("9", "10"):
                await conn.close(INVALID_API_VERSION, "Invalid API version")
                return ws
            interval_ms = int(self.server.heartbeat_interval * 1000)
            await conn.send({"op": 10, "d": {"heartbeat_interval": interval_ms}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    await conn.close(DECODE_ERROR, "Error while decoding payload.")
                    break
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    await conn.close(DECODE_ERROR, "Error while decoding payload.")
                    break
                await self._on_op(conn, data)
        finally:
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                # A client closing with 1000/1001 ends its session, as on Discord.
                if ws.close_code in (1000, 1001) and not conn.server_closed:
                    session.invalid = True
            self.server.notify()
        return ws

    async def _on_op(self, conn: Connection, data: dict[str, Any]) -> None:
        op, d = data.get("op"), data.get("d")
        if op == 1:
            self.heartbeats += 1
            await conn.send({"op": 11})
            self.server.notify()
        elif op == 2:
            await self._identify(conn, d or {})
        elif op == 6:
            await self._resume(conn, d or {})
        elif conn.session is None:
            await conn.close(NOT_AUTHENTICATED, "Not authenticated.")
        elif op == 3:
            self.presence_updates.append(d)
        elif op == 8:
            await self._request_members(conn, d or {})
        elif op != 4:  # voice state updates are accepted and ignored
            await conn.close(UNKNOWN_OPCODE, "Unknown opcode.")

    def _token_ok(self, token: Any) -> bool:
        return token in (self.server.token, f"Bot {self.server.token}")

    async def _identify(self, conn: Connection, d: dict[str, Any]) -> None:
        if conn.session is not None:
            return await conn.close(ALREADY_AUTHENTICATED, "Already authenticated.")
        if not self._token_ok(d.get("token")):
            return await conn.close(AUTHENTICATION_FAILED, "Authentication failed.")
        intents = d.get("intents")
        if not isinstance(intents, int):
            return await conn.close(INVALID_INTENTS, "Invalid intent(s).")
        if intents & PRIVILEGED_INTENTS & ~self.server.allowed_privileged_intents:
            return await conn.close(DISALLOWED_INTENTS, "Disallowed intent(s).")
        shard = d.get("shard")
        valid_shard = isinstance(shard, list) and len(shard) == 2 and 0 <= shard[0] < shard[1]
        if shard is not None and not valid_shard:
            return await conn.close(INVALID_SHARD, "Invalid shard.")
        session = GatewaySession(uuid.uuid4().hex, intents, d)
        self.sessions[session.id] = session
        session.conn, conn.session = conn, session
        await self._send_dispatch(session, "READY", self.server.ready_payload(session))
        if intents & GUILDS:
            for guild in self.server.guilds.values():
                if not session.owns(guild.id):
                    continue
                members = list(guild.members.values()) if intents & GUILD_PRESENCES else [
                    m for m in guild.members.values() if m.id == self.server.bot.id]
                await self._send_dispatch(session, "GUILD_CREATE",
                                          guild.payload(members=members, joined_at=self.server.joined_at))
        session.ready = True
        self.server.notify()

    async def _resume(self, conn: Connection, d: dict[str, Any]) -> None:
        session = self.sessions.get(d.get("session_id", ""))
        if session is None or session.invalid or not self._token_ok(d.get("token")):
            await conn.send({"op": 9, "d": False})
            return
        old = session.conn
        session.conn, conn.session = conn, session
        if old is not None and old is not conn:
            await old.close(4000, "Session resumed elsewhere")
        last = d.get("seq") or 0
        for payload in session.events:
            if payload["s"] > last:
                await conn.send(payload)
        await self._send_dispatch(session, "RESUMED", {})
        self.resumes += 1
        self.server.notify()

    async def _request_members(self, conn: Connection, d: dict[str, Any]) -> None:
        session = conn.session
        guild = self.server.guilds.get(int(d.get("guild_id", 0)))
        if guild is None or session is None:
            return
        wanted = {int(u) for u in d.get("user_ids") or []}
        if wanted:
            members = [m for m in guild.members.values() if m.id in wanted]
        elif session.intents & GUILD_MEMBERS:
            query = (d.get("query") or "").lower()
            members = [m for m in guild.members.values() if m.user.username.lower().startswith(query)]
            if d.get("limit"):
                members = members[: d["limit"]]
        else:
            members = []
        chunk = {
            "guild_id": str(guild.id), "members": [m.payload() for m in members], "chunk_index": 0,
            "chunk_count": 1, "not_found": [str(u) for u in wanted - {m.id for m in members}],
        }
        if d.get("nonce") is not None:
            chunk["nonce"] = d["nonce"]
        if d.get("presences"):
            chunk["presences"] = []
        await self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send_dispatch(self, session: GatewaySession, event: str, data: Any) -> None:
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.events.append(payload)
        if session.conn is not None:
            await session.conn.send(payload)

    async def dispatch(self, event: str, data: Any, intent: int | None = None) -> int:
        """Send a DISPATCH to every live session that has `intent` (None: always sent) and whose
        shard owns the event's guild (`data["guild_id"]`; none: shard 0, as a DM).
        Events for a disconnected session are kept and replayed on RESUME. Returns how many got it."""
        guild_id = data.get("guild_id") if isinstance(data, dict) else None
        sent = 0
        for session in self.live_sessions:
            if (intent is None or session.intents & intent) and session.owns(guild_id):
                await self._send_dispatch(session, event, data)
                sent += 1
        self.server.notify()
        return sent

    async def disconnect(self, code: int = 4000, *, invalidate: bool = False) -> None:
        """Drop the live connections as a network failure would; the sessions stay resumable."""
        for session in self.live_sessions:
            if session.conn is not None:
                session.invalid = invalidate
                await session.conn.close(code, "Fake Discord closed the connection")

    async def send_op(self, op: int, d: Any = None) -> None:
        """Raw opcode to live connections, e.g. 7 RECONNECT or 9 INVALID_SESSION."""
        for session in self.live_sessions:
            if session.conn is not None:
                await session.conn.send({"op": op, "d": d})

    async def close(self) -> None:
        for conn in self.connections:
            if not conn.ws.closed:
                await conn.close(1001, "Fake Discord is shutting down")
