"""What the quiz core keeps in memory between calls: chats, users and open rounds by id.

The database stays the source of truth; entries are dropped whenever what they copy changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.domain.questions import Question
from bot.domain.records import Chat, Round


@dataclass(frozen=True, slots=True)
class RoundContext:
    round: Round
    chat: Chat
    question: Question


class QuizCache:
    def __init__(self) -> None:
        self.users: dict[tuple[str, str], tuple[int, str]] = {}  # (platform, user key) -> id, name
        self._chats: dict[tuple[str, str], Chat] = {}
        self._chat_keys: dict[int, tuple[str, str]] = {}  # chat id -> its key in _chats
        self._rounds: dict[int, RoundContext] = {}
        self._chat_rounds: dict[int, set[int]] = {}  # chat id -> ids of its cached rounds

    def chat(self, key: tuple[str, str]) -> Chat | None:
        return self._chats.get(key)

    def put_chat(self, key: tuple[str, str], chat: Chat) -> None:
        self._chats[key] = chat
        self._chat_keys[chat.id] = key

    def forget_chat(self, chat_id: int) -> None:
        """Drop a chat's cached settings (and its rounds', which carry them): O(its own entries)."""
        key = self._chat_keys.pop(chat_id, None)
        if key is not None:
            self._chats.pop(key, None)
        for round_id in self._chat_rounds.pop(chat_id, ()):
            self._rounds.pop(round_id, None)

    def round(self, round_id: int) -> RoundContext | None:
        return self._rounds.get(round_id)

    def put_round(self, context: RoundContext) -> None:
        self._rounds[context.round.id] = context
        self._chat_rounds.setdefault(context.chat.id, set()).add(context.round.id)

    def set_message_ref(self, round_id: int, message_ref: str) -> None:
        context = self._rounds.get(round_id)
        if context is not None:
            self._rounds[round_id] = replace(context, round=replace(context.round, message_ref=message_ref))

    def drop_round(self, round_id: int) -> None:
        context = self._rounds.pop(round_id, None)
        if context is not None:
            self._chat_rounds.get(context.chat.id, set()).discard(round_id)
