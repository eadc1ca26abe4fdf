"""The mock exam on Telegram as a learner sits it (real python-telegram-bot against the fake Bot
API): one item at a time with its answer buttons, the message turning its page on a click, /mock N
to jump, typed letters for the item on screen, hand-in asking first when items are blank, a
one-screen report whose wrong items open one by one with their options' texts; and the buttons'
rules: a click on another person's mock or on an item no longer on screen changes nothing."""

from __future__ import annotations

from typing import Any

from bot.domain import option_shuffle as shuffle
from bot.domain.kinds import Platform, UserRef
from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeMessage, FakeUser
from tests.test_telegram_harness import BOB, CAT, GROUP, TelegramHarness, tg_fixture  # noqa: F401

ZH = "zh-CN"
LI = FakeUser(21, "小李", "xiaoli", "zh-hans")


def message_of(tg: TelegramHarness, chat_id: int, params: dict[str, Any]) -> FakeMessage:
    """The message a sendMessage call just made (the fake edits it in place later)."""
    return next(m for m in reversed(tg.server.messages_in(chat_id)) if m.params is params)


def mock_buttons(message: FakeMessage) -> list[str]:
    return [data for data in message.callback_data if data.startswith("m1:")]


async def open_mock(tg: TelegramHarness, user: FakeUser):
    assert tg.app is not None
    return await tg.app.mocks.store.open_mock(
        await tg.app.quiz.user_id(UserRef(Platform.TELEGRAM, str(user.id), user.first_name))
    )


async def right_letter(tg: TelegramHarness, user: FakeUser, number: int) -> str:
    """The right option of item `number` in the letters the learner sees (options shuffled)."""
    mock = await open_mock(tg, user)
    item = mock.items[number - 1]
    return shuffle.shown(tg.bank.question(item.question_id), item.order).answer[0]


async def edited(tg: TelegramHarness, chat_id: int, message_id: int) -> dict[str, Any]:
    return await tg.server.wait_for_request(
        "editMessageText", lambda p: p["chat_id"] == chat_id and p["message_id"] == message_id
    )


async def test_one_item_at_a_time_with_buttons_a_jump_and_typed_letters(tg: TelegramHarness) -> None:
    await tg.start(language=ZH)
    started = await tg.say(LI.id, LI, "/mock")
    first = message_of(tg, LI.id, started)
    assert "2+2=?" in first.text and "Primes?" not in first.text  # one item, not the paper
    mock = await open_mock(tg, LI)
    assert f"m1:{mock.id}:1:p:A" in mock_buttons(first)  # an answer button per option
    assert f"m1:{mock.id}:1:n" in mock_buttons(first) and f"m1:{mock.id}:1:h" in mock_buttons(first)

    # A click answers item 1: the toast says it is kept (no tick), the message turns to item 2.
    letter = await right_letter(tg, LI, 1)
    toast = await tg.click(LI.id, LI, first.message_id, f"m1:{mock.id}:1:p:{letter}")
    assert toast == t(ZH, "mock.kept", number=1) and "✅" not in toast
    page = await edited(tg, LI.id, first.message_id)
    assert "Primes?" in page["text"] and "2/5" in page["text"]
    assert f"m1:{mock.id}:2:p:A" in mock_buttons(first) and f"m1:{mock.id}:1:p:A" not in mock_buttons(first)

    # /mock 4 shows item 4 (not an error); a typed answer then answers item 4, with item 5 next.
    shown = await tg.say(LI.id, LI, "/mock 4")
    assert "Adam lr halved" in shown["text"] and "4/5" in shown["text"]
    typed = await tg.say(LI.id, LI, "5e-4")
    assert typed["text"].startswith(t(ZH, "mock.kept", number=4)) and "Why attention?" in typed["text"]
    answers = await tg.app.mocks.store.answers(mock.id)  # type: ignore[union-attr]
    assert answers[0].response == "B" and answers[3].response == "5e-4"  # kept in the bank's letters


async def test_a_stale_button_and_another_persons_mock_are_refused(tg: TelegramHarness) -> None:
    await tg.start(language=ZH)
    await tg.say(LI.id, LI, "/mock")
    mock = await open_mock(tg, LI)
    old = message_of(tg, LI.id, await tg.say(LI.id, LI, "/mock 1"))
    await tg.say(LI.id, LI, "/mock 3")  # item 3 is on screen now: item 1's buttons are stale
    toast = await tg.click(LI.id, LI, old.message_id, f"m1:{mock.id}:1:p:A")
    assert toast == t(ZH, "mock.button_refused")
    assert await tg.app.mocks.store.answers(mock.id) == {}  # type: ignore[union-attr]

    # In a group: Bob's mock; Cat presses (and forges) Bob's buttons, nothing changes.
    bob_started = await tg.say(GROUP, BOB, "/mock")
    bob_message = message_of(tg, GROUP.id, bob_started)
    bob_mock = await open_mock(tg, BOB)
    for data in (f"m1:{bob_mock.id}:1:p:A", f"m1:{bob_mock.id}:1:h"):
        toast = await tg.click(GROUP, CAT, bob_message.message_id, data)
        assert toast == t(ZH, "mock.button_refused")
    forged = await tg.click(GROUP, CAT, bob_message.message_id, f"m1:{mock.id}:1:p:A", check=False)
    assert forged == t(ZH, "mock.button_refused")  # Li's mock named from Bob's message
    assert await tg.app.mocks.store.answers(bob_mock.id) == {}  # type: ignore[union-attr]
    assert (await open_mock(tg, BOB)).state == "open"


async def test_hand_in_asks_first_then_a_one_screen_report_opens_each_wrong_item(tg: TelegramHarness) -> None:
    await tg.start(language=ZH)
    started = await tg.say(LI.id, LI, "/mock")
    message = message_of(tg, LI.id, started)
    mock = await open_mock(tg, LI)
    right = await right_letter(tg, LI, 1)
    wrong = next(c for c in "ABCD" if c != right)
    await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:1:p:{wrong}")
    await edited(tg, LI.id, message.message_id)

    await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:2:h")  # 交卷 with 4 items blank
    asked = await edited(tg, LI.id, message.message_id)
    assert t(ZH, "mock.confirm_title", count=4, total=5) in asked["text"]
    assert (await open_mock(tg, LI)) is not None  # not handed in yet
    await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:2:c")  # 确认交卷
    report = await edited(tg, LI.id, message.message_id)
    lines = report["text"].splitlines()
    assert len(lines) <= 8, report["text"]  # score, verdict, time, sections, wrong items, how
    assert t(ZH, "mock.score", score="0", total="16") in report["text"]
    assert t(ZH, "mock.failed", pass_mark="9.6") in report["text"]
    assert t(ZH, "mock.wrong_numbers", count=1, numbers="1") in report["text"]
    assert t(ZH, "mock.blank_numbers", count=4, numbers="2–5") in report["text"]

    await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:1:r")  # open wrong item 1
    item = await edited(tg, LI.id, message.message_id)
    seen = shuffle.shown(tg.bank.question(mock.items[0].question_id), mock.items[0].order)
    for letter, text in seen.options:  # every option's text, as it was shown in this mock
        assert f"{letter}. {text}" in item["text"]
    assert t(ZH, "mock.right_answer", answer=f"{right}（4）") in item["text"]  # the letter with its text
    assert t(ZH, "mock.your_answer", answer=wrong) in item["text"]


async def test_a_multiple_choice_is_toggled_on_its_item_then_next_moves_on(tg: TelegramHarness) -> None:
    await tg.start(language=ZH)
    await tg.say(LI.id, LI, "/mock")
    mock = await open_mock(tg, LI)
    message = message_of(tg, LI.id, await tg.say(LI.id, LI, "/mock 2"))  # Primes? (multiple choice)
    for letter in ("A", "C"):
        toast = await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:2:p:{letter}")
        assert toast == ""  # kept quietly: the item stays, its chosen options ticked
        page = await edited(tg, LI.id, message.message_id)
        assert "Primes?" in page["text"]
    labels = [
        b["text"] for b in message.buttons if b.get("callback_data", "").startswith(f"m1:{mock.id}:2:p:")
    ]
    assert labels == ["✓ A", "B", "✓ C", "D"]
    item = mock.items[1]
    kept = (await tg.app.mocks.store.answers(mock.id))[1].response  # type: ignore[union-attr]
    assert shuffle.to_shown(tg.bank.question(item.question_id), item.order, kept or "") == "A,C"
    await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:2:p:C")  # pressed again: off
    await edited(tg, LI.id, message.message_id)
    await tg.click(LI.id, LI, message.message_id, f"m1:{mock.id}:2:n")  # 下一题 ▶
    page = await edited(tg, LI.id, message.message_id)
    assert "The sky is blue." in page["text"] and "3/5" in page["text"]
    kept = (await tg.app.mocks.store.answers(mock.id))[1].response  # type: ignore[union-attr]
    assert shuffle.to_shown(tg.bank.question(item.question_id), item.order, kept or "") == "A"
