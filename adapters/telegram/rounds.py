"""Which round a Telegram question message carries, kept in memory (bounded) for replies.

After a restart a reply's round is found by the application from the replied message's stored
reference instead (`Answering.typed(reply_to=...)`).
"""

from __future__ import annotations

from collections import OrderedDict


class RoundIndex:
    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._by_message: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._last: OrderedDict[int, int] = OrderedDict()

    def posted(self, chat_id: int, message_id: int, round_id: int) -> None:
        self._by_message[(chat_id, message_id)] = round_id
        self._last[chat_id] = round_id
        self._last.move_to_end(chat_id)
        for index in (self._by_message, self._last):
            while len(index) > self.size:
                index.popitem(last=False)

    def by_message(self, chat_id: int, message_id: int) -> int | None:
        return self._by_message.get((chat_id, message_id))

    def last(self, chat_id: int) -> int | None:
        return self._last.get(chat_id)
