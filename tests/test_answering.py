"""The answering use cases every platform shares: clicks checked and recorded once, typed
answers found by the round they answer, and a self-grade typed in the chat's words."""

from __future__ import annotations

from bot.application.answering import (
    Answering,
    FormReply,
    ReceiptReply,
    SelectionReply,
    TextReply,
    typed_level,
)
from bot.application.clicks import Act, Click
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef

GROUP = ChatRef(Platform.TELEGRAM, "-5", ChatKind.GROUP, title="g")
OTHER = ChatRef(Platform.TELEGRAM, "-6", ChatKind.GROUP, title="h")
ANN = UserRef(Platform.TELEGRAM, "1", "Ann")


async def _posted(quiz, clock, question_id, chat=GROUP):
    from datetime import timedelta

    from bot.domain.kinds import RoundKind

    record = await quiz.chat(chat)
    question = quiz.bank_for(record).question(question_id)
    now = clock.now()
    round_ = await quiz.open_round(record, question, RoundKind.PRACTICE, now, now + timedelta(hours=1))
    await quiz.set_message_ref(round_.id, f"m{round_.id}")
    return round_


def _click(round_, act, token=None, chat=GROUP, message=None):
    return Click(round_.id, Platform.TELEGRAM, chat.chat_key, message or f"m{round_.id}", act, token,
                 control=f"c{round_.id}", controls=None)  # fmt: skip


async def test_multi_choice_toggle_then_submit(quiz, clock):
    answering = Answering(quiz)
    round_ = await _posted(quiz, clock, "s-2")
    assert await answering.click(_click(round_, Act.TOGGLE, "A"), ANN, GROUP) == SelectionReply("A", "en")
    await answering.click(_click(round_, Act.TOGGLE, "D"), ANN, GROUP)
    reply = await answering.click(_click(round_, Act.SUBMIT), ANN, GROUP)
    assert isinstance(reply, ReceiptReply) and reply.recorded and reply.receipt.response == "A,D"


async def test_forged_clicks_are_closed_and_record_nothing(quiz, clock):
    answering = Answering(quiz)
    round_ = await _posted(quiz, clock, "s-1")
    forged = [
        _click(round_, Act.ANSWER, "B", chat=OTHER),  # another chat
        _click(round_, Act.ANSWER, "B", message="m999"),  # another message
        _click(round_, Act.ANSWER, "Z"),  # no such option
        _click(round_, Act.TOGGLE, "B"),  # a toggle on a single-choice question
    ]
    for click in forged:
        reply = await answering.click(click, ANN, GROUP)
        assert isinstance(reply, TextReply) and reply.closed
    assert await quiz.store.user_answer(round_.id, await quiz.user_id(ANN)) is None


async def test_form_opens_only_for_typed_questions(quiz, clock):
    answering = Answering(quiz)
    fill = await _posted(quiz, clock, "s-4")
    assert await answering.click(_click(fill, Act.OPEN_FORM), ANN, GROUP) == FormReply(fill.id, False, "en")
    reply = await answering.click(_click(fill, Act.FORM, "5e-4"), ANN, GROUP)
    assert isinstance(reply, ReceiptReply) and reply.receipt.verdict == "correct"


async def test_typed_answers_find_their_round_and_self_grade_words(quiz, clock):
    answering = Answering(quiz)
    await quiz.update_settings(GROUP, language="en")
    short = await _posted(quiz, clock, "s-5")
    first = await answering.typed(GROUP, ANN, "attention relates tokens", reply_to=f"m{short.id}")
    assert isinstance(first, ReceiptReply) and first.awaits_self_grade
    graded = await answering.typed(GROUP, ANN, "Got it all")  # the button's words, typed
    assert isinstance(graded, ReceiptReply) and graded.receipt.verdict == "correct"
    again = await answering.typed(GROUP, ANN, "Partly")  # graded already: not a second answer
    assert isinstance(again, TextReply) and again.text.startswith("This question is graded already")
    stored = await quiz.store.user_answer(short.id, await quiz.user_id(ANN))
    assert stored is not None and stored.verdict == "correct"
    nothing_open = await answering.typed(OTHER, ANN, "x")
    assert isinstance(nothing_open, TextReply) and not nothing_open.closed


async def test_typed_answer_to_another_chats_round_is_refused(quiz, clock):
    answering = Answering(quiz)
    round_ = await _posted(quiz, clock, "s-4")
    reply = await answering.typed(OTHER, ANN, "5e-4", round_id=round_.id)
    assert isinstance(reply, TextReply)
    assert await quiz.store.user_answer(round_.id, await quiz.user_id(ANN)) is None


def test_typed_levels_in_every_language():
    words = ("Got it all", "partly", "MISSED IT", "全对", "部分", "不會", "2", "maybe")
    assert [typed_level(w) for w in words] == ["full", "half", "zero", "full", "half", "zero", "half", None]
