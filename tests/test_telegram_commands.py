"""Telegram commands end to end: command menus per scope and language, settings (/lang, /tz,
/bank), admin checks (cached, anonymous admins), /help, unknown commands, long replies, logs."""

from __future__ import annotations

import logging

from adapters.telegram.admin import AdminCheck
from bot.i18n import t
from bot.messages import notice
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    ANN,
    BOB,
    BOSS,
    CAT,
    GROUP,
    GROUP_REF,
    TelegramHarness,
    tg_fixture,  # noqa: F401
)

SCOPES = {"all_private_chats": "start", "all_group_chats": "leaderboard", "all_chat_administrators": "daily"}


async def test_command_menus_per_scope_in_chinese_and_english(tg: TelegramHarness) -> None:
    await tg.start()
    for scope, command in SCOPES.items():
        zh = {c["command"]: c["description"] for c in tg.server.my_commands({"type": scope}, "zh")}
        en = {c["command"]: c["description"] for c in tg.server.my_commands({"type": scope})}
        assert zh.keys() == en.keys() and command in zh
        assert zh["quiz"] == t("zh-CN", "tg.cmd.quiz") and en["quiz"] == t("en", "tg.cmd.quiz")
    admin = tg.server.my_commands({"type": "all_chat_administrators"})
    assert {"daily", "contest", "bank"} <= {c["command"] for c in admin}
    assert "daily" not in {c["command"] for c in tg.server.my_commands({"type": "all_group_chats"})}


async def test_settings_commands_in_a_private_chat(tg: TelegramHarness) -> None:
    app = await tg.start()
    assert (await tg.say(ANN.id, ANN, "/lang zh"))["text"] == t("zh-CN", "lang.set")
    assert (await tg.say(ANN.id, ANN, "/lang klingon"))["text"].startswith("参数有误")
    assert (await tg.say(ANN.id, ANN, "/lang en"))["text"] == t("en", "lang.set")
    help_text = await tg.say(ANN.id, ANN, "/help")
    assert help_text["text"] == t("en", "tg.help_private").replace("<", "&lt;").replace(">", "&gt;")
    assert (await tg.say(ANN.id, ANN, "/frobnicate"))["text"] == t(
        "en", "error.unknown_command", command="/frobnicate"
    )
    assert (await tg.say(ANN.id, ANN, "/review"))["text"] == t("en", "review.none")
    assert (await tg.say(ANN.id, ANN, "/quiz nosuchtag"))["text"] == t(
        "en", "error.no_questions_for", filter="nosuchtag"
    )

    await tg.say(ANN.id, ANN, "/daily 07:30")
    bad_zone = await tg.say(ANN.id, ANN, "/tz Mars/Olympus")
    assert bad_zone["text"].startswith("Bad arguments: unknown timezone")
    berlin = await tg.say(ANN.id, ANN, "/tz Europe/Berlin")
    assert berlin["text"] == t("en", "tg.tz_set", timezone="Europe/Berlin")
    shown = await tg.say(ANN.id, ANN, "/daily")
    assert "every day at 07:30 (Europe/Berlin)" in shown["text"]
    assert (await tg.say(ANN.id, ANN, "/daily off"))["text"] == t("en", "daily.off")

    listing = await tg.say(ANN.id, ANN, "/bank list")
    assert listing["text"] == t("en", "bank.list_row", id="sample", title="Sample bank", count=5)
    used = await tg.say(ANN.id, ANN, "/bank use sample")
    assert used["text"] == t("en", "bank.using", title="Sample bank", count=5)
    refused = await tg.say(ANN.id, ANN, "/bank use nope")
    assert refused["text"] == t("en", "error.unknown_bank", bank="nope", banks="sample")
    chat = await app.store.find_chat("telegram", str(ANN.id))
    assert (chat.settings.language, chat.settings.timezone) == ("en", "Europe/Berlin")


async def test_admin_commands_are_refused_politely_and_admin_status_is_cached(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    not_admin = t("en", "error.not_admin")
    commands = ("/daily set 08:00", "/daily off", "/contest start", "/bank use sample", "/lang zh", "/tz UTC")
    for command in commands:
        assert (await tg.say(GROUP, BOB, command))["text"] == not_admin
    assert len(server.calls("getChatMember")) == 1  # cached for a few minutes
    assert await app.dailies.show(GROUP_REF) is None

    assert (await tg.say(GROUP, BOSS, "/daily show"))["text"] == t("en", "daily.none")
    assert (await tg.say(GROUP, BOSS, "/daily set 25:00"))["text"].startswith("Bad arguments")
    assert (await tg.say(GROUP, BOSS, "/contest status"))["text"] == t("en", "contest.not_running")
    assert (await tg.say(GROUP, BOSS, "/contest stop"))["text"] == t("en", "contest.not_running")
    assert (await tg.say(GROUP, BOSS, "/contest start many"))["text"].startswith("Bad arguments")
    help_text = await tg.say(GROUP, BOB, "/help@studybot_test_bot")
    assert "/contest start" in help_text["text"]
    assert len(server.calls("getChatMember")) == 2

    # An anonymous admin writes as the group itself: no member lookup needed.
    anonymous = server.user_message(GROUP, BOSS, "/daily show")
    anonymous["message"]["sender_chat"] = GROUP.to_json()
    await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id)
    assert len(server.calls("getChatMember")) == 2

    # After the cache expires, a demoted admin is refused.
    now = [0.0]
    tg.adapter.admins = AdminCheck(tg.adapter, ttl=300, monotonic=lambda: now[0])
    assert (await tg.say(GROUP, BOSS, "/daily show"))["text"] == t("en", "daily.none")
    server.set_member_status(GROUP.id, BOSS, "member")
    assert (await tg.say(GROUP, BOSS, "/daily show"))["text"] == t("en", "daily.none")
    now[0] = 301
    assert (await tg.say(GROUP, BOSS, "/daily show"))["text"] == not_admin
    # Commands meant for another bot are not ours to answer.
    server.user_message(GROUP, BOSS, "/daily@other_bot show")
    await tg.settle()
    assert server.last_message(GROUP.id).text == not_admin


async def test_language_buttons_in_a_group_need_an_admin(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, BOSS, "administrator")
    await tg.say(GROUP, CAT, "/start")
    menu = server.last_message(GROUP.id)
    assert await tg.click(GROUP, CAT, menu.message_id, "l1:zh") == t("en", "error.not_admin")
    assert await tg.click(GROUP, BOSS, menu.message_id, "l1:zh") == t("zh-CN", "lang.set")
    chat = await app.store.find_chat("telegram", str(GROUP.id))
    assert chat.settings.language == "zh-CN"


async def test_long_posts_are_split_at_4096_characters(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    await tg.say(ANN.id, ANN, "/start")
    chat = await app.store.find_chat("telegram", str(ANN.id))
    await app.outbox.post_notice(chat, notice("error.bad_args", "en", detail="<x> & " * 1500))
    parts = [m.text for m in server.messages_in(ANN.id)][1:]
    assert len(parts) == 3 and all(len(p) <= 4096 for p in parts)
    assert parts[0].startswith("Bad arguments: <x> & <x>") and "".join(parts).count("<x>") == 1500


async def test_logs_never_carry_the_token(tg: TelegramHarness, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    await tg.start()
    await tg.say(ANN.id, ANN, "/stats")
    await tg.stop()
    assert tg.server.token not in caplog.text
    assert "/bot<token>/sendMessage" in caplog.text  # httpx's request lines, redacted
    assert all(tg.server.token not in r.getMessage() for r in caplog.records)
