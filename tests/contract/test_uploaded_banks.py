"""Banks uploaded in chats, on both backends: saved, replaced by a re-upload under the same id,
read back in id order."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.records import StoredBank

AT = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)


def stored(bank_id: str, version: str, questions: int, owner: str = "chat:-1001") -> StoredBank:
    return StoredBank(bank_id, "telegram", owner, bank_id.rsplit("-", 1)[-1], "Physics", version,
                      questions, '{"format":2}', AT, None)  # fmt: skip


async def test_uploaded_banks_are_kept_and_a_reupload_replaces_its_row(storage) -> None:
    banks = storage.banks
    assert await banks.stored_banks() == []
    await banks.save_bank(stored("up-1-physics", "v1", 2))
    await banks.save_bank(stored("up-0-maths", "m1", 5, owner="guild:42"))
    await banks.save_bank(stored("up-1-physics", "v2", 3))
    assert await banks.stored_banks() == [
        stored("up-0-maths", "m1", 5, owner="guild:42"),
        stored("up-1-physics", "v2", 3),
    ]


async def test_an_uploaded_bank_keeps_its_uploading_chat_and_uploader(storage) -> None:
    """Who looks after an uploaded bank: the chat it came from and the person who uploaded it."""
    banks = storage.banks
    bank = replace(stored("up-1-physics", "v1", 2), uploaded_in="-1001", uploader_key="10")
    await banks.save_bank(bank)
    assert await banks.stored_banks() == [bank]
    again = replace(bank, version="v2", uploaded_in="-1001", uploader_key="11")  # another admin re-uploads
    await banks.save_bank(again)
    assert await banks.stored_banks() == [again]
