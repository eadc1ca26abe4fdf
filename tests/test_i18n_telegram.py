"""Telegram languages end to end (real PTB against the fake Bot API): a new private chat starts in
the language of the user's Telegram client, groups keep the configured one, a chosen language is
never overridden, and /lang and the picker offer 繁體中文."""

from __future__ import annotations

import pytest

from bot.application.commands.parsing import parse
from bot.application.quiz_settings import QuizError
from bot.locales.i18n import t
from bot.views.quiz_text import HTML
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.test_telegram_harness import (
    GROUP,
    TelegramHarness,
    buttons,
    tg_fixture,  # noqa: F401
)

MEI = FakeUser(21, "Mei", "mei", "zh-hant")
LI = FakeUser(22, "Li", "li", "zh-hans")
JO = FakeUser(23, "Jo", "jo", "en-GB")
ZOE = FakeUser(24, "Zoé", "zoe", "fr")
HK = FakeUser(25, "Ka", "ka", "zh-HK")


async def test_a_new_private_chat_speaks_the_users_telegram_language(tg: TelegramHarness) -> None:
    await tg.start(language="zh-CN")
    async def welcome(user: FakeUser) -> str:
        return str((await tg.say(user.id, user, "/start"))["text"])

    assert (await welcome(MEI)).startswith("歡迎使用 studybot！在這裡練習「Sample bank」（5 題）")
    assert (await welcome(LI)).startswith("欢迎使用 studybot！在这里练习「Sample bank」（5 题）")
    assert (await welcome(JO)).startswith("Welcome to studybot! Practise “Sample bank” (5 questions)")
    assert (await welcome(ZOE)).startswith("欢迎使用")  # no French: the default
    assert (await welcome(HK)).startswith("歡迎使用")
    menu = tg.server.last_message(ZOE.id)
    assert buttons(menu) == {"简体中文": "l1:zh", "繁體中文": "l1:tw", "English": "l1:en"}
    toast = await tg.click(ZOE.id, ZOE, menu.message_id, "l1:tw")
    assert toast == t("zh-TW", "lang.set") == "語言已設為繁體中文。"

    await tg.say(MEI.id, MEI, "/quiz")
    question = tg.server.last_message(MEI.id)
    assert question.text.startswith("練習 · 第")  # the text as Telegram shows it, HTML parsed


async def test_the_hint_counts_only_for_a_new_private_chat(tg: TelegramHarness) -> None:
    await tg.start(language="en")
    help_text = (await tg.say(GROUP, MEI, "/help"))["text"]
    assert help_text.startswith(HTML.bold(t("en", "help.title")))  # the configured language
    assert (await tg.say(MEI.id, MEI, "/lang en"))["text"] == t("en", "lang.set")
    assert (await tg.say(MEI.id, MEI, "/streak"))["text"] == t("en", "streak.body", count=0, best=0)
    assert (await tg.say(MEI.id, MEI, "/lang zh-TW"))["text"] == t("zh-TW", "lang.set")
    refused = await tg.say(MEI.id, MEI, "/lang klingon")
    with pytest.raises(QuizError) as caught:
        parse("/lang klingon")
    assert refused["text"] == HTML.escape(caught.value.render("zh-TW"))  # the catalog's refusal
