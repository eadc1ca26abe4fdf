"""Uploading a bank in a Telegram group, end to end: an admin sends a document captioned
`/bank import`; the real python-telegram-bot fetches it from the fake server (getFile, then
/file/bot<token>/<file_path>), the bot replies with what it read, `/bank confirm` makes it the
group's bank and the next /quiz asks from it. A broken file, a non-admin and a file over the
limit are refused and change nothing; the bank is still there after a restart."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import BOB, BOSS, GROUP, TelegramHarness, tg_fixture  # noqa: F401

UPLOADS = Path(__file__).parent / "banks" / "upload"
GOOD = (UPLOADS / "physics.csv").read_bytes()
BROKEN = (UPLOADS / "broken.gift").read_bytes()


async def send(tg: TelegramHarness, user, filename: str, data: bytes, caption: str = "/bank import") -> str:
    tg.server.user_document(GROUP, user, filename, data, caption)
    reply = await tg.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id)
    return reply["text"]


async def bank_list(tg: TelegramHarness) -> str:
    return (await tg.say(GROUP, BOSS, "/bank list"))["text"]


async def test_an_admin_uploads_a_bank_that_serves_the_next_quiz(tg: TelegramHarness) -> None:
    tg.server.set_member_status(GROUP.id, BOSS, "administrator")
    await tg.start()
    before = await bank_list(tg)

    refused = await send(tg, BOSS, "broken.gift", BROKEN)
    assert refused.startswith("broken.gift was not imported, and nothing changed. The problems:")
    assert "[gift]" in refused and "3:" in refused  # the importer's own line, with its place
    assert await bank_list(tg) == before
    assert "No imported bank is waiting here" in (await tg.say(GROUP, BOSS, "/bank confirm"))["text"]

    read = await send(tg, BOSS, "physics.csv", GOOD)
    assert "Read physics.csv as csv: 2 questions for the bank “physics”." in read
    assert "/bank confirm within 15 minutes" in read
    assert tg.server.downloads  # fetched the way the Bot API serves files
    assert await bank_list(tg) == before  # nothing changes before the confirmation

    confirmed = (await tg.say(GROUP, BOSS, "/bank confirm"))["text"]
    assert "“physics” (2 questions, version" in confirmed and "/bank use physics" in confirmed
    listed = await bank_list(tg)
    assert "physics — physics (2 questions)" in listed
    assert listed.startswith("Bank: physics")

    tg.server.user_message(GROUP, BOB, "/quiz")
    question = await tg.question(GROUP.id)
    assert "Which unit measures force?" in question.text or "Light travels faster" in question.text

    await tg.restart()  # kept in the database, loaded at start-up
    assert "physics — physics (2 questions)" in await bank_list(tg)
    assert (await tg.say(GROUP, BOSS, "/bank use sample"))["text"].startswith("Bank: Sample bank")
    assert (await tg.say(GROUP, BOSS, "/bank use physics"))["text"].startswith("Bank: physics")


async def test_non_admins_and_files_over_the_limit_are_refused_unread(tg: TelegramHarness) -> None:
    tg.server.set_member_status(GROUP.id, BOSS, "administrator")
    await tg.start(upload_max_mb=0.001)  # about 1 KB
    assert await send(tg, BOB, "physics.csv", GOOD) == "Only admins can use this command."
    big = GOOD + b"single,filler,a,b,c,d,A,,\n" * 100
    too_big = await send(tg, BOSS, "big.csv", big)
    assert too_big.startswith("big.csv is 0.0027 MB, over the 0.001 MB limit")
    assert tg.server.downloads == []
    assert "physics" not in await bank_list(tg)
