"""The mock exam on Discord (real discord.py against the fake Discord), in a DM and in a server
channel (answered ephemerally): one item at a time with its answer buttons, a click turning the
message to the next item, /mock answer with only a number showing that item, a stale button
refused, hand-in asking first, and the report's wrong items opened one by one with their texts."""

from __future__ import annotations

import pytest

from bot.domain import option_shuffle as shuffle
from bot.domain.kinds import Platform, UserRef
from bot.locales.i18n import t
from tests.fakes.discord_models import MessageRecord
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_study_e2e_discord import Seat


@pytest.fixture(params=["dm", "server"])
def seat(request: pytest.FixtureRequest, harness: Harness) -> Seat:
    if request.param == "dm":
        channel, member = harness.server.dm(harness.world.student.user)
        return Seat(harness, channel, member)
    return Seat(harness, harness.general, harness.world.student)


def mock_ids(message: MessageRecord) -> list[str]:
    return [cid for cid in message.custom_ids() if cid.startswith("sb:mk:")]


async def click(seat: Seat, message: MessageRecord, custom_id: str) -> MessageRecord:
    answer = await seat.h.click(seat.member, message, custom_id, channel=seat.channel)
    assert answer is not None
    return answer


async def test_one_item_at_a_time_turned_by_its_buttons(seat: Seat) -> None:
    h = seat.h
    app_ = await h.start()
    assert app_ is not None and h.app is not None
    first = await seat.reply("mock", sub="start")
    assert "2+2=?" in first.content and "Primes?" not in first.content  # one item, not the paper
    # The bot reads no messages on Discord: its hints name buttons and commands, nothing to send.
    assert t("en", "mock.how_one_by_one_buttons") in first.content
    assert t("en", "mock.type_choice_buttons", number=1) in first.content
    assert "send" not in first.content.lower()
    user_id = await h.app.quiz.user_id(UserRef(Platform.DISCORD, str(seat.member.user.id), "x"))
    mock = await h.app.mocks.store.open_mock(user_id)
    assert mock is not None
    assert f"sb:mk:{mock.id}:1:p:A" in mock_ids(first) and f"sb:mk:{mock.id}:1:h" in mock_ids(first)

    item = mock.items[0]
    right = shuffle.shown(h.bank.question(item.question_id), item.order).answer[0]
    turned = await click(seat, first, f"sb:mk:{mock.id}:1:p:{right}")
    assert turned.id == first.id  # the same message, now item 2
    assert t("en", "mock.kept", number=1) in turned.content and "Primes?" in turned.content
    assert f"sb:mk:{mock.id}:2:p:A" in mock_ids(turned)

    shown = await seat.say("mock", {"number": 4}, sub="answer")  # a number alone shows that item
    assert "Adam lr halved" in shown and "4/5" in shown
    again = await seat.reply("mock", {"number": 1}, sub="go")
    await seat.say("mock", {"number": 3}, sub="go")  # item 3 on screen: item 1's buttons are stale
    refused = await click(seat, again, f"sb:mk:{mock.id}:1:p:A")
    assert refused.content == t("en", "mock.button_refused") and refused.id != again.id
    answers = await h.app.mocks.store.answers(mock.id)
    assert answers[0].response == h.bank.question(item.question_id).answer[0] and len(answers) == 1


async def test_hand_in_asks_then_the_report_opens_each_wrong_item(seat: Seat) -> None:
    h = seat.h
    await h.start()
    assert h.app is not None
    message = await seat.reply("mock", sub="start")
    user_id = await h.app.quiz.user_id(UserRef(Platform.DISCORD, str(seat.member.user.id), "x"))
    mock = await h.app.mocks.store.open_mock(user_id)
    assert mock is not None
    asked = await click(seat, message, f"sb:mk:{mock.id}:1:h")
    assert t("en", "mock.confirm_title", count=5, total=5) in asked.content
    assert await h.app.mocks.store.open_mock(user_id) is not None  # nothing handed in yet
    # Nothing answered at all: confirming is no result, and says so.
    empty = await click(seat, asked, f"sb:mk:{mock.id}:1:c")
    assert empty.content == t("en", "mock.empty_hand_in")
    assert await h.app.mocks.store.history(user_id, 5) == []

    message = await seat.reply("mock", sub="start")
    mock = await h.app.mocks.store.open_mock(user_id)
    assert mock is not None
    item = mock.items[0]
    seen = shuffle.shown(h.bank.question(item.question_id), item.order)
    wrong = next(letter for letter in seen.letters if letter not in seen.answer)
    await click(seat, message, f"sb:mk:{mock.id}:1:p:{wrong}")
    asked = await click(seat, message, f"sb:mk:{mock.id}:2:h")
    report = await click(seat, asked, f"sb:mk:{mock.id}:2:c")
    assert t("en", "mock.score", score="0", total="16") in report.content
    assert len(report.content.splitlines()) <= 8, report.content
    assert f"sb:mk:{mock.id}:1:r" in mock_ids(report)
    opened = await click(seat, report, f"sb:mk:{mock.id}:1:r")
    for letter, text in seen.options:
        assert f"{letter}. {text}" in opened.content
    right = seen.answer[0]
    assert t("en", "mock.right_answer", answer=f"{right} (4)") in opened.content


async def test_a_typed_item_is_answered_in_a_form_from_its_button(seat: Seat) -> None:
    h = seat.h
    await h.start()
    assert h.app is not None
    await seat.reply("mock", sub="start", options={"order": "ordered"})
    user_id = await h.app.quiz.user_id(UserRef(Platform.DISCORD, str(seat.member.user.id), "x"))
    mock = await h.app.mocks.store.open_mock(user_id)
    assert mock is not None
    fill = await seat.reply("mock", {"number": 4}, sub="go")  # the fill-in item: no options
    opener = f"sb:mk:{mock.id}:4:t"
    assert opener in mock_ids(fill) and not any(":4:p:" in cid for cid in mock_ids(fill))
    assert t("en", "mock.type_text_buttons", number=4) in fill.content  # press Answer, not "send"
    assert await h.click(seat.member, fill, opener, channel=seat.channel) is None  # answered with a form
    form = f"sb:mf:{mock.id}:4"
    submitted = await h.server.submit_modal(seat.channel, seat.member, form, {"answer": "5e-4"})
    turned = await h.reply(submitted)
    assert turned is not None and turned.id == fill.id
    assert t("en", "mock.kept", number=4) in turned.content and "Why attention?" in turned.content
    assert (await h.app.mocks.store.answers(mock.id))[3].response == "5e-4"

    # the same form for an item no longer on screen changes nothing
    await h.click(seat.member, turned, f"sb:mk:{mock.id}:5:t", channel=seat.channel)
    await seat.say("mock", {"number": 1}, sub="go")
    stale = await h.reply(
        await h.server.submit_modal(seat.channel, seat.member, f"sb:mf:{mock.id}:5", {"answer": "x"})
    )
    assert stale is not None and stale.content == t("en", "mock.button_refused")
    assert 4 not in await h.app.mocks.store.answers(mock.id)
