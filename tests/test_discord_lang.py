"""/lang on Discord is server-wide: every channel of the server, known or new, speaks the chosen
language, other servers keep theirs, only admins may change it, and it survives a restart."""

from __future__ import annotations

from bot.i18n import t
from tests.fakes.discord_rules import Perm
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)

STREAK_ZH, STREAK_EN = t("zh-CN", "streak.body", count=0, best=0), t("en", "streak.body", count=0, best=0)


async def test_lang_sets_the_language_of_every_channel_of_the_server_and_of_later_ones(harness: Harness):
    h = harness
    alice, bob = h.world.admin, h.world.student
    later = h.world.guild.add_text_channel("later")  # a channel the bot has not heard from yet
    other = h.server.add_guild("Elsewhere", bot_permissions=Perm.MANAGE_MESSAGES)
    stranger = h.server.add_member(other, "erin")
    lobby = other.add_text_channel("lobby")
    await h.start()  # the config says English
    assert (await h.command(bob, "streak")).content == STREAK_EN
    assert (await h.command(alice, "streak", channel=h.world.staff)).content == STREAK_EN
    assert (await h.command(stranger, "streak", channel=lobby)).content == STREAK_EN

    # As if the server granted /lang to everyone (Discord hides it from bob by default): the bot
    # still checks Manage Server itself.
    h.server.find_command(h.world.guild.id, "lang")["default_member_permissions"] = None
    refused = await h.command(bob, "lang", {"language": "zh-CN"})
    assert refused.flags & EPHEMERAL and refused.content == t("en", "error.not_admin")
    assert (await h.command(bob, "streak")).content == STREAK_EN

    reply = await h.command(alice, "lang", {"language": "zh-CN"}, channel=h.world.staff)
    assert not reply.flags & EPHEMERAL and reply.content == t("zh-CN", "lang.set_guild")
    assert (await h.command(bob, "streak")).content == STREAK_ZH  # a channel already known
    assert (await h.command(bob, "streak", channel=later)).content == STREAK_ZH  # a new one
    assert (await h.command(stranger, "streak", channel=lobby)).content == STREAK_EN  # another server

    await h.stop()
    newest = h.world.guild.add_text_channel("newest")
    await h.start()
    assert (await h.command(bob, "streak", channel=newest)).content == STREAK_ZH  # kept in the database
    reply = await h.command(alice, "lang", {"language": "en"})
    assert reply.content == t("en", "lang.set_guild")
    assert (await h.command(alice, "streak", channel=h.world.staff)).content == STREAK_EN
