"""How the bot's Bot API calls travel (adapters/telegram/transport.py): a click is answered while
messages wait out Telegram's flood control, and a burst of clicks is answered once each."""

from __future__ import annotations

import asyncio

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.test_telegram_harness import ANN, BOB, GROUP, TelegramHarness, round_of, tg_fixture  # noqa: F401


async def test_a_click_is_answered_while_messages_wait_out_flood_control(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    await tg.say(GROUP, ANN, "/quiz multi")
    question = server.last_message(GROUP.id)
    round_id = round_of(question)

    server.fail_next("sendMessage", code=429, retry_after=2)
    server.user_message(GROUP, BOB, "/quiz multi")  # its question is refused: the bot pauses 2 s
    await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id, include_failed=True)
    toast = await tg.click(GROUP, ANN, question.message_id, f"t1:{round_id}:A")
    assert toast == t("en", "select.current", choice="A")
    await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id)  # after the pause
    order = [e.method for e in server.log if e.method in ("sendMessage", "answerCallbackQuery")]
    assert order[-2:] == ["answerCallbackQuery", "sendMessage"]  # the toast did not wait


async def test_a_burst_of_clicks_is_answered_once_each_and_stored_once_per_user(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    await tg.say(GROUP, ANN, "/quiz multi")
    question = server.last_message(GROUP.id)
    round_id = round_of(question)
    users = [FakeUser(5_000 + i, f"User {i}", f"user{i}", "en") for i in range(150)]
    queries = []
    for user in users:  # every user selects A then submits, all at once
        queries.append(server.user_click(GROUP, user, question.message_id, f"t1:{round_id}:A"))
        queries.append(server.user_click(GROUP, user, question.message_id, f"s1:{round_id}"))
    answers = await asyncio.gather(*(server.wait_for_callback_answer(q, timeout=30) for q in queries))
    wrong = t("en", "receipt.wrong") + "\n" + t("en", "reveal.correct", answer="A, B, D")
    assert [a["text"] for a in answers] == [t("en", "select.current", choice="A"), wrong] * len(users)
    assert not [e for e in server.log if e.method == "answerCallbackQuery" and not e.ok]
    stored = await app.store.round_answers(round_id)
    assert sorted(a.display_name for a in stored) == sorted(u.first_name for u in users)
    assert {a.response for a in stored} == {"A"}
