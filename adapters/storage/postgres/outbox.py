"""The outbox on PostgreSQL: posts owed to chats, written in the caller's unit of work."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime

from adapters.storage.outbox_codec import encode
from adapters.storage.outbox_store import COLUMNS, UNHELD, post_from_row
from adapters.storage.postgres.store import PostgresStore, affected
from adapters.storage.sql import from_db, to_db
from bot.ports import PendingPost, PostView


class PostgresOutboxStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        return self.store.unit_of_work()

    async def add_post(self, chat_id: int, view: PostView, round_id: int | None, now: datetime) -> int:
        what, payload = encode(view)
        async with self.store.transaction() as db:
            post_id = await db.fetchval(
                "INSERT INTO outbox (chat_id, what, payload, round_id, created_at) "
                "VALUES ($1, $2, $3, $4, $5) RETURNING id",
                chat_id, what, payload, round_id, to_db(now),
            )  # fmt: skip
        return int(post_id)

    async def next_post(self, chat_id: int) -> PendingPost | None:
        row = await self.store.one(
            f"SELECT {COLUMNS} FROM outbox WHERE chat_id = $1 ORDER BY id LIMIT 1", chat_id
        )
        return post_from_row(row) if row else None

    async def post_delivered(self, post_id: int) -> None:
        async with self.store.transaction() as db:
            await db.execute("DELETE FROM outbox WHERE id = $1", post_id)

    async def post_failed(self, post_id: int, error: str) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = $1 WHERE id = $2",
                error[:500],
                post_id,
            )

    async def drop_posts(self, chat_id: int) -> int:
        async with self.store.transaction() as db:
            return affected(await db.execute("DELETE FROM outbox WHERE chat_id = $1", chat_id))

    async def drop_questions(self, round_id: int) -> int:
        async with self.store.transaction() as db:
            return affected(
                await db.execute("DELETE FROM outbox WHERE round_id = $1 AND what = 'question'", round_id)
            )

    async def question_owed(self, round_id: int) -> bool:
        row = await self.store.one(
            "SELECT 1 FROM outbox WHERE round_id = $1 AND what = 'question' LIMIT 1",
            round_id,
        )
        return row is not None

    async def pending_posts(self) -> list[PendingPost]:
        rows = await self.store.all(f"SELECT {COLUMNS} FROM outbox ORDER BY chat_id, id")
        return [post_from_row(r) for r in rows]

    async def pending_chats(self) -> list[int]:
        return [
            int(r[0]) for r in await self.store.all("SELECT DISTINCT chat_id FROM outbox ORDER BY chat_id")
        ]

    async def oldest_pending(self) -> datetime | None:
        row = await self.store.one("SELECT min(created_at) FROM outbox")
        return from_db(row[0]) if row else None

    # ------------------------------------------------------------ delivery leases

    async def hold_chat(self, chat_id: int, owner: str, now: datetime, until: datetime) -> bool:
        async with self.store.transaction() as db:
            held = await db.fetchval(
                "INSERT INTO outbox_leases (chat_id, owner, lease_until) VALUES ($1, $2, $3) "
                "ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner, "
                "lease_until = excluded.lease_until "
                "WHERE outbox_leases.owner = excluded.owner OR outbox_leases.lease_until < $4 "
                "RETURNING chat_id",
                chat_id, owner, to_db(until), to_db(now),
            )  # fmt: skip
        return held is not None

    async def release_chat(self, chat_id: int, owner: str) -> None:
        async with self.store.transaction() as db:
            await db.execute("DELETE FROM outbox_leases WHERE chat_id = $1 AND owner = $2", chat_id, owner)

    async def renew_chats(self, owner: str, until: datetime) -> int:
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE outbox_leases SET lease_until = $1 WHERE owner = $2", to_db(until), owner
            )
        return affected(status)

    async def unheld_chats(self, owner: str, now: datetime, owed_before: datetime, limit: int) -> list[int]:
        rows = await self.store.all(UNHELD, to_db(owed_before), owner, to_db(now), limit)
        return [int(r[0]) for r in rows]

    async def pending_count(self) -> int:
        row = await self.store.one("SELECT count(*) FROM outbox")
        return int(row[0]) if row else 0
