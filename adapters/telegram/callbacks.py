"""Inline-button clicks: each callback query becomes a `bot.application.clicks.Click` for the application's
answering use case (or, for a language button, the catalog's language command), and what comes
back is shown as a toast of at most 200 characters.

Every click is answered exactly once. A payload that does not parse, or that the core does not
admit (a round of another chat or message, a button its question cannot have or its message
does not carry), or a closed round gets the catalog's "closed" toast and changes nothing. A
callback query without its sender (`from`, which Telegram always sends: a forged update) is
refused with one warning line and the "who sent this?" toast.
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery, MaybeInaccessibleMessage, Message, Update
from telegram import Chat as TgChat
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.telegram import callback_data as cd
from adapters.telegram.host import TelegramHost
from adapters.telegram.mock_keyboard import mock_keyboard
from adapters.telegram.render import chat_ref, clip, graded_keyboard, message_ref, star_keyboard, user_ref
from bot.application.answering import (
    AnswerReply,
    FormReply,
    NextReply,
    ReceiptReply,
    SelectionReply,
    TextReply,
)
from bot.application.clicks import Act, Click, MockAct, MockClick, WeakClick
from bot.application.commands.catalog import command
from bot.application.commands.parsing import Parsed
from bot.application.replies import TextView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain.kinds import AnswerStatus, Platform
from bot.locales.i18n import t
from bot.views.quiz_text import HTML, receipt_headline, render_receipt

log = logging.getLogger("studybot.telegram")
_ACTS: dict[type, Act] = {
    cd.AnswerChoice: Act.ANSWER,
    cd.ToggleOption: Act.TOGGLE,
    cd.SubmitSelection: Act.SUBMIT,
    cd.UndoSelection: Act.UNDO,
    cd.SelfGradeLevel: Act.SELF_GRADE,
    cd.Favourite: Act.FAVOURITE,
    cd.NextQuestion: Act.NEXT,
    cd.MistakeCause: Act.CAUSE,
}


class Toast:
    """Answers one callback query; only the first call does."""

    def __init__(self, query: CallbackQuery) -> None:
        self.query = query
        self.answered = False

    async def __call__(self, text: str) -> None:
        if self.answered:
            return
        self.answered = True
        try:
            await self.query.answer(clip(text))
        except TelegramError as exc:  # e.g. answered too late: the click's work is done anyway
            log.info("callback query not answered: %s", exc)


class Callbacks:
    def __init__(self, adapter: TelegramHost) -> None:
        self.adapter = adapter
        self.app = adapter.app

    async def on_click(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        toast = Toast(query)
        language = self.adapter.settings.language
        try:
            message = query.message
            if message is None:  # a button under an inline-mode message: never ours
                return
            language = await self.app.language(chat_ref(message.chat))
            if query.from_user is None:
                log.warning("telegram: callback query %s without a sender refused", query.id)
                await toast(t(language, "error.no_user"))
                return
            await self._handle(toast, query, message)
        except Exception:  # the click must still be answered; the error is logged, not raised
            log.exception("callback query failed")
            await toast(t(language, "error.internal"))
        finally:
            await toast(t(language, "receipt.closed"))  # nothing answered it: a refused payload

    async def _handle(self, toast: Toast, query: CallbackQuery, message: MaybeInaccessibleMessage) -> None:
        action = cd.parse(query.data)
        if action is None:
            return
        tg_chat = message.chat
        chat, user = chat_ref(tg_chat), user_ref(query.from_user)
        if isinstance(action, cd.MockButton):
            await self._mock(toast, query, message, action)
            return
        if isinstance(action, cd.WeakPractice):  # the clicker's weak-point run, posted as /quiz weak's
            weak = WeakClick(Platform.TELEGRAM, str(tg_chat.id), str(query.data), _controls(message))
            reply = await self.app.click(chat, user, weak)
            if isinstance(reply.view, TextView):
                await toast(reply.view.text)
            else:
                await toast("")
            await self.adapter.post_reply(tg_chat.id, reply)
            return
        if isinstance(action, cd.ChooseLanguage):
            admin = await self.adapter.admins.is_admin(tg_chat, query.from_user)
            parsed = Parsed(command("lang"), {"language": action.language})
            reply = await self.app.run(parsed, Caller(chat, user, admin=admin))
            if isinstance(reply.view, TextView):
                await toast(reply.view.text)
            return
        act = _ACTS[type(action)]
        click = Click(
            round_id=action.round_id, platform=Platform.TELEGRAM, chat_key=str(tg_chat.id),
            message_ref=message_ref(tg_chat.id, message.message_id), act=act,
            token=_token(action), control=str(query.data), controls=_controls(message),
        )  # fmt: skip
        answer = await self.app.click(chat, user, click)
        await self._show(toast, answer, act, tg_chat, message.message_id)

    async def _mock(self, toast: Toast, query: CallbackQuery, message: MaybeInaccessibleMessage,
                    action: cd.MockButton) -> None:  # fmt: skip
        """A mock exam's button: the message becomes what it leads to (the next item, the sheet,
        the hand-in prompt, the report, a reviewed item); a refusal is a toast and changes nothing."""
        tg_chat = message.chat
        click = MockClick(
            mock_id=action.mock_id, item=action.item, act=MockAct(action.act), token=action.token,
            platform=Platform.TELEGRAM, chat_key=str(tg_chat.id), control=str(query.data),
            controls=_controls(message),
        )  # fmt: skip
        reply = await self.app.click(chat_ref(tg_chat), user_ref(query.from_user), click)
        if isinstance(reply.view, TextView):
            await toast(reply.view.text)
            return
        saved = getattr(reply.view, "saved", None)
        await toast(t(reply.language, "mock.kept", number=saved) if saved else "")
        if self.app.pictures(reply.view):
            # An item with pictures: they cannot be edited into a text message, so the page is
            # posted anew under them, and the old one keeps no buttons.
            await self.adapter.drop_keyboard(tg_chat.id, message.message_id)
            await self.adapter.post_reply(tg_chat.id, reply)
            return
        await self.adapter.replace_message(tg_chat.id, message.message_id, render_reply(reply, HTML),
                                           mock_keyboard(reply.view))  # fmt: skip

    async def _show(self, toast: Toast, answer: AnswerReply, act: Act, tg_chat: TgChat,
                    message_id: int) -> None:  # fmt: skip
        """Toast what came back; a graded answer in a private chat also gets its full receipt
        (grade, correct answer, explanation) as a message, and its buttons go away."""
        private = tg_chat.type == TgChat.PRIVATE
        if isinstance(answer, TextReply):
            await toast(answer.text)
        elif isinstance(answer, SelectionReply):  # the clicker's own selection, or order, so far
            await toast(answer.text)
        elif isinstance(answer, FormReply):  # no forms here: typed answers are messages
            await toast(t(answer.language, "receipt.closed"))
        elif isinstance(answer, NextReply):  # the next question, posted as /quiz posts it
            await toast("")
            if private:  # clicked once: the receipt keeps no button to ask twice
                await self.adapter.drop_keyboard(tg_chat.id, message_id)
            await self.adapter.post_reply(tg_chat.id, answer.reply)
        elif act is Act.SELF_GRADE:
            receipt = answer.receipt
            await toast(receipt_headline(receipt))
            if receipt.graded and private:  # graded: the self-grade buttons give way to 下一题 ▶
                keep = graded_keyboard(answer)
                await self.adapter.drop_keyboard(tg_chat.id, message_id, keep=keep)
        else:
            await self._receipt(toast, answer, private, tg_chat.id, message_id)

    async def _receipt(self, toast: Toast, answer: ReceiptReply, private: bool, chat_id: int,
                       message_id: int) -> None:  # fmt: skip
        receipt = answer.receipt
        headline = receipt_headline(receipt)
        accepted = str(receipt.status) == AnswerStatus.ACCEPTED
        if receipt.graded and accepted and not private and receipt.correct_label:
            headline += "\n" + t(receipt.language, "reveal.correct", answer=receipt.correct_label)
        await toast(headline)
        if receipt.graded and accepted and private:
            await self.adapter.send(chat_id, render_receipt(receipt, HTML), graded_keyboard(answer))
            star = star_keyboard(receipt.round_id, receipt.language)
            await self.adapter.drop_keyboard(chat_id, message_id, keep=star)


def _token(action: cd.Action) -> str | None:
    if isinstance(action, cd.AnswerChoice | cd.ToggleOption):
        return action.token
    if isinstance(action, cd.SelfGradeLevel):
        return action.level
    if isinstance(action, cd.MistakeCause):
        return action.cause
    return None


def _controls(message: MaybeInaccessibleMessage) -> frozenset[str] | None:
    """The callback_data of the message's buttons (none once its keyboard was removed); None
    for a message too old for Telegram to say what it carries."""
    # PTB (22) reads such a message into a Message, not an InaccessibleMessage: its date of 0
    # tells, and its missing keyboard means nothing (it used to refuse every click under it).
    if not isinstance(message, Message) or not message.is_accessible:
        return None
    markup = message.reply_markup
    rows = markup.inline_keyboard if markup is not None else ()
    return frozenset(b.callback_data for row in rows for b in row if isinstance(b.callback_data, str))
