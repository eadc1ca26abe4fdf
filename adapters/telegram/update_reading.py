"""Reading Telegram's updates, with the message under a burst of clicks parsed once.

A click (a callback query) carries the whole message its button is under: the question's text,
its entities and its keyboard. In a group, hundreds of members press a button under the same
question within seconds, and PTB parsing that same message again for every click was the
largest single cost of handling one (about 120 of the 150 µs `Update.de_json` took per click;
`benchmarks/clicks.py --profile`).

PTB's objects are frozen once parsed, so one parsed `Message` can stand in every click that
carries the same message. What decides is equality of the message's JSON, not its id: an edited
message (new text, a keyboard gone) is parsed afresh, and an update read here is the object
`Update.de_json` would have made from the same JSON.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from telegram import Bot, MaybeInaccessibleMessage, Message, Update

KEPT = 64  # messages remembered: the questions being clicked right now, in every chat


class UpdateReader:
    """`Update.de_json` for the bot's updates, reusing the parsed message of recent clicks."""

    def __init__(self, bot: Bot, kept: int = KEPT) -> None:
        self.bot = bot
        self.kept = kept
        self._messages: OrderedDict[Hashable, tuple[dict[str, Any], MaybeInaccessibleMessage]] = OrderedDict()

    def read(self, raw: Any) -> Update:
        """The update `raw` (decoded JSON); raises as `Update.de_json` does on one PTB cannot read."""
        query = raw.get("callback_query") if isinstance(raw, dict) else None
        message_json = query.get("message") if isinstance(query, dict) else None
        if not isinstance(message_json, dict):
            return Update.de_json(raw, self.bot)
        assert isinstance(query, dict)
        message = self._message(message_json)
        without = {key: value for key, value in query.items() if key != "message"}
        update = Update.de_json({**raw, "callback_query": without}, self.bot)
        callback_query = update.callback_query
        if callback_query is not None:
            # The one field left out above; frozen objects are set this way by PTB itself
            # (python-telegram-bot<23 is pinned, as for the poller's `Bot._post`).
            with callback_query._unfrozen():
                callback_query.message = message
        return update

    def _message(self, data: dict[str, Any]) -> MaybeInaccessibleMessage:
        chat = data.get("chat")
        key = (chat.get("id") if isinstance(chat, dict) else None, data.get("message_id"))
        try:
            known = self._messages.get(key)
        except TypeError:  # an id that is not a number or a string: nothing to remember it by
            return Message.de_json(data, self.bot)
        if known is not None and known[0] == data:
            self._messages.move_to_end(key)
            return known[1]
        message = Message.de_json(data, self.bot)  # what CallbackQuery.de_json does with it
        self._messages[key] = (data, message)
        self._messages.move_to_end(key)
        while len(self._messages) > self.kept:
            self._messages.popitem(last=False)
        return message
