"""Banks uploaded in chats on SQLite and PostgreSQL (the `UploadedBankStore` port): one row per
bank, replaced by an edited re-upload."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from adapters.storage.sql import from_db, to_db
from adapters.storage.sqlite_store import SqliteStore
from bot.records import StoredBank

if TYPE_CHECKING:
    from adapters.storage.postgres.store import PostgresStore

_COLUMNS = (
    "id, platform, owner_key, name, title, version, questions, data, uploaded_at, uploaded_by, uploaded_in, "
    "uploader_key"
)
_UPSERT = (
    f"INSERT INTO uploaded_banks ({_COLUMNS}) VALUES ({{}}) ON CONFLICT (id) DO UPDATE SET "
    "name = excluded.name, title = excluded.title, version = excluded.version, "
    "questions = excluded.questions, data = excluded.data, uploaded_at = excluded.uploaded_at, "
    "uploaded_by = excluded.uploaded_by, uploaded_in = excluded.uploaded_in, "
    "uploader_key = excluded.uploader_key"
)
_SELECT = f"SELECT {_COLUMNS} FROM uploaded_banks ORDER BY id"
# An upload waiting for /bank confirm: the bank's columns (its owner's platform renamed), the
# chat it waits in, and when it expires.
_PENDING_COLUMNS = (
    "bank_id, owner_platform, owner_key, name, title, version, questions, data, uploaded_at, uploaded_by, "
    "uploaded_in, uploader_key"
)
_HOLD = (
    f"INSERT INTO pending_uploads (platform, chat_key, expires_at, {_PENDING_COLUMNS}) VALUES ({{}}) "
    "ON CONFLICT (platform, chat_key) DO UPDATE SET expires_at = excluded.expires_at, "
    + ", ".join(f"{c} = excluded.{c}" for c in _PENDING_COLUMNS.split(", "))
)
_TAKE = (
    "DELETE FROM pending_uploads WHERE platform = {} AND chat_key = {} "
    f"RETURNING expires_at, {_PENDING_COLUMNS}"
)
_FORGET = "DELETE FROM pending_uploads WHERE expires_at <= {}"


def _row(bank: StoredBank) -> tuple[Any, ...]:
    return (bank.id, bank.platform, bank.owner_key, bank.name, bank.title, bank.version, bank.questions,
            bank.data, to_db(bank.uploaded_at), bank.uploaded_by, bank.uploaded_in,
            bank.uploader_key)  # fmt: skip


def _bank(row: Sequence[Any]) -> StoredBank:
    at = from_db(row[8])
    assert at is not None
    return StoredBank(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], at, row[9],
                      uploaded_in=row[10], uploader_key=row[11])  # fmt: skip


def _waiting(row: Sequence[Any] | None, now: datetime) -> StoredBank | None:
    """The upload of a taken row (expires_at, then the bank's columns), unless it expired."""
    if row is None:
        return None
    expires = from_db(row[0])
    return _bank(row[1:]) if expires is not None and expires > now else None


class SqliteBankStore:
    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    async def save_bank(self, bank: StoredBank) -> None:
        async with self.store.transaction() as db:
            await db.execute(_UPSERT.format(", ".join("?" * 12)), _row(bank))

    async def stored_banks(self) -> list[StoredBank]:
        return [_bank(r) for r in await self.store.all(_SELECT)]

    async def hold_upload(self, chat: tuple[str, str], bank: StoredBank, expires: datetime) -> None:
        async with self.store.transaction() as db:
            await db.execute(_FORGET.format("?"), (to_db(bank.uploaded_at),))
            await db.execute(_HOLD.format(", ".join("?" * 15)), (*chat, to_db(expires), *_row(bank)))

    async def take_upload(self, chat: tuple[str, str], now: datetime) -> StoredBank | None:
        async with self.store.transaction() as db:
            async with db.execute(_TAKE.format("?", "?"), chat) as cursor:
                row = await cursor.fetchone()
        return _waiting(row, now)


class PostgresBankStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def save_bank(self, bank: StoredBank) -> None:
        async with self.store.transaction() as conn:
            await conn.execute(_UPSERT.format(", ".join(f"${i}" for i in range(1, 13))), *_row(bank))

    async def stored_banks(self) -> list[StoredBank]:
        return [_bank(r) for r in await self.store.all(_SELECT)]

    async def hold_upload(self, chat: tuple[str, str], bank: StoredBank, expires: datetime) -> None:
        async with self.store.transaction() as conn:
            await conn.execute(_FORGET.format("$1"), to_db(bank.uploaded_at))
            await conn.execute(_HOLD.format(", ".join(f"${i}" for i in range(1, 16))),
                               *chat, to_db(expires), *_row(bank))  # fmt: skip

    async def take_upload(self, chat: tuple[str, str], now: datetime) -> StoredBank | None:
        async with self.store.transaction() as conn:
            row = await conn.fetchrow(_TAKE.format("$1", "$2"), *chat)
        return _waiting(row, now)
