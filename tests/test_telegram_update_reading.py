"""Reading updates with a click's message parsed once (adapters/telegram/update_reading.py).

The reader must make exactly what `Update.de_json` makes from the same JSON, for every kind of
update and every message a click may carry (texts, entities, keyboards, chats, messages too old
to read, fields PTB does not know), while parsing a message that many clicks share only once.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from telegram import Bot, Update

from adapters.telegram.update_reading import UpdateReader

BOT = Bot("123456:TEST-token-not-used")

_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)
_ids = st.integers(min_value=-(10**13), max_value=10**13)


@st.composite
def _chats(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["private", "group", "supergroup", "channel"]))
    chat: dict[str, Any] = {"id": draw(_ids), "type": kind}
    if kind == "private":
        chat["first_name"] = draw(_text)
    else:
        chat["title"] = draw(_text)
    if draw(st.booleans()):
        chat["username"] = draw(st.from_regex(r"[a-z][a-z0-9_]{4,20}", fullmatch=True))
    return chat


@st.composite
def _users(draw: st.DrawFn, is_bot: bool | None = None) -> dict[str, Any]:
    user: dict[str, Any] = {
        "id": draw(st.integers(1, 10**12)),
        "is_bot": draw(st.booleans()) if is_bot is None else is_bot,
        "first_name": draw(_text),
    }
    if draw(st.booleans()):
        user["language_code"] = draw(st.sampled_from(["zh-hans", "zh-hant", "en", "de", ""]))
    return user


@st.composite
def _keyboards(draw: st.DrawFn) -> dict[str, Any]:
    rows = draw(st.lists(
        st.lists(st.fixed_dictionaries({"text": _text, "callback_data": _text}), min_size=1, max_size=5),
        max_size=4,
    ))  # fmt: skip
    return {"inline_keyboard": rows}


@st.composite
def _messages(draw: st.DrawFn, chat: dict[str, Any], message_id: int) -> dict[str, Any]:
    if draw(st.integers(0, 9)) == 0:  # too old for Telegram to say what it carries
        return {"chat": chat, "message_id": message_id, "date": 0}
    message: dict[str, Any] = {
        "message_id": message_id, "chat": chat, "date": draw(st.integers(1, 2**31 - 1)),
        "from": draw(_users(is_bot=True)),
    }  # fmt: skip
    text = draw(_text)
    if draw(st.booleans()):
        message["text"] = text
        if text and draw(st.booleans()):
            kind = draw(st.sampled_from(["bold", "italic", "code", "spoiler"]))
            message["entities"] = [{"type": kind, "offset": 0, "length": len(text)}]
    else:
        message["caption"] = text
        message["photo"] = [{"file_id": "AgAD", "file_unique_id": "u1", "width": 90, "height": 60}]
    if draw(st.booleans()):
        message["reply_markup"] = draw(_keyboards())
    if draw(st.booleans()):
        message["edit_date"] = draw(st.integers(1, 2**31 - 1))
    if draw(st.booleans()):  # a field this version of PTB does not know: kept in api_kwargs
        message["future_field"] = {"nested": [1, "二"]}
    return message


@st.composite
def _clicks(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A burst of clicks under a few messages, some edited between clicks."""
    chats = draw(st.lists(_chats(), min_size=1, max_size=3, unique_by=lambda c: c["id"]))
    messages = [draw(_messages(draw(st.sampled_from(chats)), draw(st.integers(1, 5)))) for _ in range(3)]
    updates = []
    for update_id in range(draw(st.integers(1, 12))):
        query: dict[str, Any] = {
            "id": str(draw(st.integers(1, 10**15))), "from": draw(_users(is_bot=False)),
            "chat_instance": draw(_text), "data": draw(_text),
        }  # fmt: skip
        if draw(st.integers(0, 9)):
            query["message"] = copy.deepcopy(draw(st.sampled_from(messages)))
        if draw(st.booleans()):
            query["future_field"] = draw(_text)
        updates.append({"update_id": update_id, "callback_query": query})
    return updates


def _same(ours: Update, theirs: Update) -> None:
    assert ours.to_dict() == theirs.to_dict()
    assert ours.api_kwargs == theirs.api_kwargs
    if theirs.callback_query is not None:
        assert ours.callback_query is not None
        assert ours.callback_query.api_kwargs == theirs.callback_query.api_kwargs
        mine, want = ours.callback_query.message, theirs.callback_query.message
        assert type(mine) is type(want)
        if want is not None:
            assert mine is not None
            assert mine.api_kwargs == want.api_kwargs
            assert mine.get_bot() is BOT
    assert ours.get_bot() is BOT


@settings(max_examples=150, deadline=None)
@given(_clicks())
def test_a_burst_of_clicks_reads_as_ptb_reads_it(updates: list[dict[str, Any]]) -> None:
    reader = UpdateReader(BOT, kept=2)  # fewer than the messages: some are forgotten and parsed again
    for raw in updates:
        pristine = copy.deepcopy(raw)
        ours = reader.read(raw)
        assert raw == pristine  # what was given is left as it was
        _same(ours, Update.de_json(copy.deepcopy(raw), BOT))


def test_clicks_under_one_message_share_its_parse_and_an_edit_is_read_afresh() -> None:
    chat = {"id": -1001234, "type": "supergroup", "title": "人工智能训练师"}
    keyboard = {"inline_keyboard": [[{"text": c, "callback_data": f"a:7:{c}"} for c in "ABCD"]]}
    question = {
        "message_id": 41, "chat": chat, "date": 1_765_000_000, "text": "第 1 题", "reply_markup": keyboard,
    }  # fmt: skip

    def click(update_id: int, message: dict[str, Any]) -> dict[str, Any]:
        user = {"id": 500 + update_id, "is_bot": False, "first_name": f"学员{update_id}"}
        query = {"id": str(update_id), "from": user, "chat_instance": "ci", "data": "a:7:B"}
        return {"update_id": update_id, "callback_query": {**query, "message": copy.deepcopy(message)}}

    reader = UpdateReader(BOT)
    first, second = reader.read(click(1, question)), reader.read(click(2, question))
    assert first.callback_query is not None and second.callback_query is not None
    assert second.callback_query.message is first.callback_query.message
    assert second.callback_query.from_user is not None and second.callback_query.from_user.id == 502

    revealed = {**question, "text": "第 1 题\n答案：B", "edit_date": 1_765_000_060}
    del revealed["reply_markup"]
    third = reader.read(click(3, revealed)).callback_query
    assert third is not None and third.message is not first.callback_query.message
    assert getattr(third.message, "text", None) == "第 1 题\n答案：B"
    assert getattr(third.message, "reply_markup", "missing") is None

    # Another chat's message 41 is another message.
    elsewhere = reader.read(click(4, {**question, "chat": {**chat, "id": -1009}})).callback_query
    assert elsewhere is not None and elsewhere.message is not first.callback_query.message
    assert elsewhere.message is not None and elsewhere.message.chat.id == -1009


_FROM = {"id": 1, "is_bot": False, "first_name": "学员"}
_PRIVATE = {"id": 1, "type": "private"}


def _query(**fields: Any) -> dict[str, Any]:
    return {"update_id": 1, "callback_query": {"id": "q", "from": _FROM, "chat_instance": "c", **fields}}


@pytest.mark.parametrize(
    "raw",
    [
        {"update_id": 1, "message": {"message_id": 1, "date": 1, "chat": _PRIVATE, "text": "/start"}},
        {"update_id": 2, "my_chat_member": None},
        _query(inline_message_id="im"),
        # a message too old for Telegram to say what it carries (its date is 0)
        _query(message={"message_id": 3, "date": 0, "chat": _PRIVATE}),
        # ids nothing can be keyed on, and messages PTB cannot read: as PTB does, raised or not
        _query(message={"message_id": [1], "date": 1, "chat": {"id": {}, "type": "group"}}),
        _query(message={"message_id": 1, "chat": "nope"}),
        _query(message={}),
        {"update_id": 7, "callback_query": {"id": "q", "chat_instance": "c", "message": {}}},
        {"update_id": 8, "callback_query": "not an object"},
        ["not", "an", "update"],
    ],
)
def test_other_updates_and_broken_ones_read_or_fail_as_ptb_does(raw: Any) -> None:
    try:
        theirs = Update.de_json(copy.deepcopy(raw), BOT)
    except Exception as exc:
        with pytest.raises(type(exc)):
            UpdateReader(BOT).read(copy.deepcopy(raw))
        return
    _same(UpdateReader(BOT).read(copy.deepcopy(raw)), theirs)
