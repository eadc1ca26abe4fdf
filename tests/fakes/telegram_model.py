"""Data kept by the fake Telegram server (users, chats, messages) and their Bot API JSON forms."""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field
from typing import Any

MEMBER_STATUSES = ("creator", "administrator", "member", "restricted", "left", "kicked")


class ApiError(Exception):
    """A Bot API error answer: HTTP status ``code``, Telegram's ``description``."""

    def __init__(
        self, code: int, description: str, parameters: dict[str, Any] | None = None,
        html: str | None = None,
    ) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description
        self.parameters = parameters
        # A body that is not the Bot API's JSON: the HTML page a proxy or load balancer before
        # the API answers with (nginx's "502 Bad Gateway" while Telegram's backend restarts).
        self.html = html

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False, "error_code": self.code, "description": self.description
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(reason: str, **parameters: Any) -> ApiError:
    return ApiError(400, f"Bad Request: {reason}", parameters or None)


@dataclass(frozen=True)
class FakeUser:
    id: int
    first_name: str = "Tester"
    username: str | None = None
    language_code: str | None = None
    last_name: str | None = None
    is_bot: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class FakeChat:
    id: int
    type: str = "private"  # private | group | supergroup | channel
    title: str | None = None
    username: str | None = None
    first_name: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private":
            data["first_name"] = self.first_name or "Tester"
        else:
            data["title"] = self.title or f"Test {self.type} {self.id}"
        if self.username:
            data["username"] = self.username
        return data

    def full_info(self) -> dict[str, Any]:
        """ChatFullInfo as getChat answers it (only the fields the spec requires, plus names)."""
        gifts = dict.fromkeys(
            ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription",
             "gifts_from_channels"),
            False,
        )
        return {
            **self.to_json(), "accent_color_id": 0, "max_reaction_count": 11,
            "accepted_gift_types": gifts,
        }


def as_user(user: FakeUser | dict[str, Any]) -> FakeUser:
    return user if isinstance(user, FakeUser) else FakeUser(**user)


def as_chat(chat: FakeChat | dict[str, Any] | int) -> FakeChat:
    if isinstance(chat, FakeChat):
        return chat
    if isinstance(chat, int):
        kind = "private" if chat > 0 else "supergroup" if chat < -10**12 else "group"
        return FakeChat(chat, kind)
    return FakeChat(**chat)


@dataclass
class MessageVersion:
    """One earlier state of an edited message."""

    text: str
    entities: list[dict[str, Any]]
    reply_markup: dict[str, Any] | None


@dataclass(frozen=True)
class FakeFile:
    """A file the bot uploaded with sendPhoto or sendDocument, as the test sees it."""

    kind: str  # photo | document
    filename: str
    data: bytes

    @property
    def file_id(self) -> str:
        return f"{self.kind}-{len(self.data)}-{zlib.crc32(self.data):08x}"

    @property
    def file_path(self) -> str:
        """Where getFile says the file is: ``/file/bot<token>/<file_path>`` serves it."""
        suffix = self.filename[self.filename.rfind(".") :] if "." in self.filename else ""
        return f"documents/{self.file_id}{suffix}"

    def to_json(self) -> dict[str, Any]:
        file_id = self.file_id
        base = {"file_id": file_id, "file_unique_id": file_id, "file_size": len(self.data)}
        if self.kind == "photo":
            # PNG keeps its size in the IHDR chunk; anything else gets a nominal size.
            png = self.data[:8] == b"\x89PNG\r\n\x1a\n"
            width = int.from_bytes(self.data[16:20], "big") if png else 1
            height = int.from_bytes(self.data[20:24], "big") if png else 1
            return {"photo": [{**base, "width": width, "height": height}]}
        return {"document": {**base, "file_name": self.filename}}


@dataclass
class FakeMessage:
    """A message in a fake chat: sent by the bot (``from_bot``) or by a simulated user."""

    message_id: int
    chat: FakeChat
    sender: FakeUser
    text: str = ""
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    from_bot: bool = False
    date: int = field(default_factory=lambda: int(time.time()))
    reply_to: FakeMessage | None = None
    edit_date: int | None = None
    history: list[MessageVersion] = field(default_factory=list)
    deleted: bool = False
    service: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)  # the send/edit call that made it
    caption: str = ""
    file: FakeFile | None = None  # a photo or document the bot uploaded

    @property
    def chat_id(self) -> int:
        return self.chat.id

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """The inline keyboard's buttons, row after row."""
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [button for row in rows for button in row]

    @property
    def callback_data(self) -> list[str]:
        return [b["callback_data"] for b in self.buttons if "callback_data" in b]

    def to_json(self, *, with_reply: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": self.message_id,
            "from": self.sender.to_json(),
            "chat": self.chat.to_json(),
            "date": self.date,
            **self.service,
        }
        if self.text:
            data["text"] = self.text
        if self.caption:
            data["caption"] = self.caption
        if self.file is not None:
            data.update(self.file.to_json())
        if self.entities:
            data["entities"] = self.entities
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if with_reply and self.reply_to is not None:
            data["reply_to_message"] = self.reply_to.to_json(with_reply=False)
        return data


def chat_member_json(user: FakeUser, status: str) -> dict[str, Any]:
    """A ChatMember of the subtype for ``status``, its required flags filled in."""
    if status not in MEMBER_STATUSES:
        raise ValueError(f"status must be one of {MEMBER_STATUSES}, not {status!r}")
    data: dict[str, Any] = {"status": status, "user": user.to_json()}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        data.update(
            dict.fromkeys(
                ("can_manage_chat", "can_delete_messages", "can_manage_video_chats",
                 "can_restrict_members", "can_change_info", "can_invite_users",
                 "can_post_stories", "can_edit_stories", "can_delete_stories"),
                True,
            )
        )
        data.update(can_be_edited=False, is_anonymous=False, can_promote_members=False)
    elif status == "restricted":
        data.update(
            dict.fromkeys(
                ("is_member", "can_send_messages", "can_send_audios", "can_send_documents",
                 "can_send_photos", "can_send_videos", "can_send_video_notes",
                 "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
                 "can_add_web_page_previews", "can_change_info", "can_invite_users",
                 "can_pin_messages", "can_manage_topics", "can_edit_tag", "can_react_to_messages"),
                False,
            )
        )
        data["until_date"] = 0
    elif status == "kicked":
        data["until_date"] = 0
    return data
