"""The fake Telegram server's world: chats, users, messages, the update queue, and the test-side
actions that change it (users writing and clicking, blocking, kicking, migrating groups)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tests.fakes.telegram_format import utf16_len
from tests.fakes.telegram_model import (
    FakeChat,
    FakeFile,
    FakeMessage,
    FakeUser,
    as_chat,
    as_user,
    chat_member_json,
)

T = TypeVar("T")
ChatLike = FakeChat | dict[str, Any] | int
UserLike = FakeUser | dict[str, Any]

_COMMAND_RE = re.compile(r"(?<![\w/])/[a-zA-Z0-9_]{1,64}(?:@[a-zA-Z0-9_]{3,32})?(?![\w@])")
# Update types Telegram leaves out when allowed_updates was never given.
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class Signal:
    """Wake-up for anyone waiting on server state; notify() is sync so test code can call it."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.listeners: list[Callable[[], None]] = []  # called on every notify (webhook delivery)

    def notify(self) -> None:
        self._event.set()
        self._event = asyncio.Event()
        for listener in self.listeners:
            listener()

    async def wait_for(self, predicate: Callable[[], T]) -> T:
        """Return predicate()'s first truthy value, re-checked after every notify()."""
        while True:
            event = self._event
            result = predicate()
            if result:
                return result
            await event.wait()


@dataclass
class CallbackQueryState:
    id: str
    chat_id: int
    message_id: int
    data: str
    answer: dict[str, Any] | None = None
    expired: bool = False


class TelegramWorld:
    """State shared by the HTTP side (bot calls) and the test side (simulated users)."""

    def __init__(self, token: str, bot_username: str, bot_name: str) -> None:
        self.token = token
        self.bot_user = FakeUser(int(token.split(":", 1)[0]), bot_name, bot_username, is_bot=True)
        self.chats: dict[int, FakeChat] = {}
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.callbacks: dict[str, CallbackQueryState] = {}
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.menu_buttons: dict[int | None, dict[str, Any]] = {}
        self.webhook: dict[str, Any] = {}
        self.blocked: set[int] = set()
        self.migrated: dict[int, int] = {}
        self.files: dict[str, FakeFile] = {}  # documents users sent, by file_id (getFile)
        self._messages: dict[int, dict[int, FakeMessage]] = {}
        self._statuses: dict[tuple[int, int], str] = {}
        self._updates: list[dict[str, Any]] = []
        self._next_update_id = 1
        self._allowed_updates: list[str] | None = None
        self.closing = False
        self.poll_generation = 0  # a newer getUpdates ends an older one, as on Telegram
        self.waiting_polls = 0  # getUpdates calls being held right now (long polling)
        self._signal = Signal()

    # -- chats, users, members ----------------------------------------------------------------

    def add_user(self, user: UserLike) -> FakeUser:
        user = as_user(user)
        self.users[user.id] = user
        return user

    def add_chat(self, chat: ChatLike) -> FakeChat:
        chat = as_chat(chat)
        self.chats.setdefault(chat.id, chat)
        self._messages.setdefault(chat.id, {})
        return self.chats[chat.id]

    def private_chat(self, user: UserLike) -> FakeChat:
        user = self.add_user(user)
        return self.add_chat(FakeChat(user.id, "private", first_name=user.first_name,
                                      username=user.username))

    def set_member_status(self, chat_id: int, user: UserLike | int, status: str) -> None:
        """Status of ``user`` in ``chat_id``: creator, administrator, member, left, kicked..."""
        user_id = user if isinstance(user, int) else self.add_user(user).id
        chat_member_json(self.users.get(user_id, FakeUser(user_id)), status)  # checks status
        self._statuses[(chat_id, user_id)] = status

    def member_status(self, chat_id: int, user_id: int) -> str:
        default = "member" if user_id == self.bot_user.id or user_id == chat_id else "left"
        return self._statuses.get((chat_id, user_id), default)

    # -- messages -----------------------------------------------------------------------------

    def messages_in(
        self, chat_id: int, *, from_bot: bool | None = True, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages of a chat in order; by default the bot's, not deleted, in their latest form."""
        return [
            m for m in self._messages.get(chat_id, {}).values()
            if (from_bot is None or m.from_bot == from_bot) and (include_deleted or not m.deleted)
        ]

    def last_message(self, chat_id: int) -> FakeMessage:
        messages = self.messages_in(chat_id)
        if not messages:
            raise LookupError(f"the bot has no message in chat {chat_id}")
        return messages[-1]

    def find_message(self, chat_id: int, message_id: int) -> FakeMessage | None:
        message = self._messages.get(chat_id, {}).get(message_id)
        return None if message is None or message.deleted else message

    def store_message(self, message: FakeMessage) -> FakeMessage:
        self._messages.setdefault(message.chat_id, {})[message.message_id] = message
        self._signal.notify()
        return message

    def next_message_id(self, chat_id: int) -> int:
        return max(self._messages.get(chat_id, {}), default=0) + 1

    # -- updates ------------------------------------------------------------------------------

    def queue_update(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue an update of any kind (message, callback_query, my_chat_member, ...)."""
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self._updates.append(update)
        self._signal.notify()
        return update

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates not yet confirmed by a getUpdates offset."""
        return list(self._updates)

    def user_message(
        self, chat: ChatLike, user: UserLike, text: str, reply_to_message_id: int | None = None
    ) -> dict[str, Any]:
        """A user writes ``text`` in ``chat``; returns the queued update (JSON dict)."""
        user = self.add_user(user)
        if chat == user.id and chat not in self.chats:
            chat = self.private_chat(user)
        chat = self.add_chat(chat)
        if (chat.id, user.id) not in self._statuses and chat.type != "private":
            self._statuses[(chat.id, user.id)] = "member"
        reply_to = None
        if reply_to_message_id is not None:
            reply_to = self.find_message(chat.id, reply_to_message_id)
            if reply_to is None:
                raise LookupError(f"no message {reply_to_message_id} in chat {chat.id}")
        entities = [
            {"type": "bot_command", "offset": utf16_len(text[: m.start()]),
             "length": utf16_len(m.group(0))}
            for m in _COMMAND_RE.finditer(text)
        ]
        message = self.store_message(FakeMessage(
            self.next_message_id(chat.id), chat, user, text, entities, reply_to=reply_to,
        ))
        return self.queue_update("message", message.to_json())

    def user_document(
        self, chat: ChatLike, user: UserLike, filename: str, data: bytes, caption: str = ""
    ) -> dict[str, Any]:
        """A user sends a file as a document (with ``caption``); the bot gets it with getFile and
        then from ``/file/bot<token>/<file_path>``, as from Telegram. Returns the queued update."""
        user = self.add_user(user)
        if chat == user.id and chat not in self.chats:
            chat = self.private_chat(user)
        chat = self.add_chat(chat)
        if (chat.id, user.id) not in self._statuses and chat.type != "private":
            self._statuses[(chat.id, user.id)] = "member"
        file = FakeFile("document", filename, data)
        self.files[file.file_id] = file
        message = FakeMessage(self.next_message_id(chat.id), chat, user, caption=caption, file=file)
        payload = message.to_json()
        entities = [
            {"type": "bot_command", "offset": utf16_len(caption[: m.start()]),
             "length": utf16_len(m.group(0))}
            for m in _COMMAND_RE.finditer(caption)
        ]
        if entities:
            payload["caption_entities"] = entities
        self.store_message(message)
        return self.queue_update("message", payload)

    def user_click(
        self, chat: ChatLike, user: UserLike, message_id: int, data: str, *, check: bool = True,
        inaccessible: bool = False,
    ) -> str:  # fmt: skip
        """A user presses the inline button with ``data``; returns the callback_query id.

        With ``check`` the message must exist and carry such a button, as in a real client. With
        ``inaccessible`` the update carries the message as Telegram sends one it no longer shows
        the bot (an InaccessibleMessage: its chat, its id and a date of 0).
        """
        user = self.add_user(user)
        chat = self.add_chat(chat)
        message = self.find_message(chat.id, message_id)
        if check and (message is None or data not in message.callback_data):
            raise LookupError(f"message {message_id} in chat {chat.id} has no button {data!r}")
        query_id = str(4_000_000_000_000 + len(self.callbacks) + 1)
        self.callbacks[query_id] = CallbackQueryState(query_id, chat.id, message_id, data)
        payload: dict[str, Any] = {
            "id": query_id, "from": user.to_json(), "chat_instance": f"ci{abs(chat.id)}",
            "data": data,
        }
        if inaccessible:
            payload["message"] = {"chat": chat.to_json(), "message_id": message_id, "date": 0}
        elif message is not None:
            payload["message"] = message.to_json()
        self.queue_update("callback_query", payload)
        return query_id

    def expire_callback(self, query_id: str) -> None:
        """Make answering ``query_id`` fail as if the answer came too late."""
        self.callbacks[query_id].expired = True

    # -- what happens to chats ------------------------------------------------------------------

    def _member_update(self, chat_id: int, by: FakeUser, new_status: str) -> None:
        old_status = self.member_status(chat_id, self.bot_user.id)
        self._statuses[(chat_id, self.bot_user.id)] = new_status
        self.queue_update("my_chat_member", {
            "chat": self.chats[chat_id].to_json(), "from": by.to_json(),
            "date": int(time.time()),
            "old_chat_member": chat_member_json(self.bot_user, old_status),
            "new_chat_member": chat_member_json(self.bot_user, new_status),
        })

    def _actor(self, chat_id: int, by: UserLike | None) -> FakeUser:
        if by is not None:
            return self.add_user(by)
        if chat_id > 0:
            return self.users.get(chat_id) or self.add_user(FakeUser(chat_id))
        return self.add_user(FakeUser(1000, "Group Admin", "group_admin"))

    def block_chat(self, chat_id: int, *, notify: bool = True) -> None:
        """The private chat's user blocks the bot: sends answer 403 from now on."""
        self.add_chat(chat_id)
        self.blocked.add(chat_id)
        if notify:
            self._member_update(chat_id, self._actor(chat_id, None), "kicked")

    def unblock_chat(self, chat_id: int, *, notify: bool = True) -> None:
        self.blocked.discard(chat_id)
        if notify:
            self._member_update(chat_id, self._actor(chat_id, None), "member")

    def kick_bot(self, chat_id: int, status: str = "kicked", by: UserLike | None = None) -> None:
        """Remove the bot from a group (``kicked`` or ``left``); queues a my_chat_member update."""
        if status not in ("kicked", "left"):
            raise ValueError("status must be 'kicked' or 'left'")
        self.add_chat(chat_id)
        self._member_update(chat_id, self._actor(chat_id, by), status)

    def migrate_group(self, old_id: int, new_id: int, by: UserLike | None = None) -> FakeChat:
        """Upgrade group ``old_id`` to supergroup ``new_id`` and queue both service messages."""
        old = self.add_chat(FakeChat(old_id, "group"))
        new = self.add_chat(FakeChat(new_id, "supergroup", title=old.title))
        for (chat_id, user_id), status in list(self._statuses.items()):
            if chat_id == old_id:
                self._statuses.setdefault((new_id, user_id), status)
        self.migrated[old_id] = new_id
        actor = self._actor(old_id, by)
        for chat, field, other in ((old, "migrate_to_chat_id", new_id),
                                   (new, "migrate_from_chat_id", old_id)):
            message = self.store_message(FakeMessage(
                self.next_message_id(chat.id), chat, actor, service={field: other}
            ))
            self.queue_update("message", message.to_json())
        return new

    # -- delivery -----------------------------------------------------------------------------

    def _deliverable(self, update: dict[str, Any]) -> bool:
        kind = next(key for key in update if key != "update_id")
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in _OPT_IN_UPDATES

    def confirm_updates(self, offset: int, allowed_updates: list[str] | None) -> None:
        if allowed_updates is not None:
            self._allowed_updates = allowed_updates
        if offset < 0:
            self._updates = self._updates[offset:]
        elif offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        self._updates = [u for u in self._updates if self._deliverable(u)]
