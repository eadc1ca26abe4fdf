"""Banks uploaded in chats, on either backend (the `UploadedBankStore` port): one row per bank,
replaced by an edited re-upload."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.records import StoredBank

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


def _row(bank: StoredBank) -> tuple[Any, ...]:
    return (bank.id, bank.platform, bank.owner_key, bank.name, bank.title, bank.version, bank.questions,
            bank.data, to_db(bank.uploaded_at), bank.uploaded_by, bank.uploaded_in,
            bank.uploader_key)  # fmt: skip


def _bank(row: Sequence[Any]) -> StoredBank:
    at = from_db(row[8])
    assert at is not None
    return StoredBank(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], at, row[9],
                      uploaded_in=row[10], uploader_key=row[11])  # fmt: skip


class SqlBankStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def save_bank(self, bank: StoredBank) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(_UPSERT, *_row(bank))

    async def stored_banks(self) -> list[StoredBank]:
        return [_bank(r) for r in await self.db.all(_SELECT)]
