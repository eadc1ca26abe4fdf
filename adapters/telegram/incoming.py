"""One incoming command or message, resolved to the core's references and the chat's language,
with replies that speak the catalog; `guarded` turns the core's refusals into polite replies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from telegram import Chat as TgChat
from telegram import InlineKeyboardMarkup, Message, Update
from telegram.ext import ContextTypes

from adapters.telegram.render import chat_ref, user_ref
from bot.i18n import t
from bot.kinds import ChatRef, UserRef
from bot.quiz import QuizError
from bot.text import HTML

if TYPE_CHECKING:
    from adapters.telegram.adapter import TelegramAdapter


@dataclass
class Incoming:
    adapter: TelegramAdapter
    message: Message
    tg_chat: TgChat
    chat: ChatRef
    user: UserRef | None
    args: list[str]
    language: str

    @classmethod
    async def of(
        cls, adapter: TelegramAdapter, update: Update, context: ContextTypes.DEFAULT_TYPE
    ) -> Incoming | None:
        message = update.effective_message
        if message is None:
            return None
        ref = chat_ref(message.chat, message.from_user)
        chat = await adapter.app.quiz.chat(ref)
        user = user_ref(message.from_user) if message.from_user else None
        args = list(context.args or [])
        return cls(adapter, message, message.chat, ref, user, args, chat.settings.language)

    @property
    def private(self) -> bool:
        return self.tg_chat.type == TgChat.PRIVATE

    def text(self, key: str, **params: object) -> str:
        """A catalog sentence in the chat's language, escaped for HTML."""
        return HTML.escape(t(self.language, key, **params))

    async def reply(self, html: str, markup: InlineKeyboardMarkup | None = None) -> Message:
        """Answer in the chat; in a group as a reply to the message that asked."""
        reply_to = None if self.private else self.message.message_id
        return await self.adapter.send(self.tg_chat.id, html, markup, reply_to=reply_to)

    async def say(self, key: str, **params: object) -> Message:
        return await self.reply(self.text(key, **params))

    async def is_admin(self) -> bool:
        message = self.message
        return await self.adapter.admins.is_admin(self.tg_chat, message.from_user, message.sender_chat)


Handler = Callable[[Incoming], Awaitable[None]]
PtbCallback = Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[None]]


def guarded(adapter: TelegramAdapter, handler: Handler, *, admin: bool = False) -> PtbCallback:
    """A PTB callback running `handler`; admin-only in groups when `admin`."""

    async def callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        incoming = await Incoming.of(adapter, update, context)
        if incoming is None:
            return
        try:
            if admin and not await incoming.is_admin():
                await incoming.say("error.not_admin")
                return
            await handler(incoming)
        except QuizError as exc:
            await incoming.reply(HTML.escape(exc.render(incoming.language)))

    return callback
