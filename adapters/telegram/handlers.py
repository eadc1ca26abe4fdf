"""Commands, typed answers and chat events: Telegram updates turned into the core's commands,
and its views laid out as replies."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from telegram import ChatMember, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.telegram import admin
from adapters.telegram.incoming import Incoming, guarded
from adapters.telegram.render import chat_ref, language_keyboard, self_grade_keyboard
from bot.i18n import bank_text, match_language
from bot.kinds import AnswerStatus, ChatKind, ChatRef, Platform
from bot.messages import Ask, ReceiptView, ShowLeaderboard, ShowStats, SubmitAnswer
from bot.model import QuestionType
from bot.quiz import QuizError
from bot.text import HTML, render_leaderboard, render_receipt, render_stats
from bot.windows import Window

if TYPE_CHECKING:
    from adapters.telegram.adapter import TelegramAdapter

log = logging.getLogger("studybot.telegram")
GONE = (ChatMember.LEFT, ChatMember.BANNED)


class Handlers:
    def __init__(self, adapter: TelegramAdapter) -> None:
        self.adapter = adapter
        self.quiz = adapter.app.quiz

    def register(self, application: Application) -> None:
        new_message = filters.UpdateType.MESSAGE
        commands = {
            "start": (self.start, False), "help": (self.help, False), "quiz": (self.ask, False),
            "review": (self.review, False), "stats": (self.stats, False),
            "streak": (self.streak, False), "leaderboard": (self.leaderboard, False),
            "lang": (self.lang, True), "tz": (self.tz, True), "daily": (admin.daily, True),
            "contest": (admin.contest, True), "bank": (admin.bank, True),
        }  # fmt: skip
        application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.migrated))
        application.add_handler(ChatMemberHandler(self.member_changed, ChatMemberHandler.MY_CHAT_MEMBER))
        for name, (handler, admin_only) in commands.items():
            callback = guarded(self.adapter, handler, admin=admin_only)
            application.add_handler(CommandHandler(name, callback, filters=new_message))
        private, groups = filters.ChatType.PRIVATE, filters.ChatType.GROUPS
        application.add_handlers([
            MessageHandler(new_message & filters.COMMAND & private, guarded(self.adapter, self.unknown)),
            MessageHandler(new_message & filters.TEXT & ~filters.COMMAND & private,
                           guarded(self.adapter, self.private_text)),
            MessageHandler(new_message & filters.TEXT & ~filters.COMMAND & groups & filters.REPLY,
                           guarded(self.adapter, self.group_reply)),
        ])  # fmt: skip

    # ------------------------------------------------------------ everyone

    async def start(self, incoming: Incoming) -> None:
        chat = await self.quiz.chat(incoming.chat)
        bank = self.quiz.bank_for(chat)
        title = bank_text(incoming.language, bank.title)
        text = incoming.text("tg.welcome", title=title, count=len(bank.questions))
        await incoming.reply(text, language_keyboard())

    async def help(self, incoming: Incoming) -> None:
        await incoming.say("tg.help_private" if incoming.private else "tg.help_group")

    async def ask(self, incoming: Incoming) -> None:
        """/quiz [tag | single | multi | judge | fill | short]"""
        tag, qtype = None, None
        if incoming.args:
            word = incoming.args[0]
            chat = await self.quiz.chat(incoming.chat)
            if word not in self.quiz.bank_for(chat).tags and word.lower() in set(QuestionType):
                qtype = QuestionType(word.lower())
            else:
                tag = word
        await self._post(incoming, Ask(incoming.chat, incoming.user, tag=tag, qtype=qtype))

    async def review(self, incoming: Incoming) -> None:
        await self._post(incoming, Ask(incoming.chat, incoming.user, review=True))

    async def _post(self, incoming: Incoming, ask: Ask) -> None:
        view = await self.quiz.ask(ask)
        ref = await self.adapter.send_question(incoming.tg_chat.id, view)
        await self.quiz.set_message_ref(view.round_id, ref)

    async def stats(self, incoming: Incoming) -> None:
        if incoming.user is not None:
            view = await self.quiz.stats(ShowStats(incoming.chat, incoming.user))
            await incoming.reply(render_stats(view, HTML))

    async def streak(self, incoming: Incoming) -> None:
        if incoming.user is not None:
            view = await self.quiz.stats(ShowStats(incoming.chat, incoming.user))
            await incoming.say("streak.body", count=view.streak, best=view.best_streak)

    async def leaderboard(self, incoming: Incoming) -> None:
        """/leaderboard [week | month | all]"""
        window = Window.ALL
        if incoming.args:
            try:
                window = Window(incoming.args[0].lower())
            except ValueError:
                raise QuizError("error.bad_args", detail="/leaderboard week | month | all") from None
        view = await self.quiz.leaderboard(ShowLeaderboard(incoming.chat, incoming.user, window))
        await incoming.reply(render_leaderboard(view, HTML))

    async def unknown(self, incoming: Incoming) -> None:
        command = (incoming.message.text or "").split()[0] if incoming.message.text else "?"
        await incoming.say("error.unknown_command", command=command)

    # ------------------------------------------------------------ settings (admins in groups)

    async def lang(self, incoming: Incoming) -> None:
        """/lang zh | zh-TW | en"""
        choice = match_language(incoming.args[0]) if incoming.args else None
        if choice is None:
            raise QuizError("error.bad_args", detail="/lang zh | zh-TW | en")
        chat = await self.quiz.update_settings(incoming.chat, language=choice)
        incoming.language = chat.settings.language
        await incoming.say("lang.set")

    async def tz(self, incoming: Incoming) -> None:
        """/tz Area/City: the chat's timezone, which its daily question follows too."""
        if len(incoming.args) != 1:
            raise QuizError("error.bad_args", detail="/tz Asia/Shanghai")
        name = incoming.args[0]
        await self.adapter.app.dailies.set_timezone(incoming.chat, name)
        await incoming.say("tg.tz_set", timezone=name)

    # ------------------------------------------------------------ typed answers

    async def private_text(self, incoming: Incoming) -> None:
        """Any text in a private chat answers the open question there."""
        round_id = await self.adapter.rounds.for_text(self.quiz, incoming.chat, incoming.tg_chat.id)
        if round_id is None:
            await incoming.say("error.no_round")
            return
        await self._typed(incoming, round_id)

    async def group_reply(self, incoming: Incoming) -> None:
        """In a group, a reply to a question message answers it (works with privacy mode on)."""
        replied = incoming.message.reply_to_message
        if replied is None or replied.from_user is None or replied.from_user.id != self.adapter.bot.id:
            return
        round_id = await self.adapter.rounds.for_reply(
            self.quiz, incoming.chat, incoming.tg_chat.id, replied.message_id
        )
        if round_id is not None:
            await self._typed(incoming, round_id)

    async def _typed(self, incoming: Incoming, round_id: int) -> None:
        if incoming.user is None or not incoming.message.text:
            return
        receipt = await self.quiz.submit(SubmitAnswer(round_id, incoming.user, incoming.message.text))
        await incoming.reply(render_receipt(receipt, HTML), self_grade_markup(receipt))

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
            await self.quiz.pause_chat(ref)
        else:
            await self.quiz.chat(ref)  # present again (unblocked, re-added): resumes a paused chat

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
        await self.quiz.move_chat(ChatRef(Platform.TELEGRAM, str(old), ChatKind.GROUP), str(new))


def self_grade_markup(receipt: ReceiptView) -> InlineKeyboardMarkup | None:
    """The 全对/部分/不会 buttons after a short answer was recorded and awaits self-grading."""
    if receipt.graded and receipt.verdict == "pending" and str(receipt.status) == AnswerStatus.ACCEPTED:
        return self_grade_keyboard(receipt.round_id, receipt.language)
    return None
