"""Banks uploaded in chats, on either backend (the `UploadedBankStore` port): one row per bank,
replaced by an edited re-upload."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.records import StoredBank

_COLUMNS = (
    "id, platform, owner_key, name, title, version, questions, data, uploaded_at, uploaded_by, uploaded_in, "
    "uploader_key"
)
_UPSERT = (
    f"INSERT INTO uploaded_banks ({_COLUMNS}) VALUES ({', '.join('?' * 12)}) ON CONFLICT (id) DO UPDATE SET "
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
    f"INSERT INTO pending_uploads (platform, chat_key, expires_at, {_PENDING_COLUMNS}) "
    f"VALUES ({', '.join('?' * 15)}) "
    "ON CONFLICT (platform, chat_key) DO UPDATE SET expires_at = excluded.expires_at, "
    + ", ".join(f"{c} = excluded.{c}" for c in _PENDING_COLUMNS.split(", "))
)
_TAKE = (
    "DELETE FROM pending_uploads WHERE platform = ? AND chat_key = ? "
    f"RETURNING expires_at, {_PENDING_COLUMNS}"
)
_FORGET = "DELETE FROM pending_uploads WHERE expires_at <= ?"


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


class SqlBankStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def save_bank(self, bank: StoredBank) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(_UPSERT, *_row(bank))

    async def stored_banks(self) -> list[StoredBank]:
        return [_bank(r) for r in await self.db.all(_SELECT)]

    async def hold_upload(self, chat: tuple[str, str], bank: StoredBank, expires: datetime) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(_FORGET, to_db(bank.uploaded_at))
            await tx.execute(_HOLD, *chat, to_db(expires), *_row(bank))

    async def take_upload(self, chat: tuple[str, str], now: datetime) -> StoredBank | None:
        async with self.db.transaction() as tx:
            row = await tx.one(_TAKE, *chat)
        return _waiting(row, now)
