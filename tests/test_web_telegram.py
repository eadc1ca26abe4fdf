"""Opening the web app from Telegram (real PTB against the fake Bot API): the "📝 打开网页版"
Mini App button under /start, /mock and /stats in a private chat and as the menu button when the
web app is configured; none in a group, and none at all without a configured address."""

from __future__ import annotations

import json

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import ANN, GROUP, TelegramHarness, tg_fixture  # noqa: F401

URL = "https://study.example/app/"


def web_buttons(server, chat_id: int) -> list[tuple[str, str]]:
    """The Mini App buttons of the bot's last text message into the chat (a chart may follow it)."""
    sent = [p for p in server.calls("sendMessage") if p["chat_id"] == chat_id][-1]
    markup = sent.get("reply_markup") or {}
    if isinstance(markup, str):
        markup = json.loads(markup)
    rows = markup.get("inline_keyboard", [])
    return [(b["text"], b["web_app"]["url"]) for row in rows for b in row if "web_app" in b]


async def test_the_web_app_button_sits_under_start_mock_and_stats_in_a_private_chat(tg: TelegramHarness):
    server = tg.server
    await tg.start(language="zh-CN", web_url="https://study.example")
    assert server.menu_buttons[None] == {"type": "web_app", "text": t("zh-CN", "web.open_button"),
                                         "web_app": {"url": URL}}  # fmt: skip
    for command in ("/start", "/mock", "/stats"):
        await tg.say(ANN.id, ANN, command)
        await tg.settle()
        assert web_buttons(server, ANN.id) == [(t("en", "web.open_button"), URL)], (
            command
        )  # Ann's chat speaks English
    await tg.say(GROUP, ANN, "/stats")
    assert web_buttons(server, GROUP.id) == []


async def test_no_button_without_a_web_address(tg: TelegramHarness):
    server = tg.server
    await tg.start(language="zh-CN")
    assert None not in server.menu_buttons
    await tg.say(ANN.id, ANN, "/start")
    assert web_buttons(server, ANN.id) == []
    reply = await tg.say(ANN.id, ANN, "/web")
    assert reply["text"] == t("en", "web.off")
