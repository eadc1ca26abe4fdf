"""Telegram across a restart: a button pressed after the bot process was replaced still counts,
and a group daily's deadline (rebuilt from the database) still edits the original message."""

from __future__ import annotations

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    ANN,
    BOB,
    BOSS,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)


async def test_a_click_after_a_restart_still_counts(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.say(GROUP, BOSS, "/daily set 09:30 1h physics")
    await tg.advance(30 * 60)
    daily = await tg.question(GROUP.id)
    daily_round = round_of(daily)
    await tg.say(ANN.id, ANN, "/quiz single")
    practice = server.last_message(ANN.id)

    app = await tg.restart()  # a new app and adapter on the same database and the same fake server
    assert tg.adapter.rounds.last(ANN.id) is None  # nothing carried over in memory

    toast = await tg.click(ANN.id, ANN, practice.message_id, f"a1:{round_of(practice)}:B")
    assert toast == t("en", "receipt.correct", points=1)
    receipt = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == ANN.id)
    assert "Correct answer: B" in receipt["text"]
    toast = await tg.click(GROUP, BOB, daily.message_id, f"a1:{daily_round}:true")
    assert toast == t("en", "receipt.recorded", choice="True")

    await tg.advance(3600)
    await tg.reveal(daily)
    assert daily.text.startswith("Answer revealed") and "Right: Bob" in daily.text
    [answer] = await app.store.round_answers(daily_round)
    assert answer.display_name == "Bob" and answer.verdict == "correct"


async def test_a_typed_answer_after_a_restart_finds_the_open_question(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, ANN, "/quiz fill")
    question = server.last_message(GROUP.id)
    await tg.say(BOB.id, BOB, "/quiz fill")
    app = await tg.restart()
    reply = await tg.say(GROUP, BOB, "5e-4", reply_to=question.message_id)
    assert reply["text"].startswith(t("en", "receipt.correct", points=2))
    reply = await tg.say(BOB.id, BOB, "5e-4")
    assert reply["text"].startswith(t("en", "receipt.correct", points=2))
    assert app.outbox.failures == 0


async def test_a_reply_to_an_older_open_question_after_a_restart_finds_its_round(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, ANN, "/quiz fill")
    older = server.last_message(GROUP.id)
    older_round = await tg.round_id(older)
    await tg.say(GROUP, ANN, "/quiz single")  # the group's latest question is now another one
    app = await tg.restart()
    reply = await tg.say(GROUP, BOB, "5e-4", reply_to=older.message_id)
    assert reply["text"].startswith(t("en", "receipt.correct", points=2))
    [answer] = await app.store.round_answers(older_round)
    assert answer.display_name == "Bob"
