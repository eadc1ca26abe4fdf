"""Telegram private chats end to end (real PTB against the fake Bot API): /start and language,
practice with a wrong answer, the personal daily, stats and streak, typed and self-graded answers."""

from __future__ import annotations

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    ANN,
    TelegramHarness,
    buttons,
    round_of,
    tg_fixture,  # noqa: F401
)


async def test_start_quiz_wrong_answer_daily_stats_and_streak(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start(language="zh-CN")

    welcome = await tg.say(ANN.id, ANN, "/start")
    assert "studybot" in welcome["text"] and "Sample bank" in welcome["text"]
    menu = server.last_message(ANN.id)
    assert buttons(menu) == {"简体中文": "l1:zh", "繁體中文": "l1:tw", "English": "l1:en"}
    toast = await tg.click(ANN.id, ANN, menu.message_id, "l1:en")
    assert toast == t("en", "lang.set")

    await tg.say(ANN.id, ANN, "/quiz single")
    question = server.last_message(ANN.id)
    assert question.text.startswith("Practice · Q1 · Single choice")
    assert list(buttons(question)) == ["A", "B", "C", "D", "☆ Star"]
    toast = await tg.click(ANN.id, ANN, question.message_id, f"a1:{round_of(question)}:A")
    assert toast == t("en", "receipt.wrong")
    receipt = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == ANN.id)
    assert "Correct answer: B" in receipt["text"] and "2+2 is 4." in receipt["text"]
    await server.wait_for_request("editMessageReplyMarkup")
    assert list(buttons(question)) == ["☆ Star"]  # answered: only the ☆ stays

    reply = await tg.say(ANN.id, ANN, "/daily 08:00 1h physics")
    assert reply["text"].startswith("Daily question set: every day at 08:00 (Asia/Shanghai)")
    await tg.advance(23 * 3600)  # to 08:00 tomorrow in Shanghai
    daily = await tg.question(ANN.id)
    assert daily.text.startswith("Daily question · Q3 · True or false")
    assert buttons(daily) == {"True": f"a1:{round_of(daily)}:true", "False": f"a1:{round_of(daily)}:false",
                              "☆ Star": f"f1:{round_of(daily)}"}  # fmt: skip
    toast = await tg.click(ANN.id, ANN, daily.message_id, f"a1:{round_of(daily)}:true")
    assert toast == t("en", "receipt.recorded", choice="True")

    await tg.advance(3600)  # the deadline: the question becomes its reveal
    await tg.reveal(daily)
    assert daily.text.startswith("Answer revealed") and "Correct answer: True" in daily.text
    assert list(buttons(daily)) == ["☆ Star"]

    stats = await tg.say(ANN.id, ANN, "/stats")
    assert "2 answered, 1 right (50%), 1 pt" in stats["text"]
    streak = await tg.say(ANN.id, ANN, "/streak")
    assert streak["text"] == t("en", "streak.body", count=1, best=1)
