"""Answering on Telegram: multi-choice toggles and 提交, fill-ins by reply in a group, typed
answers in a private chat, short answers with 全对/部分/不会 self-grading."""

from __future__ import annotations

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    ANN,
    BOB,
    CAT,
    GROUP,
    TelegramHarness,
    buttons,
    round_of,
    tg_fixture,  # noqa: F401
)


async def test_multi_choice_toggles_and_submit(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start(language="zh-CN")
    await tg.say(CAT.id, CAT, "/quiz multi")
    question = server.last_message(CAT.id)
    round_id = round_of(question)
    assert question.text.startswith("练习 · 第2题 · 多选题")
    assert buttons(question) == {
        "A": f"t1:{round_id}:A", "B": f"t1:{round_id}:B", "C": f"t1:{round_id}:C",
        "D": f"t1:{round_id}:D", "提交": f"s1:{round_id}", "☆ 收藏": f"f1:{round_id}",
    }  # fmt: skip
    toasts = [await tg.click(CAT.id, CAT, question.message_id, f"t1:{round_id}:{x}") for x in "ACBCD"]
    assert toasts[-1] == t("zh-CN", "select.current", choice="A、B、D")
    assert toasts[1] == t("zh-CN", "select.current", choice="A、C")
    assert await app.store.round_answers(round_id) == []  # toggling answers nothing yet

    assert await tg.click(CAT.id, CAT, question.message_id, f"s1:{round_id}") == "✅ 正确！+2分"
    receipt = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == CAT.id)
    assert "你的答案：A、B、D" in receipt["text"] and "4 is not prime." in receipt["text"]
    [stored] = await app.store.round_answers(round_id)
    assert (stored.response, stored.verdict) == ("A,B,D", "correct")


async def test_submit_with_nothing_selected_records_nothing(tg: TelegramHarness) -> None:
    app = await tg.start()
    server = tg.server
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, ANN, "/quiz multi")
    question = server.last_message(GROUP.id)
    round_id = round_of(question)
    assert await tg.click(GROUP, BOB, question.message_id, f"s1:{round_id}") == t("en", "select.none")
    await tg.click(GROUP, BOB, question.message_id, f"t1:{round_id}:A")
    assert await tg.click(GROUP, BOB, question.message_id, f"t1:{round_id}:A") == t("en", "select.none")
    assert await app.store.round_answers(round_id) == []
    # In a group the keyboard is shared: Ann's own selection, and the toast tells her the answer.
    await tg.click(GROUP, ANN, question.message_id, f"t1:{round_id}:B")
    toast = await tg.click(GROUP, ANN, question.message_id, f"s1:{round_id}")
    assert toast == t("en", "receipt.wrong") + "\n" + t("en", "reveal.correct", answer="A, B, D")


async def test_fill_in_answered_by_reply_in_a_group(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, ANN, "/quiz fill")
    question = server.last_message(GROUP.id)
    assert question.text.startswith("Practice · Q4 · Fill in the blank")
    assert list(buttons(question)) == ["☆ Star"] and t("en", "question.how_fill") in question.text
    round_id = await tg.round_id(question)

    server.user_message(GROUP, BOB, "5e-4 (not a reply: ignored)")
    chatter = server.user_message(GROUP, BOB, "hello")["message"]
    server.user_message(GROUP, BOB, "5e-4", reply_to_message_id=chatter["message_id"])  # not a question
    await tg.settle()
    assert await app.store.round_answers(round_id) == []

    receipt = await tg.say(GROUP, BOB, "5e-4", reply_to=question.message_id)
    assert receipt["text"].startswith(t("en", "receipt.correct", points=2))
    assert "Correct answer: 5e-4" in receipt["text"]
    reply = await tg.say(GROUP, ANN, "0.001", reply_to=question.message_id)
    assert reply["text"].startswith(t("en", "receipt.wrong"))
    answers = {a.display_name: a.verdict for a in await app.store.round_answers(round_id)}
    assert answers == {"Bob": "correct", "Ann": "wrong"}


async def test_typed_answers_in_private_and_self_grading(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    assert (await tg.say(ANN.id, ANN, "hello"))["text"] == t("en", "error.no_round")

    await tg.say(ANN.id, ANN, "/quiz fill")
    receipt = await tg.say(ANN.id, ANN, "5e-4")
    assert receipt["text"].startswith(t("en", "receipt.correct", points=2))

    await tg.say(ANN.id, ANN, "/quiz short")  # a new mode: the fill-in run's summary comes first
    question = await tg.question(ANN.id)
    round_id = await tg.round_id(question)
    pending = await tg.say(ANN.id, ANN, "Attention relates every token to every other.")
    assert pending["text"].startswith(t("en", "receipt.pending"))
    assert "Reference answer: Because it relates tokens." in pending["text"]
    graded = server.last_message(ANN.id)
    assert buttons(graded) == {
        "Got it all": f"g1:{round_id}:full", "Partly": f"g1:{round_id}:half",
        "Missed it": f"g1:{round_id}:zero",
    }  # fmt: skip
    toast = await tg.click(ANN.id, ANN, graded.message_id, f"g1:{round_id}:half")
    assert toast == t("en", "receipt.self_graded", verdict=t("en", "verdict.partial"), points=5)
    await server.wait_for_request("editMessageReplyMarkup", lambda p: p["message_id"] == graded.message_id)
    assert buttons(graded) == {"Next ▶": f"n1:{round_id}"}  # graded: the grade buttons give way
    [stored] = await app.store.round_answers(round_id)
    assert (stored.verdict, stored.points) == ("partial", 5.0)
    # A second grade, from a message whose buttons are gone, is refused and changes nothing.
    again = await tg.click(ANN.id, ANN, graded.message_id, f"g1:{round_id}:full", check=False)
    assert again == t("en", "receipt.closed")
    assert (await app.store.round_answers(round_id))[0].points == 5.0


async def test_a_click_under_a_message_telegram_no_longer_shows_still_counts(tg: TelegramHarness) -> None:
    """Telegram may send the clicked message as inaccessible (its chat, its id, a date of 0, no
    keyboard). That says nothing about its buttons: the click is judged on the round alone
    (it was refused with 本题已结束 when the missing keyboard was taken for a removed one)."""
    server = tg.server
    app = await tg.start(language="zh-CN")
    await tg.say(GROUP, ANN, "/quiz multi")
    question = server.last_message(GROUP.id)
    round_id = round_of(question)
    old = {"inaccessible": True}
    toggled = await tg.click(GROUP, BOB, question.message_id, f"t1:{round_id}:A", **old)
    assert toggled == t("zh-CN", "select.current", choice="A")
    submitted = await tg.click(GROUP, BOB, question.message_id, f"s1:{round_id}", **old)
    assert submitted.startswith(t("zh-CN", "receipt.wrong"))
    [stored] = await app.store.round_answers(round_id)
    assert (stored.response, stored.verdict) == ("A", "wrong")
