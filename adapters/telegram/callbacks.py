"""Inline-button clicks: answers, multi-choice toggles and Submit, self-grades, language choice.

Every click is answered exactly once (a toast of at most 200 characters). A payload that does
not parse, or that bot/clicks does not admit (a round of another chat or message, a button its
question cannot have or its message does not carry), or a closed round gets the catalog's
"closed" toast and changes nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from telegram import CallbackQuery, MaybeInaccessibleMessage, Message, Update
from telegram import Chat as TgChat
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.telegram import callback_data as cd
from adapters.telegram.render import chat_ref, clip, message_ref, user_ref
from bot import clicks
from bot.i18n import t
from bot.kinds import AnswerStatus, Platform
from bot.messages import ReceiptView, SelfGrade, SubmitAnswer
from bot.presenting import response_label
from bot.text import HTML, receipt_headline, render_receipt

if TYPE_CHECKING:
    from adapters.telegram.adapter import TelegramAdapter

log = logging.getLogger("studybot.telegram")
_ACTS: dict[type, clicks.Act] = {
    cd.AnswerChoice: clicks.Act.ANSWER,
    cd.ToggleOption: clicks.Act.TOGGLE,
    cd.SubmitSelection: clicks.Act.SUBMIT,
    cd.SelfGradeLevel: clicks.Act.SELF_GRADE,
}


class Click:
    """One callback query; `toast` answers it (only the first call does)."""

    def __init__(self, query: CallbackQuery, language: str) -> None:
        self.query = query
        self.language = language
        self.answered = False

    async def toast(self, text: str) -> None:
        if self.answered:
            return
        self.answered = True
        try:
            await self.query.answer(clip(text))
        except TelegramError as exc:  # e.g. answered too late: the click's work is done anyway
            log.info("callback query not answered: %s", exc)

    async def say(self, key: str, **params: object) -> None:
        await self.toast(t(self.language, key, **params))


class Callbacks:
    def __init__(self, adapter: TelegramAdapter) -> None:
        self.adapter = adapter
        self.quiz = adapter.app.quiz

    async def on_click(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        click = Click(query, self.quiz.settings.language)
        try:
            await self._handle(click)
        except Exception:  # the click must still be answered; the error is logged, not raised
            log.exception("callback query failed")
            await click.say("error.internal")
        finally:
            await click.say("receipt.closed")  # nothing answered it: a refused payload

    async def _handle(self, click: Click) -> None:
        query = click.query
        message = query.message
        if message is None:  # a button under an inline-mode message: never ours
            return
        tg_chat = message.chat
        chat = await self.quiz.chat(chat_ref(tg_chat))
        click.language = chat.settings.language
        action = cd.parse(query.data)
        if action is None:
            return
        user = user_ref(query.from_user)
        if isinstance(action, cd.ChooseLanguage):
            await self._language(click, tg_chat, action)
            return
        context = await clicks.admitted(self.quiz, clicks.Click(
            round_id=action.round_id, platform=Platform.TELEGRAM, chat_key=str(tg_chat.id),
            message_ref=message_ref(tg_chat.id, message.message_id), act=_ACTS[type(action)],
            token=_token(action), control=str(query.data), controls=_controls(message),
        ))  # fmt: skip
        if context is None:
            return
        click.language = context.chat.settings.language
        round_id = action.round_id
        if isinstance(action, cd.SelfGradeLevel):
            receipt = await self.quiz.self_grade(SelfGrade(round_id, user, action.level))
            await click.toast(receipt_headline(receipt))
            if receipt.graded and tg_chat.type == TgChat.PRIVATE:
                await self.adapter.drop_keyboard(tg_chat.id, message.message_id)
            return
        if await self.quiz.answerable(round_id) is None:  # closed, or past its deadline
            return
        if isinstance(action, cd.ToggleOption):
            chosen = self.quiz.selections.toggle(round_id, user, action.token)
            await self._selection(click, context.question, chosen)
            return
        if isinstance(action, cd.SubmitSelection):
            chosen = self.quiz.selections.take(round_id, user)
            if not chosen:
                await click.say("tg.selected_none")
                return
            response = ",".join(chosen)
        else:
            response = action.token
        receipt = await self.quiz.submit(SubmitAnswer(round_id, user, response))
        await self._receipt(click, tg_chat, message.message_id, receipt)

    async def _selection(self, click: Click, question: Any, chosen: tuple[str, ...]) -> None:
        if not chosen:
            await click.say("tg.selected_none")
            return
        label = response_label(question, ",".join(chosen), click.language)
        await click.say("tg.selected", choice=label)

    async def _receipt(self, click: Click, tg_chat: TgChat, message_id: int, receipt: ReceiptView) -> None:
        """Toast the headline; a graded practice answer in a private chat also gets the full
        receipt (grade, correct answer, explanation) as a message, and its buttons go away."""
        headline = receipt_headline(receipt)
        accepted = str(receipt.status) == AnswerStatus.ACCEPTED
        private = tg_chat.type == TgChat.PRIVATE
        if receipt.graded and accepted and not private and receipt.correct_label:
            headline += "\n" + t(receipt.language, "reveal.correct", answer=receipt.correct_label)
        await click.toast(headline)
        if receipt.graded and accepted and private:
            await self.adapter.send(tg_chat.id, render_receipt(receipt, HTML))
            await self.adapter.drop_keyboard(tg_chat.id, message_id)

    async def _language(self, click: Click, tg_chat: TgChat, action: cd.ChooseLanguage) -> None:
        query = click.query
        if not await self.adapter.admins.is_admin(tg_chat, query.from_user):
            await click.say("error.not_admin")
            return
        chat = await self.quiz.update_settings(chat_ref(tg_chat), language=action.language)
        click.language = chat.settings.language
        await click.say("lang.set")



def _token(action: cd.Action) -> str | None:
    if isinstance(action, cd.AnswerChoice | cd.ToggleOption):
        return action.token
    if isinstance(action, cd.SelfGradeLevel):
        return action.level
    return None


def _controls(message: MaybeInaccessibleMessage) -> frozenset[str] | None:
    """The callback_data of the message's buttons (none once its keyboard was removed); None
    for a message too old for Telegram to say what it carries."""
    if not isinstance(message, Message):
        return None
    markup = message.reply_markup
    rows = markup.inline_keyboard if markup is not None else ()
    return frozenset(b.callback_data for row in rows for b in row if isinstance(b.callback_data, str))
