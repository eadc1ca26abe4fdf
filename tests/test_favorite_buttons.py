"""The ☆ under every question and reveal, on Telegram and Discord (real libraries against the
fakes): a click stars the question for the clicker, who alone is told so in the chat's language,
and `/favorites` then lists it; it is never an answer; a ☆ naming a round of another chat, or
one its message does not carry, is refused and stars nothing."""

from __future__ import annotations

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    buttons,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_telegram_harness import (
    ANN,
    BOSS,
    CAT,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)
from tests.test_telegram_harness import buttons as tg_buttons

CLOSED = t("en", "receipt.closed")


# ---------------------------------------------------------------- Telegram


async def test_telegram_star_on_a_question_and_a_reveal_lists_them(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    # A private chat in Chinese: the ☆ on a question, before and after it is answered.
    await tg.say(CAT.id, CAT, "/quiz single")
    question = server.last_message(CAT.id)
    rid = round_of(question)
    assert tg_buttons(question)["☆ 收藏"] == f"f1:{rid}"
    assert await tg.click(CAT.id, CAT, question.message_id, f"f1:{rid}") == "⭐ 已收藏第 1 题"
    await app.quiz.flush()
    assert await app.store.answer_count(rid) == 0  # a star is not an answer
    listed = await tg.say(CAT.id, CAT, "/favorites")
    assert "1. [单选题] 2+2=?" in listed["text"]

    # A group's daily: the ☆ stays under the reveal and stars the question for whoever clicks.
    server.set_member_status(GROUP.id, BOSS, "creator")
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, BOSS, "/daily set 09:30 30m physics")
    await tg.advance(30 * 60)
    daily = await tg.question(GROUP.id)
    daily_round = round_of(daily)
    await tg.advance(30 * 60)
    await tg.reveal(daily)
    assert tg_buttons(daily) == {"☆ Star": f"f1:{daily_round}"}
    assert await tg.click(GROUP, ANN, daily.message_id, f"f1:{daily_round}") == t(
        "en", "favorites.added", number=3
    )
    assert "3. [True or false] The sky is blue." in (await tg.say(ANN.id, ANN, "/favorites"))["text"]
    # ... and for nobody else.
    cat_list = await tg.say(CAT.id, CAT, "/favorites")
    assert "The sky is blue." not in cat_list["text"] and "2+2=?" in cat_list["text"]


async def test_telegram_star_of_another_chat_is_refused(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, ANN, "/quiz judge")
    group_question = server.last_message(GROUP.id)
    group_round = round_of(group_question)
    await tg.say(ANN.id, ANN, "/quiz single")
    own = server.last_message(ANN.id)
    own_round = round_of(own)

    forged = [
        (ANN.id, own, f"f1:{group_round}"),  # the group's round, from her private chat
        (GROUP, group_question, f"f1:{own_round}"),  # her private round, from the group
        (ANN.id, own, f"f1:{own_round + 100}"),  # no such round
        (ANN.id, own, f"f1:0{own_round}"),  # not a payload this bot writes
    ]
    for chat, message, data in forged:
        assert await tg.click(chat, ANN, message.message_id, data, check=False) == CLOSED, data
    listed = await tg.say(ANN.id, ANN, "/favorites")
    assert listed["text"] == t("en", "favorites.none")


# ---------------------------------------------------------------- Discord


async def test_discord_star_on_a_question_and_a_reveal_lists_them(harness: Harness) -> None:
    h = harness
    await h.start()
    alice, bob = h.world.admin, h.world.student
    question = await h.command(bob, "quiz", {"type": "multi"})
    assert question is not None
    rid = (await h.last_round()).id
    star = buttons(question)[f"sb:st:{rid}"]
    assert star["label"] == "☆ Star" and not star["disabled"]
    told = await h.click(bob, question, f"sb:st:{rid}")
    assert told is not None and told.flags & EPHEMERAL
    assert told.content == t("en", "favorites.added", number=2)
    assert h.app is not None
    await h.app.quiz.flush()
    assert await h.app.store.answer_count(rid) == 0  # a star is not an answer
    listed = await h.command(bob, "favorites", sub="list")
    assert listed is not None and "2. [Multiple choice] Primes?" in embed_text(listed)

    # A daily's reveal keeps a working ☆ (its answer buttons are disabled).
    await h.command(alice, "daily", {"time": "09:30", "deadline": "1h"}, sub="set")
    await h.app.scheduler.advance(30 * 60)
    daily_round = await h.last_round()
    daily = await h.message_of(daily_round.id)
    await h.app.scheduler.advance(3600)
    assert "Answer revealed" in embed_text(daily)
    told = await h.click(alice, daily, f"sb:st:{daily_round.id}")
    number = h.bank.question(daily_round.question_id).number
    assert told is not None and told.content == t("en", "favorites.added", number=number)
    listed = await h.command(alice, "favorites", sub="list")
    stem = h.bank.question(daily_round.question_id).stem
    assert listed is not None and f"{number}. " in embed_text(listed) and stem in embed_text(listed)
    # bob's list did not change
    listed = await h.command(bob, "favorites", sub="list")
    assert listed is not None and stem not in embed_text(listed).replace("Primes?", "")


async def test_discord_star_survives_a_restart_and_speaks_the_servers_language(harness: Harness) -> None:
    h = harness
    await h.start()
    alice, bob = h.world.admin, h.world.student
    await h.command(alice, "lang", {"language": "zh-TW"})
    question = await h.command(bob, "quiz", {"type": "fill"})
    assert question is not None
    rid = (await h.last_round()).id
    assert buttons(question)[f"sb:st:{rid}"]["label"] == "☆ 收藏"
    await h.stop()
    await h.start()
    told = await h.click(bob, question, f"sb:st:{rid}")
    assert told is not None and told.content == "⭐ 已收藏第 4 題"


async def test_discord_star_of_another_channel_is_refused(harness: Harness) -> None:
    h = harness
    await h.start()
    server, alice, bob = h.server, h.world.admin, h.world.student
    secret = await h.command(alice, "quiz", {"type": "single"}, channel=h.world.staff)
    assert secret is not None
    secret_round = await h.last_round(h.world.staff)
    own = await h.command(bob, "quiz", {"type": "judge"})
    assert own is not None
    own_round = await h.last_round()
    for custom_id in (f"sb:st:{secret_round.id}", f"sb:st:{own_round.id + 100}", "sb:st:x"):
        record = await server.forged_click(h.general, bob, own.id, custom_id)
        reply = await h.reply(record)
        assert reply is not None and reply.content == CLOSED and reply.flags & EPHEMERAL, custom_id
    listed = await h.command(bob, "favorites", sub="list")
    assert listed is not None and embed_text(listed) == t("en", "favorites.none")
