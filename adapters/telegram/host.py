"""What the update handlers (handlers.py) and the button handler (callbacks.py) need from the
adapter that owns them: the application, the bot, sending and editing. The adapter satisfies
this Protocol; the handlers see only it, so they do not import the adapter back."""

from __future__ import annotations

from typing import Protocol

from telegram import InlineKeyboardMarkup, Message
from telegram.ext import ExtBot

from adapters.telegram.admin import AdminCheck
from adapters.telegram.rounds import RoundIndex
from adapters.telegram.settings import TelegramSettings
from bot.application.app import Application
from bot.application.replies import Reply


class TelegramHost(Protocol):
    app: Application
    settings: TelegramSettings
    rounds: RoundIndex
    admins: AdminCheck

    @property
    def bot(self) -> ExtBot: ...

    async def send(
        self,
        chat_id: int,
        html: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> Message: ...

    async def answer(
        self, message: Message, html: str, markup: InlineKeyboardMarkup | None = None
    ) -> None: ...

    async def show(self, message: Message, reply: Reply) -> None: ...

    async def post_reply(self, chat_id: int, reply: Reply, *, reply_to: int | None = None) -> None: ...

    async def replace_message(
        self, chat_id: int, message_id: int, html: str, markup: InlineKeyboardMarkup | None
    ) -> None: ...

    async def drop_keyboard(
        self, chat_id: int, message_id: int, keep: InlineKeyboardMarkup | None = None
    ) -> None: ...
