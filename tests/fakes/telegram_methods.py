"""Bot API methods the fake Telegram server implements (``api_<method>``), with Telegram's
own error answers; anything not here is refused unless a test allows it."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from tests.fakes.telegram_format import (
    EntityParseError,
    FormattedText,
    UnsupportedParseMode,
    format_text,
)
from tests.fakes.telegram_model import (
    ApiError,
    FakeChat,
    FakeFile,
    FakeMessage,
    MessageVersion,
    bad_request,
    chat_member_json,
)
from tests.fakes.telegram_world import TelegramWorld

MAX_TEXT = 4096
MAX_CALLBACK_DATA_BYTES = 64
CHAT_ACTIONS = frozenset({
    "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
    "upload_document", "choose_sticker", "find_location", "record_video_note",
    "upload_video_note",
})
BUTTON_ACTIONS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
_COMMAND_NAME_RE = re.compile(r"[a-z0-9_]{1,32}")


class BotMethods(TelegramWorld):
    """Handlers get the decoded, spec-checked parameters and return the ``result`` JSON."""

    # -- bot, updates, webhook ------------------------------------------------------------------

    async def api_getMe(self, p: dict[str, Any]) -> Any:
        return {**self.bot_user.to_json(), "can_join_groups": True,
                "can_read_all_group_messages": False, "supports_inline_queries": False,
                "can_connect_to_business": False, "has_main_web_app": False}

    async def api_getUpdates(self, p: dict[str, Any]) -> Any:
        if self.webhook.get("url"):
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        self.confirm_updates(p.get("offset", 0), p.get("allowed_updates"))
        self.poll_generation += 1
        mine = self.poll_generation
        limit = min(max(p.get("limit", 100), 1), 100)

        def ready() -> bool:
            return self.closing or mine != self.poll_generation or any(
                self._deliverable(u) for u in self._updates
            )

        if p.get("timeout", 0) > 0 and not ready():
            self.waiting_polls += 1
            self._signal.notify()
            try:
                async with asyncio.timeout(p["timeout"]):
                    await self._signal.wait_for(ready)
            except TimeoutError:
                pass
            finally:
                self.waiting_polls -= 1
        if mine != self.poll_generation:
            raise ApiError(409, "Conflict: terminated by other getUpdates request; make sure "
                                "that only one bot instance is running")
        return [u for u in self._updates if self._deliverable(u)][:limit]

    async def api_deleteWebhook(self, p: dict[str, Any]) -> Any:
        self.webhook = {}
        if p.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def api_setWebhook(self, p: dict[str, Any]) -> Any:
        if p["url"] and not p["url"].startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        self.webhook = {k: v for k, v in p.items()
                        if k in ("url", "allowed_updates", "secret_token", "max_connections")}  # fmt: skip
        if p.get("allowed_updates") is not None:
            self._allowed_updates = p["allowed_updates"]
        if p.get("drop_pending_updates"):
            self._updates.clear()
        self._signal.notify()  # the queued updates go to the webhook now
        return True

    async def api_getWebhookInfo(self, p: dict[str, Any]) -> Any:
        return {"url": self.webhook.get("url", ""), "has_custom_certificate": False,
                "pending_update_count": len(self._updates)}

    async def api_logOut(self, p: dict[str, Any]) -> Any:
        return True

    async def api_close(self, p: dict[str, Any]) -> Any:
        return True

    # -- messages -----------------------------------------------------------------------------

    async def api_sendMessage(self, p: dict[str, Any]) -> Any:
        chat = self._writable_chat(p["chat_id"])
        formatted = self._text(p)
        markup = self._markup(p.get("reply_markup"))
        reply_to = None
        if "reply_parameters" in p:
            rp = p["reply_parameters"]
            target = self._chat(rp["chat_id"]) if "chat_id" in rp else chat
            reply_to = self.find_message(target.id, rp["message_id"])
            if reply_to is None and not rp.get("allow_sending_without_reply"):
                raise bad_request("message to be replied not found")
        message = FakeMessage(
            self.next_message_id(chat.id), chat, self.bot_user, formatted.text,
            formatted.entities, markup, from_bot=True, reply_to=reply_to, params=p,
        )
        return self.store_message(message).to_json()

    async def api_sendPhoto(self, p: dict[str, Any]) -> Any:
        return self._send_file(p, "photo")

    async def api_sendDocument(self, p: dict[str, Any]) -> Any:
        return self._send_file(p, "document")

    def _send_file(self, p: dict[str, Any], kind: str) -> Any:
        chat = self._writable_chat(p["chat_id"])
        upload = p[kind]
        if not hasattr(upload, "file"):  # a file_id or URL: this fake keeps no files to send again
            raise bad_request("wrong file identifier/HTTP URL specified")
        caption = str(p.get("caption") or "")
        if len(caption) > 1024:
            raise bad_request("message caption is too long")
        message = FakeMessage(
            self.next_message_id(chat.id), chat, self.bot_user, "", [], self._markup(p.get("reply_markup")),
            from_bot=True, params=p, caption=caption,
            file=FakeFile(kind, upload.filename or kind, upload.file.read()),
        )  # fmt: skip
        return self.store_message(message).to_json()

    async def api_getFile(self, p: dict[str, Any]) -> Any:
        file = self.files.get(str(p["file_id"]))
        if file is None:
            raise bad_request("invalid file_id")
        if len(file.data) > 20 * 1024 * 1024:
            raise bad_request("file is too big")
        return {"file_id": file.file_id, "file_unique_id": file.file_id, "file_size": len(file.data),
                "file_path": file.file_path}

    async def api_editMessageText(self, p: dict[str, Any]) -> Any:
        message = self._editable(p)
        formatted = self._text(p)
        # Telegram drops the inline keyboard when an edit does not resend it.
        markup = self._markup(p.get("reply_markup"))
        return self._edit(message, formatted.text, formatted.entities, markup, p)

    async def api_editMessageReplyMarkup(self, p: dict[str, Any]) -> Any:
        message = self._editable(p)
        markup = self._markup(p.get("reply_markup"))
        return self._edit(message, message.text, message.entities, markup, p)

    async def api_deleteMessage(self, p: dict[str, Any]) -> Any:
        chat = self._chat(p["chat_id"])
        message = self.find_message(chat.id, p["message_id"])
        if message is None:
            raise bad_request("message to delete not found")
        bot_status = self.member_status(chat.id, self.bot_user.id)
        if not message.from_bot and chat.type != "private" and bot_status not in (
            "administrator", "creator"
        ):
            raise bad_request("message can't be deleted")
        message.deleted = True
        self.store_message(message)
        return True

    async def api_answerCallbackQuery(self, p: dict[str, Any]) -> Any:
        state = self.callbacks.get(p["callback_query_id"])
        if state is None or state.answer is not None or state.expired:
            raise bad_request(QUERY_TOO_OLD)
        if len(p.get("text", "")) > 200:
            raise bad_request("MESSAGE_TOO_LONG")
        state.answer = dict(p)
        self._signal.notify()
        return True

    async def api_sendChatAction(self, p: dict[str, Any]) -> Any:
        self._writable_chat(p["chat_id"])
        if p["action"] not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True

    # -- commands, menu -----------------------------------------------------------------------

    async def api_setMyCommands(self, p: dict[str, Any]) -> Any:
        commands = p["commands"]
        if len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            if not _COMMAND_NAME_RE.fullmatch(command["command"]):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(command["description"]) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        key = self._commands_key(p)
        if commands:
            self.commands[key] = commands
        else:
            self.commands.pop(key, None)
        return True

    async def api_getMyCommands(self, p: dict[str, Any]) -> Any:
        return self.commands.get(self._commands_key(p), [])

    async def api_deleteMyCommands(self, p: dict[str, Any]) -> Any:
        self.commands.pop(self._commands_key(p), None)
        return True

    def my_commands(
        self, scope: dict[str, Any] | None = None, language_code: str = ""
    ) -> list[dict[str, Any]]:
        """Commands set for exactly this scope and language (what getMyCommands answers)."""
        params: dict[str, Any] = {"language_code": language_code}
        if scope is not None:
            params["scope"] = scope
        return self.commands.get(self._commands_key(params), [])

    def _commands_key(self, p: dict[str, Any]) -> tuple[str, str]:
        scope = dict(p.get("scope") or {"type": "default"})
        if "chat_id" in scope:
            scope["chat_id"] = self._chat(scope["chat_id"]).id
        return json.dumps(scope, sort_keys=True), p.get("language_code", "")

    async def api_setChatMenuButton(self, p: dict[str, Any]) -> Any:
        chat_id = self._chat(p["chat_id"]).id if "chat_id" in p else None
        self.menu_buttons[chat_id] = p.get("menu_button", {"type": "default"})
        return True

    async def api_getChatMenuButton(self, p: dict[str, Any]) -> Any:
        chat_id = self._chat(p["chat_id"]).id if "chat_id" in p else None
        return self.menu_buttons.get(chat_id, {"type": "default"})

    # -- chats --------------------------------------------------------------------------------

    async def api_getChat(self, p: dict[str, Any]) -> Any:
        return self._chat(p["chat_id"]).full_info()

    async def api_getChatMember(self, p: dict[str, Any]) -> Any:
        chat = self._member_chat(p["chat_id"])
        user = self.users.get(p["user_id"])
        if user is None:
            raise bad_request("user not found")
        return chat_member_json(user, self.member_status(chat.id, user.id))

    async def api_getChatAdministrators(self, p: dict[str, Any]) -> Any:
        chat = self._member_chat(p["chat_id"])
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        admins = []
        for user in self.users.values():
            status = self.member_status(chat.id, user.id)
            skip_bot = user.is_bot and user != self.bot_user and not p.get("return_bots")
            if status in ("creator", "administrator") and not skip_bot:
                admins.append(chat_member_json(user, status))
        return admins

    # -- shared checks ------------------------------------------------------------------------

    def _chat(self, chat_id: int | str) -> FakeChat:
        """The target chat, or Telegram's error for a missing or migrated one."""
        if isinstance(chat_id, str):
            found = [c for c in self.chats.values() if c.username and
                     f"@{c.username}".lower() == chat_id.lower()]
            if not found:
                raise bad_request("chat not found")
            return found[0]
        if chat_id in self.migrated:
            raise bad_request("group chat was upgraded to a supergroup chat",
                              migrate_to_chat_id=self.migrated[chat_id])
        if chat_id not in self.chats:
            raise bad_request("chat not found")
        return self.chats[chat_id]

    def _member_chat(self, chat_id: int | str) -> FakeChat:
        chat = self._chat(chat_id)
        if chat.type == "private":
            return chat
        status = self.member_status(chat.id, self.bot_user.id)
        if status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        if status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")
        return chat

    def _writable_chat(self, chat_id: int | str) -> FakeChat:
        chat = self._chat(chat_id)
        if chat.id in self.blocked or (
            chat.type == "private" and self.member_status(chat.id, self.bot_user.id) == "kicked"
        ):
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return self._member_chat(chat.id)

    def _text(self, p: dict[str, Any]) -> FormattedText:
        try:
            formatted = format_text(p.get("text", ""), p.get("parse_mode"))
        except UnsupportedParseMode as err:
            raise bad_request("unsupported parse_mode") from err
        except EntityParseError as err:
            raise bad_request(f"can't parse entities: {err}") from err
        if "entities" in p:
            formatted.entities = p["entities"]
        if not formatted.text:
            raise bad_request("message text is empty")
        if len(formatted.text) > MAX_TEXT:
            raise bad_request("message is too long")
        return formatted

    def _markup(self, markup: dict[str, Any] | None) -> dict[str, Any] | None:
        if markup is None or "inline_keyboard" not in markup:
            return markup
        for row in markup["inline_keyboard"]:
            for button in row:
                data = button.get("callback_data")
                if data is not None and not (
                    1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
                ):
                    raise bad_request("BUTTON_DATA_INVALID")
                if not any(key in button for key in BUTTON_ACTIONS):
                    raise bad_request("can't parse inline keyboard button: Text buttons are "
                                      "unallowed in the inline keyboard")
        return markup if any(markup["inline_keyboard"]) else None

    def _editable(self, p: dict[str, Any]) -> FakeMessage:
        if "inline_message_id" in p:
            raise bad_request("MESSAGE_ID_INVALID")
        if "chat_id" not in p or "message_id" not in p:
            raise bad_request("message identifier is not specified")
        chat = self._writable_chat(p["chat_id"])
        message = self.find_message(chat.id, p["message_id"])
        if message is None:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return message

    def _edit(
        self, message: FakeMessage, text: str, entities: list[dict[str, Any]],
        markup: dict[str, Any] | None, p: dict[str, Any],
    ) -> Any:
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise bad_request(NOT_MODIFIED)
        message.history.append(
            MessageVersion(message.text, message.entities, message.reply_markup)
        )
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.edit_date = int(time.time())
        message.params = p
        return self.store_message(message).to_json()
