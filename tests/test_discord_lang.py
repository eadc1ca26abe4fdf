"""/lang on Discord is server-wide: every channel of the server, known or new, speaks the chosen
language, other servers keep theirs, only admins may change it, and it survives a restart. A new
server starts in its preferred locale; a reply only the user sees is in their client's language
when the catalog has it (these tests use a client in French, which it has not, to see the
channel's language)."""

from __future__ import annotations

from bot.locales.i18n import t
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
STREAK_TW = t("zh-TW", "streak.body", count=0, best=0)
FRENCH = "fr"  # a client language the catalog lacks: replies follow the channel


async def test_lang_sets_the_language_of_every_channel_of_the_server_and_of_later_ones(harness: Harness):
    h = harness
    alice, bob = h.world.admin, h.world.student
    later = h.world.guild.add_text_channel("later")  # a channel the bot has not heard from yet
    other = h.server.add_guild("Elsewhere", bot_permissions=Perm.MANAGE_MESSAGES)
    stranger = h.server.add_member(other, "erin")
    lobby = other.add_text_channel("lobby")
    await h.start()  # the config says English
    assert (await h.command(bob, "streak", locale=FRENCH)).content == STREAK_EN
    assert (await h.command(alice, "streak", channel=h.world.staff, locale=FRENCH)).content == STREAK_EN
    assert (await h.command(stranger, "streak", channel=lobby, locale=FRENCH)).content == STREAK_EN

    # As if the server granted /lang to everyone (Discord hides it from bob by default): the bot
    # still checks Manage Server itself.
    h.server.find_command(h.world.guild.id, "lang")["default_member_permissions"] = None
    refused = await h.command(bob, "lang", {"language": "zh-CN"})
    assert refused.flags & EPHEMERAL and refused.content == t("en", "error.not_admin")
    assert (await h.command(bob, "streak", locale=FRENCH)).content == STREAK_EN

    reply = await h.command(alice, "lang", {"language": "zh-CN"}, channel=h.world.staff)
    assert not reply.flags & EPHEMERAL and reply.content == t("zh-CN", "lang.set_guild")
    assert (await h.command(bob, "streak", locale=FRENCH)).content == STREAK_ZH  # a channel already known
    assert (await h.command(bob, "streak", channel=later, locale=FRENCH)).content == STREAK_ZH  # a new one
    assert (await h.command(stranger, "streak", channel=lobby, locale=FRENCH)).content == STREAK_EN  # other

    await h.stop()
    newest = h.world.guild.add_text_channel("newest")
    await h.start()
    assert (await h.command(bob, "streak", channel=newest, locale=FRENCH)).content == STREAK_ZH  # stored
    reply = await h.command(alice, "lang", {"language": "en"})
    assert reply.content == t("en", "lang.set_guild")
    assert (await h.command(alice, "streak", channel=h.world.staff, locale=FRENCH)).content == STREAK_EN


async def test_a_new_server_speaks_its_preferred_locale_and_users_get_their_own(harness: Harness):
    h = harness
    taiwan = h.server.add_guild("Taipei study", bot_permissions=Perm.MANAGE_MESSAGES)
    taiwan.preferred_locale = "zh-TW"
    reader = h.server.add_member(taiwan, "mei")
    room = taiwan.add_text_channel("room")
    await h.start()  # the config says English
    assert (await h.command(reader, "streak", channel=room, locale=FRENCH)).content == STREAK_TW
    # Only the user sees these: in their client's language, whatever the channel speaks.
    assert (await h.command(reader, "streak", channel=room, locale="en-US")).content == STREAK_EN
    assert (await h.command(h.world.student, "streak", locale="zh-CN")).content == STREAK_ZH
    assert (await h.command(h.world.student, "streak", locale="zh-TW")).content == STREAK_TW
    assert (await h.command(h.world.student, "streak", locale=FRENCH)).content == STREAK_EN
    refused = await h.command(h.world.admin, "bank", {"bank": "nosuch"}, sub="use", locale="zh-TW")
    assert refused.flags & EPHEMERAL and refused.content.startswith("未知題庫：nosuch。")
    # A public reply speaks the channel's language; /lang offers 繁體中文 too.
    reply = await h.command(h.world.admin, "lang", {"language": "zh-TW"}, locale="en-US")
    assert not reply.flags & EPHEMERAL
    assert reply.content == t("zh-TW", "lang.set_guild") == "本伺服器的語言已設為繁體中文。"
    assert (await h.command(h.world.student, "streak", locale=FRENCH)).content == STREAK_TW
    # The server's locale counts only for a channel new to the bot.
    taiwan.preferred_locale = "en-US"
    assert (await h.command(reader, "streak", channel=room, locale=FRENCH)).content == STREAK_TW
    fresh = taiwan.add_text_channel("fresh")
    assert (await h.command(reader, "streak", channel=fresh, locale=FRENCH)).content == STREAK_EN
