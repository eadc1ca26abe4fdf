"""Banks uploaded in chats, on both backends: saved, replaced by a re-upload under the same id,
read back in id order."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.domain.records import StoredBank

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


async def test_an_upload_waiting_for_confirm_is_taken_once_by_any_process_until_it_expires(storage) -> None:
    """Kept in the database, not in one process's memory: another store on the same database
    (another process, or this one after a restart) takes it, once; an expired one is not."""
    from datetime import timedelta

    from adapters.storage.backends import PostgresStorage, SqliteStorage

    here, there = ("telegram", "-1001"), ("telegram", "-1002")
    banks = storage.banks
    await banks.hold_upload(here, stored("up-1-physics", "v1", 2), AT + timedelta(minutes=15))
    await banks.hold_upload(here, stored("up-1-physics", "v2", 3), AT + timedelta(minutes=15))  # replaced
    await banks.hold_upload(there, stored("up-2-maths", "m1", 4), AT + timedelta(minutes=1))
    if isinstance(storage, SqliteStorage):
        other = await SqliteStorage.open(storage.store.path, synchronous="NORMAL")
    else:
        other = await PostgresStorage.open(storage.store.dsn)
    try:
        soon = AT + timedelta(minutes=14)
        assert await other.banks.take_upload(here, soon) == stored("up-1-physics", "v2", 3)
        assert await banks.take_upload(here, AT + timedelta(minutes=14)) is None  # taken: once
        assert await other.banks.take_upload(there, AT + timedelta(minutes=2)) is None  # expired
        assert await banks.take_upload(("discord", "-1001"), AT) is None  # the key: platform and chat
    finally:
        await other.close()
    assert await banks.stored_banks() == []  # waiting is not saved: only /bank confirm saves it


async def test_an_uploaded_bank_with_pictures_reads_back_with_them(storage) -> None:
    """The pictures ride in the stored bank (base64 in its compiled JSON, bank/uploads.py): a
    bank of a few MB of them is kept and read back byte for byte."""
    import os

    from bank.uploads import UploadCodec
    from bot.domain.questions import Bank, BankImage, Question, QuestionType

    picture = b"\x89PNG\r\n\x1a\n" + os.urandom(2 * 1024 * 1024)  # noise: base64 cannot shrink it
    bank = Bank("up-1-net", "Net", "zh-CN", "net.docx", (
        Question("q1", 1, QuestionType.JUDGE, "图中是卷积网络。", ("true",), images=("q1-1.png",)),
    ), images=(BankImage("q1-1.png", picture),))  # fmt: skip
    codec = UploadCodec()
    row = replace(stored("up-1-net", "v1", 1), data=codec.encode(bank))
    await storage.banks.save_bank(row)
    [back] = await storage.banks.stored_banks()
    assert back == row
    assert codec.decode(back.data).image("q1-1.png") == picture


async def test_an_uploaded_banks_tag_names_come_back_from_the_database(storage) -> None:
    """A bank's `tag_names:` (its tags' display names) are kept with the uploaded bank, so a
    learner of an uploaded bank sees 分布式训练, not distributed-training, after a restart too."""
    from bank.loader import load_bank_text
    from bank.uploads import UploadCodec

    bank = load_bank_text(
        "id: up-1-ai\ntitle: 测试\nlanguage: zh-CN\nsource: s\n"
        "tag_names: {distributed-training: 分布式训练, moe: 混合专家}\n"
        "questions:\n"
        "  - {id: a, number: 1, type: judge, tags: [distributed-training], stem: 对吗, answer: true}\n"
        "  - {id: b, number: 2, type: judge, tags: [moe], stem: 错吗, answer: false}\n"
    )
    codec = UploadCodec()
    row = replace(stored("up-1-ai", "v1", 2), data=codec.encode(bank))
    await storage.banks.save_bank(row)
    (back,) = await storage.banks.stored_banks()
    again = codec.decode(back.data)
    assert again.tag_names == (("distributed-training", "分布式训练"), ("moe", "混合专家"))
    assert again.tag_name("moe") == "混合专家" and again.tag_key("分布式训练") == "distributed-training"
