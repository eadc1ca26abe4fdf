"""The web app's one-time links and sessions (bot/application/web_access.py), by the SHA-256 of their tokens.

A link is taken with one UPDATE … RETURNING that also checks it is unused and unexpired, so two
requests racing for one link (or two processes) get it once between them."""

from __future__ import annotations

from datetime import datetime

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.kinds import ChatKind, Platform
from bot.ports.storage import WebGrant

COLUMNS = "platform, chat_kind, chat_key, user_key, display_name, expires_at"

TAKE_LINK = f"""
UPDATE web_links SET used_at = ?2
WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2
RETURNING {COLUMNS}
"""


def _grant(row) -> WebGrant:
    expires = from_db(row[5])
    assert expires is not None
    return WebGrant(Platform(row[0]), row[2], row[3], row[4], expires, ChatKind(row[1]))


def _values(grant: WebGrant) -> tuple[str, ...]:
    return (str(grant.platform), str(grant.chat_kind), grant.chat_key, grant.user_key, grant.display_name,
            to_db(grant.expires_at))  # fmt: skip


class SqlWebStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_web_link(self, token_hash: str, grant: WebGrant) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(f"INSERT INTO web_links (token_hash, {COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             token_hash, *_values(grant))  # fmt: skip

    async def take_web_link(self, token_hash: str, now: datetime) -> WebGrant | None:
        async with self.db.transaction() as tx:
            row = await tx.one(TAKE_LINK, token_hash, to_db(now))
        return _grant(row) if row is not None else None

    async def add_web_session(self, token_hash: str, grant: WebGrant) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(f"INSERT INTO web_sessions (token_hash, {COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             token_hash, *_values(grant))  # fmt: skip

    async def web_session(self, token_hash: str, now: datetime) -> WebGrant | None:
        row = await self.db.one(f"SELECT {COLUMNS} FROM web_sessions WHERE token_hash = ? AND expires_at > ?",
                                token_hash, to_db(now))  # fmt: skip
        return _grant(row) if row is not None else None

    async def end_web_session(self, token_hash: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM web_sessions WHERE token_hash = ?", token_hash)

    async def forget_web_access(self, before: datetime) -> int:
        async with self.db.transaction() as tx:
            links = await tx.execute("DELETE FROM web_links WHERE expires_at < ?", to_db(before))
            sessions = await tx.execute("DELETE FROM web_sessions WHERE expires_at < ?", to_db(before))
        return links + sessions
