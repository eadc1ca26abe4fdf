"""Banks uploaded in chats, on both backends: saved, replaced by a re-upload under the same id,
read back in id order."""

from __future__ import annotations

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
