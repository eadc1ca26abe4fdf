"""Telegram updates turned into the application's calls: every catalog command (a handler per
top-level name, all run through `Application.run_text`), typed answers, and chat events.

Nothing here knows a particular command: a new catalog entry works with no change.
"""

from __future__ import annotations

import logging
from typing import cast

from telegram import Chat as TgChat
from telegram import ChatMember, Message, Update
from telegram.ext import (
    Application,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.telegram.host import TelegramHost
from adapters.telegram.mock_keyboard import mock_keyboard
from adapters.telegram.render import chat_ref, message_ref, receipt_keyboard, user_ref
from bot.application.answering import AnswerReply, NextReply, ReceiptReply, TextReply
from bot.application.app import StudyView
from bot.application.attachments import Attachment
from bot.application.commands import catalog
from bot.application.commands.catalog import Permission
from bot.application.replies import Reply
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain.kinds import ChatKind, ChatRef, Platform
from bot.views.quiz_text import HTML, render_receipt

log = logging.getLogger("studybot.telegram")
GONE = (ChatMember.LEFT, ChatMember.BANNED)


class Handlers:
    def __init__(self, adapter: TelegramHost) -> None:
        self.adapter = adapter
        self.app = adapter.app

    def register(self, application: Application) -> None:
        new_message = filters.UpdateType.MESSAGE
        private, groups = filters.ChatType.PRIVATE, filters.ChatType.GROUPS
        application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.migrated))
        application.add_handler(ChatMemberHandler(self.member_changed, ChatMemberHandler.MY_CHAT_MEMBER))
        for name in catalog.groups():
            application.add_handler(CommandHandler(name, self.command, filters=new_message))
        application.add_handlers([
            # Any other command in a private chat (an alias, a typo) gets the catalog's answer;
            # in a group it may be another bot's.
            MessageHandler(new_message & filters.COMMAND & private, self.command),
            # A file sent with a command as its caption (/bank import): the command's FILE argument.
            MessageHandler(new_message & filters.Document.ALL & filters.CaptionRegex(r"^/"), self.document),
            MessageHandler(new_message & filters.TEXT & ~filters.COMMAND & private, self.private_text),
            MessageHandler(new_message & filters.TEXT & ~filters.COMMAND & groups & filters.REPLY,
                           self.group_reply),
        ])  # fmt: skip

    # ------------------------------------------------------------ commands

    async def command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or not message.text:
            return
        caller = Caller(
            chat_ref(message.chat, message.from_user),
            user_ref(message.from_user) if message.from_user is not None else None,
            admin=await self._admin(message),
            message_ref=message_ref(message.chat.id, message.message_id),
        )
        reply = await self.app.run_text(message.text, caller, bot_name=self.adapter.bot.username)
        await self.adapter.show(message, reply)

    async def document(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A document whose caption is a command: run it with the document as its attachment,
        downloaded (getFile, then the file URL) only if the use case wants its bytes."""
        message = update.effective_message
        if message is None or message.document is None or not message.caption:
            return
        document = message.document

        async def fetch() -> bytes:
            file = await document.get_file()
            return bytes(await file.download_as_bytearray())

        caller = Caller(
            chat_ref(message.chat, message.from_user),
            user_ref(message.from_user) if message.from_user is not None else None,
            admin=await self._admin(message),
            message_ref=message_ref(message.chat.id, message.message_id),
        )
        attachment = Attachment(document.file_name or "upload", document.file_size or 0, fetch)
        reply = await self.app.run_text(message.caption, caller, bot_name=self.adapter.bot.username,
                                        attachment=attachment)  # fmt: skip
        await self.adapter.show(message, reply)

    async def _admin(self, message: Message) -> bool:
        """The admin check, asked of Telegram only for a group command that needs an admin."""
        if message.chat.type == TgChat.PRIVATE:
            return True
        line = message.text or message.caption or ""
        command = self.app.command_for(line, bot_name=self.adapter.bot.username)
        if command is None or command.permission is not Permission.CHAT_ADMIN:
            return False  # no one need be an admin (a refusal names the line's mistake)
        return await self.adapter.admins.is_admin(message.chat, message.from_user, message.sender_chat)

    # ------------------------------------------------------------ typed answers

    async def private_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Any text in a private chat answers the open question there, except a line that starts
        with "/": Telegram marks only Latin command names, so "/错题本" (a Chinese alias) comes as
        plain text; it is a command, not an answer."""
        message = update.effective_message
        if message is None or message.from_user is None or not message.text:
            return
        if message.text.startswith("/"):
            await self.command(update, context)
            return
        chat = chat_ref(message.chat, message.from_user)
        answer = await self.app.typed(chat, user_ref(message.from_user), message.text)
        await self._typed(message, answer)

    async def group_reply(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """In a group, a reply to a question message answers it (works with privacy mode on)."""
        message = update.effective_message
        if message is None or message.from_user is None or not message.text:
            return
        replied = message.reply_to_message
        if replied is None or replied.from_user is None or replied.from_user.id != self.adapter.bot.id:
            return
        round_id = self.adapter.rounds.by_message(message.chat.id, replied.message_id)
        answer = await self.app.typed(
            chat_ref(message.chat), user_ref(message.from_user), message.text, round_id=round_id,
            reply_to=message_ref(message.chat.id, replied.message_id) if round_id is None else None,
        )  # fmt: skip
        if isinstance(answer, TextReply):
            return  # a reply to one of our messages that is not a question: conversation
        await self._typed(message, answer)

    async def _typed(self, message: Message, answer: AnswerReply) -> None:
        if isinstance(answer, ReceiptReply):
            markup = receipt_keyboard(answer)  # self-grade buttons, or 下一题 ▶ once graded
            await self.adapter.answer(message, render_receipt(answer.receipt, HTML), markup)
        elif isinstance(answer, TextReply) and answer.view is not None:  # a mock item: with its buttons
            html = render_reply(Reply(cast(StudyView, answer.view), answer.language), HTML)
            await self.adapter.answer(message, html, mock_keyboard(answer.view))
        elif isinstance(answer, NextReply):  # 下一题 typed: the next question, as /quiz posts it
            await self.adapter.show(message, answer.reply)
        elif isinstance(answer, TextReply):
            await self.adapter.answer(message, HTML.escape(answer.text))

    # ------------------------------------------------------------ chat events

    async def member_changed(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot was removed from a group or blocked (pause the chat), or came back (resume)."""
        change = update.my_chat_member
        if change is None:
            return
        ref = chat_ref(change.chat)
        new = change.new_chat_member.status
        if new in GONE:
            log.info("telegram chat %s: bot is %s; pausing the chat", change.chat.id, new)
            await self.app.chat_gone(ref)
        else:
            await self.app.language(ref)  # present again (unblocked, re-added): resumes a paused chat

    async def migrated(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup with a new id: the chat, its scores and daily follow."""
        message = update.effective_message
        if message is None:
            return
        if message.migrate_to_chat_id:
            old, new = message.chat.id, message.migrate_to_chat_id
        elif message.migrate_from_chat_id:
            old, new = message.migrate_from_chat_id, message.chat.id
        else:
            return
        log.info("telegram group %s moved to %s", old, new)
        await self.app.chat_moved(ChatRef(Platform.TELEGRAM, str(old), ChatKind.GROUP), str(new))
