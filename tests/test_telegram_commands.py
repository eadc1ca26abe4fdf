"""Telegram commands end to end: command menus per scope and language, settings (/lang, /tz,
/bank), admin checks (cached, anonymous admins), /help, unknown commands, long replies, logs."""

from __future__ import annotations

import html
import logging

import pytest

from adapters.telegram.admin import AdminCheck
from bot.application import app as application
from bot.application.app import Application
from bot.application.commands import catalog, parsing
from bot.application.commands.arguments import Arg, ArgKind
from bot.application.commands.catalog import Command, Permission, Scope
from bot.application.commands.parsing import Parsed
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.locales import i18n
from bot.locales.i18n import LANGUAGES, t
from bot.views.quiz import notice
from bot.views.quiz_text import HTML
from tests.extra_use_cases import ExtraUseCase, add_handler
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    ANN,
    BOB,
    BOSS,
    CAT,
    GROUP,
    GROUP_REF,
    TelegramHarness,
    buttons,
    tg_fixture,  # noqa: F401
)

SCOPES = {  # menu scope → who may run a command there
    "all_private_chats": lambda c: c.scope.allows(True),
    "all_group_chats": lambda c: c.scope.allows(False) and c.permission is Permission.ANYONE,
    "all_chat_administrators": lambda c: c.scope.allows(False),
}


def _listed(rule) -> list[str]:
    """The catalog's top-level names with at least one command the rule lets run, in order."""
    return list(dict.fromkeys(c.path[0] for c in catalog.CATALOG if rule(c)))


async def test_command_menus_list_the_catalog_per_scope_in_chinese_and_english(tg: TelegramHarness) -> None:
    await tg.start()
    assert len(tg.server.calls("setMyCommands")) == 6  # three scopes, two languages
    for scope, rule in SCOPES.items():
        zh = tg.server.my_commands({"type": scope}, "zh")
        en = tg.server.my_commands({"type": scope})
        assert [c["command"] for c in zh] == [c["command"] for c in en] == _listed(rule)
        for command in zh:
            assert command["description"] == t("zh-CN", f"cmd.{command['command']}.desc")
        for command in en:
            assert command["description"] == t("en", f"cmd.{command['command']}.desc")
    private = [c["command"] for c in tg.server.my_commands({"type": "all_private_chats"})]
    group = [c["command"] for c in tg.server.my_commands({"type": "all_group_chats"})]
    assert "start" in private and "start" not in group  # /start is for private chats only
    assert "lang" not in group and "lang" in _listed(SCOPES["all_chat_administrators"])


async def test_a_command_added_to_the_catalog_works_with_no_adapter_change(
    tg: TelegramHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    ping = Command(("ping",), ExtraUseCase.PING, (Arg("tag", ArgKind.WORD),))
    admin_ping = Command(("pong",), ExtraUseCase.PING, permission=Permission.CHAT_ADMIN, scope=Scope.GROUP)
    entries = (*catalog.CATALOG, ping, admin_ping)
    for module in (catalog, parsing, application):
        monkeypatch.setattr(module, "CATALOG", entries)
    for language in LANGUAGES:
        for name in ("ping", "pong"):
            monkeypatch.setitem(i18n.catalog(language).messages, f"cmd.{name}.desc", f"{name} ({language})")

    async def use_case(self: Application, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(TextView(f"pong {parsed.args.get('tag', '-')} from {caller.chat.chat_key}"), language)

    add_handler(monkeypatch, ExtraUseCase.PING, use_case)
    server = tg.server
    await tg.start()
    assert (await tg.say(ANN.id, ANN, "/ping ml"))["text"] == f"pong ml from {ANN.id}"
    assert "ping" in [c["command"] for c in server.my_commands({"type": "all_private_chats"})]
    assert "pong" not in [c["command"] for c in server.my_commands({"type": "all_private_chats"})]
    assert "pong" in [c["command"] for c in server.my_commands({"type": "all_chat_administrators"})]
    group_zh = server.my_commands({"type": "all_group_chats"}, "zh")
    assert {"command": "ping", "description": "ping (zh-CN)"} in group_zh
    # Permission and scope come from the entry: no admin, no pong; a private chat, no pong.
    server.set_member_status(GROUP.id, BOSS, "administrator")
    assert (await tg.say(GROUP, BOB, "/pong"))["text"] == t("en", "error.not_admin")
    assert (await tg.say(GROUP, BOSS, "/pong"))["text"] == f"pong - from {GROUP.id}"
    assert (await tg.say(ANN.id, ANN, "/pong"))["text"] == t("en", "error.group_only")


async def test_settings_commands_in_a_private_chat(tg: TelegramHarness) -> None:
    app = await tg.start()
    assert (await tg.say(ANN.id, ANN, "/lang zh"))["text"] == t("zh-CN", "lang.set")
    assert (await tg.say(ANN.id, ANN, "/lang klingon"))["text"].startswith("参数“语言”有误")
    assert (await tg.say(ANN.id, ANN, "/lang en"))["text"] == t("en", "lang.set")
    help_text = (await tg.say(ANN.id, ANN, "/help"))["text"]
    while "/help quiz" not in help_text:  # the whole help takes two Telegram messages (4,096 each)
        rest = await tg.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == ANN.id)
        help_text += rest["text"]
    assert help_text.startswith(HTML.bold(t("en", "help.title")))
    assert "/start — " in help_text
    assert "/daily set &lt;time&gt; [deadline] [tag] [timezone] [mode]" in help_text
    assert (await tg.say(ANN.id, ANN, "/frobnicate"))["text"] == t(
        "en", "error.unknown_command", command="/frobnicate"
    )
    assert (await tg.say(ANN.id, ANN, "/review"))["text"] == t("en", "review.no_cards")
    assert (await tg.say(ANN.id, ANN, "/quiz nosuchtag"))["text"] == t(
        "en", "error.no_questions_for", filter="nosuchtag"
    )

    await tg.say(ANN.id, ANN, "/daily 07:30")
    bad_zone = await tg.say(ANN.id, ANN, "/tz Mars/Olympus")
    assert bad_zone["text"].startswith("Bad timezone: not a known timezone")
    berlin = await tg.say(ANN.id, ANN, "/tz Europe/Berlin")
    assert berlin["text"] == t("en", "tg.tz_set", timezone="Europe/Berlin")
    shown = await tg.say(ANN.id, ANN, "/daily")
    assert "every day at 07:30 (Europe/Berlin)" in shown["text"]
    assert (await tg.say(ANN.id, ANN, "/daily off"))["text"] == t("en", "daily.off")

    listing = await tg.say(ANN.id, ANN, "/bank list")
    assert listing["text"].endswith(t("en", "bank.list_row", id="sample", title="Sample bank", count=5))
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
    assert (await tg.say(GROUP, BOSS, "/daily set 25:00"))["text"].startswith("Bad time")
    assert (await tg.say(GROUP, BOSS, "/contest status"))["text"] == t("en", "contest.not_running")
    assert (await tg.say(GROUP, BOSS, "/contest stop"))["text"] == t("en", "contest.not_running")
    assert (await tg.say(GROUP, BOSS, "/contest start -1"))["text"].startswith("Bad questions")
    help_text = await tg.say(GROUP, BOB, "/help@studybot_test_bot")
    assert "/contest start" in help_text["text"]
    help_end = html.escape(t("en", "help.one_command"))  # the help's last line: over 4,096
    if help_end not in help_text["text"]:  # characters it comes in two messages; claim the rest
        rest = await server.wait_for_request("sendMessage", lambda p: help_end in p["text"])
        assert rest["chat_id"] == GROUP.id
    assert len(server.calls("getChatMember")) == 2

    # An anonymous admin writes as the group itself: no member lookup needed.
    anonymous = server.user_message(GROUP, BOSS, "/daily off")
    anonymous["message"]["sender_chat"] = GROUP.to_json()
    anonymous_id = anonymous["message"]["message_id"]
    # Its own reply (not any message in the group: /help's second part may still be unclaimed).
    def answers_it(p: dict) -> bool:
        return p["chat_id"] == GROUP.id and p.get("reply_parameters", {}).get("message_id") == anonymous_id

    await server.wait_for_request("sendMessage", answers_it)
    assert len(server.calls("getChatMember")) == 2

    # After the cache expires, a demoted admin is refused.
    now = [0.0]
    tg.adapter.admins = AdminCheck(lambda: tg.adapter.bot, ttl=300, monotonic=lambda: now[0])
    assert (await tg.say(GROUP, BOSS, "/daily off"))["text"] == t("en", "daily.none")
    server.set_member_status(GROUP.id, BOSS, "member")
    assert (await tg.say(GROUP, BOSS, "/daily off"))["text"] == t("en", "daily.none")
    now[0] = 301
    assert (await tg.say(GROUP, BOSS, "/daily off"))["text"] == not_admin
    # Commands meant for another bot are not ours to answer.
    server.user_message(GROUP, BOSS, "/daily@other_bot show")
    await tg.settle()
    assert server.last_message(GROUP.id).text == not_admin


async def test_language_buttons_in_a_group_need_an_admin(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, BOSS, "administrator")
    assert (await tg.say(GROUP, CAT, "/start"))["text"] == t("en", "error.private_only")  # catalog scope
    await tg.say(CAT.id, CAT, "/start")  # the welcome and its language buttons, in a private chat
    menu = server.last_message(CAT.id)
    assert set(buttons(menu).values()) == {"l1:zh", "l1:tw", "l1:en"}
    # The same payload clicked in the group (on any message of ours) is the /lang command there.
    refused = await tg.click(GROUP, CAT, server.last_message(GROUP.id).message_id, "l1:zh", check=False)
    assert refused == t("en", "error.not_admin")
    assert await tg.click(GROUP, BOSS, server.last_message(GROUP.id).message_id, "l1:zh", check=False) == t(
        "zh-CN", "lang.set"
    )
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
    # PTB's own line for every call was logged (the calls go over aiohttp, which logs no URL)
    assert "Calling Bot API endpoint `sendMessage`" in caplog.text
    assert all(tg.server.token not in r.getMessage() for r in caplog.records)
