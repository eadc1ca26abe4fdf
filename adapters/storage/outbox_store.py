"""The outbox on either backend: posts owed to chats, written in the caller's unit of work, and
the delivery leases that keep one process at a time posting to a chat."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

from adapters.storage.database import Database
from adapters.storage.outbox_codec import decode, encode
from adapters.storage.sql import from_db, to_db
from bot.ports.storage import PendingPost, PostView

COLUMNS = "id, chat_id, what, payload, round_id, created_at, attempts, last_error"
# Chats owed an old enough post whose lease is missing, run out, or the asker's own.
UNHELD = (
    "SELECT o.chat_id FROM outbox o LEFT JOIN outbox_leases l ON l.chat_id = o.chat_id "
    "WHERE o.created_at < ? AND (l.chat_id IS NULL OR l.owner = ? OR l.lease_until < ?) "
    "GROUP BY o.chat_id ORDER BY min(o.id) LIMIT ?"
)


def post_from_row(row: Sequence[Any]) -> PendingPost:
    created = row[5] if isinstance(row[5], datetime) else from_db(row[5])
    assert created is not None
    return PendingPost(row[0], row[1], decode(row[2], row[3]), row[4], created, row[6], row[7])


class SqlOutboxStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        return self.db.unit_of_work()

    async def add_post(self, chat_id: int, view: PostView, round_id: int | None, now: datetime) -> int:
        what, payload = encode(view)
        async with self.db.transaction() as tx:
            row = await tx.one(
                "INSERT INTO outbox (chat_id, what, payload, round_id, created_at) "
                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                chat_id, what, payload, round_id, to_db(now),
            )  # fmt: skip
        assert row is not None
        return int(row[0])

    async def next_post(self, chat_id: int) -> PendingPost | None:
        row = await self.db.one(
            f"SELECT {COLUMNS} FROM outbox WHERE chat_id = ? ORDER BY id LIMIT 1", chat_id
        )
        return post_from_row(row) if row else None

    async def post_delivered(self, post_id: int) -> None:
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM outbox WHERE id = ?", post_id)

    async def post_failed(self, post_id: int, error: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?", error[:500], post_id
            )

    async def drop_posts(self, chat_id: int) -> int:
        async with self.db.transaction() as tx:
            return await tx.execute("DELETE FROM outbox WHERE chat_id = ?", chat_id)

    async def drop_questions(self, round_id: int) -> int:
        async with self.db.transaction() as tx:
            return await tx.execute("DELETE FROM outbox WHERE round_id = ? AND what = 'question'", round_id)

    async def question_owed(self, round_id: int) -> bool:
        row = await self.db.one(
            "SELECT 1 FROM outbox WHERE round_id = ? AND what = 'question' LIMIT 1", round_id
        )
        return row is not None

    async def pending_posts(self) -> list[PendingPost]:
        rows = await self.db.all(f"SELECT {COLUMNS} FROM outbox ORDER BY chat_id, id")
        return [post_from_row(r) for r in rows]

    async def pending_chats(self) -> list[int]:
        return [int(r[0]) for r in await self.db.all("SELECT DISTINCT chat_id FROM outbox ORDER BY chat_id")]

    async def oldest_pending(self) -> datetime | None:
        row = await self.db.one("SELECT min(created_at) FROM outbox")
        return from_db(row[0]) if row else None

    # ------------------------------------------------------------ delivery leases

    async def hold_chat(self, chat_id: int, owner: str, now: datetime, until: datetime) -> bool:
        async with self.db.transaction() as tx:
            held = await tx.one(
                "INSERT INTO outbox_leases (chat_id, owner, lease_until) VALUES (?, ?, ?) "
                "ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner, "
                "lease_until = excluded.lease_until "
                "WHERE outbox_leases.owner = excluded.owner OR outbox_leases.lease_until < ? "
                "RETURNING chat_id",
                chat_id, owner, to_db(until), to_db(now),
            )  # fmt: skip
        return held is not None

    async def release_chat(self, chat_id: int, owner: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM outbox_leases WHERE chat_id = ? AND owner = ?", chat_id, owner)

    async def renew_chats(self, owner: str, until: datetime) -> int:
        async with self.db.transaction() as tx:
            return await tx.execute(
                "UPDATE outbox_leases SET lease_until = ? WHERE owner = ?", to_db(until), owner
            )

    async def unheld_chats(self, owner: str, now: datetime, owed_before: datetime, limit: int) -> list[int]:
        rows = await self.db.all(UNHELD, to_db(owed_before), owner, to_db(now), limit)
        return [int(r[0]) for r in rows]

    async def pending_count(self) -> int:
        row = await self.db.one("SELECT count(*) FROM outbox")
        return int(row[0]) if row else 0
