"""Which round a Telegram message belongs to: question messages and each chat's latest question.

Kept in memory (bounded); after a restart a reply's round is found by the question message's
stored message_ref, and a private text answers the chat's current open round.
"""

from __future__ import annotations

from collections import OrderedDict

from adapters.telegram.render import message_ref
from bot.kinds import ChatRef
from bot.quiz import Quiz


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

    async def for_reply(self, quiz: Quiz, ref: ChatRef, chat_id: int, message_id: int) -> int | None:
        """The round whose question is message `message_id` (a group member replied to it)."""
        found = self.by_message(chat_id, message_id)
        if found is not None:
            return found
        posted = await quiz.round_for_message(ref, message_ref(chat_id, message_id))
        return posted.id if posted is not None else None

    async def for_text(self, quiz: Quiz, ref: ChatRef, chat_id: int) -> int | None:
        """The round a plain text message in a private chat answers: the latest open question."""
        last = self.last(chat_id)
        if last is not None and await quiz.answerable(last) is not None:
            return last
        current = await quiz.current_round(ref)
        return current.id if current is not None else None
