"""Forged clicks on both platforms (real discord.py and python-telegram-bot against the fakes):
a button or form naming another chat's round, another question's round or option, or a control
its message does not carry is answered "closed", stores nothing and shows no answer. Also the
rule itself (bot/application/clicks.py) on plain values, for the cases the fakes cannot time."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.application.clicks import Act, Click, admits
from bot.application.quiz_cache import RoundContext
from bot.application.quiz_settings import CoreSettings
from bot.domain.kinds import (
    AnswerMode,
    AnswerPolicy,
    ChatKind,
    ChatRef,
    Platform,
    RevealPolicy,
    RoundKind,
    RoundState,
)
from bot.domain.records import Chat, ChatSettings, Round
from bot.locales.i18n import t
from tests.conftest import START, make_bank
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_telegram_harness import (
    ANN,
    BOB,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)

CLOSED = t("en", "receipt.closed")


# ---------------------------------------------------------------- Discord


async def test_discord_forged_clicks_are_closed_and_change_nothing(harness: Harness) -> None:
    h = harness
    await h.start()
    server, alice, bob = h.server, h.world.admin, h.world.student
    staff = h.world.staff  # bob cannot see it
    secret = await h.command(alice, "quiz", {"type": "single"}, channel=staff)
    assert secret is not None
    secret_round = await h.last_round(staff)
    own = await h.command(bob, "quiz", {"type": "single"})
    own_round = await h.last_round()
    other = await h.command(bob, "quiz", {"type": "judge"})
    other_round = await h.last_round()
    assert own is not None and other is not None

    forged = [
        (own.id, f"sb:a:{secret_round.id}:B"),  # another channel's round, on bob's own message
        (own.id, f"sb:a:{other_round.id}:true"),  # another question of this channel
        (other.id, f"sb:a:{own_round.id}:B"),  # ... the other way round
        (own.id, f"sb:a:{own_round.id}:true"),  # an option the question does not have
        (own.id, f"sb:t:{own_round.id}:B"),  # a toggle the message does not carry
        (own.id, f"sb:s:{own_round.id}"),
        (own.id, f"sb:m:{own_round.id}"),  # the form of a choice question
        (own.id, f"sb:g:{own_round.id}:full"),
    ]
    for message_id, custom_id in forged:
        record = await server.forged_click(h.general, bob, message_id, custom_id)
        reply = await h.reply(record)
        assert reply is not None, custom_id  # answered, not left to time out
        assert reply.content == CLOSED and reply.flags & EPHEMERAL, (custom_id, reply.content)
        assert "Correct answer" not in reply.content
    # A real button of the message, clicked as another component type, is not on it either.
    record = await server.forged_click(h.general, bob, own.id, f"sb:a:{own_round.id}:B", component_type=3)
    assert (await h.reply(record)).content == CLOSED

    await h.app.quiz.flush()
    for round_ in (secret_round, own_round, other_round):
        assert await h.app.store.answer_count(round_.id) == 0
    # The real buttons still work afterwards, and the forged toggle left no selection behind.
    right = await h.click(bob, own, f"sb:a:{own_round.id}:B")
    assert right.content.startswith("✅ Correct!")


async def test_discord_forged_modal_submits_are_closed(harness: Harness) -> None:
    h = harness
    await h.start()
    server, alice, bob = h.server, h.world.admin, h.world.student
    secret = await h.command(alice, "quiz", {"type": "fill"}, channel=h.world.staff)
    assert secret is not None
    secret_round = await h.last_round(h.world.staff)
    own = await h.command(bob, "quiz", {"type": "fill"})
    own_round = await h.last_round()
    single = await h.command(bob, "quiz", {"type": "single"})
    single_round = await h.last_round()
    assert own is not None and single is not None

    cases = [
        (f"sb:f:{secret_round.id}", own.id),  # another channel's round, from bob's own message
        (f"sb:f:{secret_round.id}", None),  # from no message at all
        (f"sb:f:{own_round.id}", None),
        (f"sb:f:{own_round.id}", single.id),  # from a message without that round's Answer button
        (f"sb:f:{single_round.id}", single.id),  # a typed answer to a choice question
    ]
    for custom_id, message_id in cases:
        record = await server.forged_modal_submit(h.general, bob, custom_id, {"answer": "5e-4"}, message_id)
        reply = await h.reply(record)
        assert reply is not None and reply.content == CLOSED, (custom_id, message_id)
        assert "1e-3/2." not in reply.content  # no explanation shown
    await h.app.quiz.flush()
    for round_ in (secret_round, own_round, single_round):
        assert await h.app.store.answer_count(round_.id) == 0

    # The real form, opened from the round's own message, still counts.
    assert await h.click(bob, own, f"sb:m:{own_round.id}") is None
    submit = await server.submit_modal(h.general, bob, f"sb:f:{own_round.id}", {"answer": "5e-4"})
    assert (await h.reply(submit)).content.startswith("✅ Correct!")


# ---------------------------------------------------------------- Telegram


async def test_telegram_forged_callbacks_are_closed_and_change_nothing(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    await tg.say(GROUP, BOB, "/quiz single")
    group_question = server.last_message(GROUP.id)
    group_round = round_of(group_question)
    await tg.say(ANN.id, ANN, "/quiz single")
    first = server.last_message(ANN.id)
    await tg.say(ANN.id, ANN, "/quiz judge")
    second = server.last_message(ANN.id)
    first_round, second_round = round_of(first), round_of(second)
    await tg.say(ANN.id, ANN, "/quiz short")
    short = server.last_message(ANN.id)
    short_round = await tg.round_id(short)

    forged = [
        (ANN.id, first, f"a1:{group_round}:B"),  # another chat's round, from her private chat
        (GROUP, group_question, f"a1:{first_round}:B"),  # ... and the other way round
        (ANN.id, second, f"a1:{first_round}:B"),  # another question of the same chat
        (ANN.id, first, f"a1:{second_round}:true"),
        (ANN.id, first, f"a1:{first_round}:true"),  # an option the question does not have
        (ANN.id, first, f"t1:{first_round}:B"),  # a button the message does not carry
        (ANN.id, short, f"g1:{short_round}:full"),  # a self-grade the message does not carry
    ]
    for chat, message, data in forged:
        toast = await tg.click(chat, ANN, message.message_id, data, check=False)
        assert toast == CLOSED, data
    await app.quiz.flush()
    for round_id in (group_round, first_round, second_round, short_round):
        assert await app.store.answer_count(round_id) == 0
    assert not [p for p in server.calls("sendMessage") if "Correct answer" in p["text"]]
    # The real buttons still work.
    assert await tg.click(ANN.id, ANN, first.message_id, f"a1:{first_round}:B") == t(
        "en", "receipt.correct", points=1
    )


# ---------------------------------------------------------------- the rule on plain values


def _context(message_ref: str | None) -> RoundContext:
    bank = make_bank()
    chat = Chat(1, ChatRef(Platform.TELEGRAM, "-100", ChatKind.GROUP), _settings())
    round_ = Round(
        id=5, chat_id=1, bank_id=bank.id, question_id="s-1", kind=RoundKind.DAILY, opened_at=START,
        closes_at=START + timedelta(hours=1), reveal=RevealPolicy.ROUND, answer_policy=AnswerPolicy.FIRST,
        partial_credit=False, state=RoundState.OPEN, message_ref=message_ref, mode=AnswerMode.BUTTONS,
    )  # fmt: skip
    return RoundContext(round_, chat, bank.question("s-1"))


def _settings() -> ChatSettings:
    return CoreSettings(default_bank="sample", language="en").chat_defaults()


def test_the_rule_before_and_after_the_message_reference_is_stored() -> None:
    click = Click(5, Platform.TELEGRAM, "-100", "-100:42", Act.ANSWER, "B", "a1:5:B",
                  frozenset({"a1:5:A", "a1:5:B"}))  # fmt: skip
    assert admits(_context("-100:42"), click)
    assert not admits(_context("-100:41"), click)  # another message of the chat
    # The click beat the write of the reference: a message carrying the round's button will do,
    assert admits(_context(None), click)
    # ... but not one that does not say what it carries, or does not carry it.
    assert not admits(_context(None), replace(click, controls=None))
    assert not admits(_context(None), replace(click, controls=frozenset({"a1:6:B"})))
    assert admits(_context("-100:42"), replace(click, controls=None))  # a Telegram message too old to say
    assert not admits(_context("-100:42"), replace(click, chat_key="-101"))
    assert not admits(_context("-100:42"), replace(click, platform=Platform.DISCORD))
    assert not admits(_context("-100:42"), replace(click, round_id=6))
    assert not admits(_context("-100:42"), replace(click, act=Act.TOGGLE))
    assert not admits(_context("-100:42"), replace(click, token="E"))


def test_the_star_is_believed_on_a_message_of_the_rounds_chat_that_carries_it() -> None:
    star = Click(5, Platform.TELEGRAM, "-100", "-100:42", Act.FAVOURITE, None, "f1:5", frozenset({"f1:5"}))
    assert admits(_context("-100:42"), star)  # the question, or its reveal edited in place
    assert admits(_context("-100:42"), replace(star, message_ref="-100:43"))  # a reveal sent anew
    assert admits(_context(None), star)  # clicked before the reference was stored
    assert not admits(_context("-100:42"), replace(star, chat_key="-101"))  # another chat
    assert not admits(_context("-100:42"), replace(star, controls=frozenset({"f1:6"})))  # not on it
    assert not admits(_context("-100:42"), replace(star, round_id=6))
    assert not admits(_context("-100:42"), replace(star, message_ref=None))  # from no message


def test_next_is_believed_on_a_practice_receipt_of_the_rounds_chat_that_carries_it() -> None:
    practice = _context("-100:42")
    practice = replace(practice, round=replace(practice.round, kind=RoundKind.PRACTICE))
    click = Click(5, Platform.TELEGRAM, "-100", "-100:50", Act.NEXT, None, "n1:5", frozenset({"n1:5"}))
    assert admits(practice, click)  # the receipt, another message of the round's chat
    assert not admits(_context("-100:42"), click)  # a daily's round: no receipt carries it
    assert not admits(practice, replace(click, chat_key="-101"))
    assert not admits(practice, replace(click, controls=frozenset({"n1:6"})))  # not on that message
    assert not admits(practice, replace(click, message_ref=None))
    assert not admits(practice, replace(click, round_id=6))


def test_the_next_payload_is_parsed_strictly() -> None:
    from adapters.telegram import callback_data as cd

    assert cd.parse(cd.next_question(5)) == cd.NextQuestion(5)
    for forged in ("n1:05", "n1:5:x", "n1:", "n2:5", "n1:-5", " n1:5"):
        assert cd.parse(forged) is None, forged
