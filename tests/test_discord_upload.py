"""Uploading a bank on a Discord server, end to end: an admin runs `/bank import` with the file in
its attachment option; the real discord.py receives it in the interaction's
`resolved.attachments` and fetches it from the fake CDN, the bot replies with what it read,
`/bank confirm` makes it the server's bank and the next /quiz asks from it. A broken file, a
non-admin and a file over the limit are refused and change nothing; the bank is still there after
a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.locales.i18n import t
from tests.fakes.discord_models import FakeMember
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)

UPLOADS = Path(__file__).parent / "banks" / "upload"
GOOD = (UPLOADS / "physics.csv").read_bytes()
BROKEN = (UPLOADS / "broken.gift").read_bytes()


async def upload(h: Harness, member: FakeMember, filename: str, data: bytes) -> str:
    file = h.server.attachment(filename, data, "text/csv")
    reply = await h.command(member, "bank", {"file": file}, sub="import")
    assert reply is not None and reply.flags & EPHEMERAL  # only the uploader sees the summary
    return reply.content


async def bank(h: Harness, sub: str, options: dict[str, str] | None = None) -> str:
    reply = await h.command(h.world.admin, "bank", options, sub=sub)
    assert reply is not None
    return embed_text(reply)


async def test_the_import_command_takes_an_attachment_option(harness: Harness) -> None:
    h = harness
    await h.start()
    synced = h.server.find_command(h.world.guild.id, "bank")
    assert synced is not None
    imports = next(o for o in synced["options"] if o["name"] == "import")
    [file] = imports["options"]
    assert (file["name"], file["type"], file.get("required", False)) == ("file", 11, False)
    assert file["name_localizations"]["zh-CN"] == t("zh-CN", "cmd.opt.file.name")


async def test_an_admin_uploads_a_bank_that_serves_the_next_quiz(harness: Harness) -> None:
    h = harness
    await h.start()
    server, alice, bob = h.server, h.world.admin, h.world.student
    before = await bank(h, "list")

    refused = await upload(h, alice, "broken.gift", BROKEN)
    assert refused.startswith("broken.gift was not imported, and nothing changed. The problems:")
    assert "[gift]" in refused and "3:" in refused  # the importer's own line, with its place
    assert await bank(h, "list") == before
    assert "No imported bank is waiting here" in await bank(h, "confirm")

    read = await upload(h, alice, "physics.csv", GOOD)
    assert "Read physics.csv as csv: 2 questions for the bank “physics”." in read
    assert "/bank confirm within 15 minutes" in read
    assert server.cdn_downloads and server.cdn_downloads[-1].endswith("/physics.csv")
    assert await bank(h, "list") == before  # nothing changes before the confirmation

    confirmed = await h.command(alice, "bank", sub="confirm")
    assert confirmed is not None and not confirmed.flags & EPHEMERAL  # the channel hears of it
    assert "“physics” (2 questions, version" in confirmed.content and "/bank use physics" in confirmed.content
    listed = await bank(h, "list")
    assert "physics — physics (2 questions)" in listed and listed.startswith("Bank: physics")

    question = await h.command(bob, "quiz")
    assert question is not None
    shown = embed_text(question)
    assert "Which unit measures force?" in shown or "Light travels faster" in shown

    await h.stop()  # kept in the database, loaded at start-up
    await h.start()
    assert "physics — physics (2 questions)" in await bank(h, "list")
    assert (await bank(h, "use", {"bank": "sample"})).startswith("Bank: Sample bank")
    assert (await bank(h, "use", {"bank": "physics"})).startswith("Bank: physics")


async def test_non_admins_and_files_over_the_limit_are_refused_unread(harness: Harness) -> None:
    h = harness
    await h.start(upload_max_mb=0.001)  # about 1 KB
    server, alice, bob = h.server, h.world.admin, h.world.student
    with pytest.raises(PermissionError):  # Discord does not even offer /bank import to bob
        await server.slash_command(h.general, bob, "bank", {"file": server.attachment("p.csv", GOOD)},
                                   subcommand="import")  # fmt: skip
    # A server may grant /bank to everyone; the application still refuses a member.
    server.find_command(h.world.guild.id, "bank")["default_member_permissions"] = None
    assert await upload(h, bob, "physics.csv", GOOD) == t("en", "error.not_admin")

    # A file the CDN no longer has (its signed URL expired): told, nothing changes.
    gone = server.attachment("physics.csv", GOOD)
    server.cdn.clear()
    reply = await h.command(alice, "bank", {"file": gone}, sub="import")
    assert reply is not None and reply.content == t("en", "upload.unreadable", filename="physics.csv",
                                                    detail="The download failed (HTTP 404)")  # fmt: skip

    big = GOOD + b"single,filler,a,b,c,d,A,,\n" * 100
    too_big = await upload(h, alice, "big.csv", big)
    assert too_big.startswith("big.csv is 0.0027 MB, over the 0.001 MB limit")
    assert server.cdn_downloads == []  # neither file was fetched
    assert "physics" not in await bank(h, "list")
    assert "No imported bank is waiting here" in await bank(h, "confirm")
