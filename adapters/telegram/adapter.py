"""The Telegram adapter: runs a python-telegram-bot Application on the app's own event loop
(long polling, or a webhook when a webhook URL is set, each confirming an update to Telegram
only once it was handled: adapters/telegram/polling.py), turns updates into application calls,
renders the replies by view kind, and is the core's ChatPort."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from telegram import Chat as TgChat
from telegram import InlineKeyboardMarkup, LinkPreviewOptions, Message, ReplyParameters, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.ext import Application as PtbApplication
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    ContextTypes,
    ExtBot,
)

from adapters.redaction import add_secret
from adapters.telegram import transient
from adapters.telegram.admin import AdminCheck
from adapters.telegram.callbacks import Callbacks
from adapters.telegram.handlers import Handlers
from adapters.telegram.live import CountEdits, CountedMessage
from adapters.telegram.menu import set_commands
from adapters.telegram.mock_keyboard import mock_keyboard
from adapters.telegram.polling import ConfirmingPoller, HandlingWebhook
from adapters.telegram.redaction import Redaction
from adapters.telegram.render import (
    chat_ref,
    hinted,
    language_keyboard,
    message_ref,
    parse_message_ref,
    question_keyboard,
    split_html,
    star_keyboard,
    weak_keyboard,
)
from adapters.telegram.rounds import RoundIndex
from adapters.telegram.settings import TelegramSettings
from adapters.telegram.transient import PollingErrors, describe, is_transient
from adapters.telegram.transport import AiohttpRequest, RateLimiter
from adapters.telegram.updates import PerUserUpdateProcessor
from adapters.telegram.web_button import set_menu_button, with_web_button
from bot.application.app import Application
from bot.application.replies import FileView, Reply, WelcomeView
from bot.application.reply_text import render_reply
from bot.domain.kinds import ChatRef, Platform, RoundKind
from bot.locales.i18n import t
from bot.ports.chat import ChatGone, ChatMoved, PaceLimits, PostRejected, RetryLater
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView
from bot.views.quiz_text import HTML, render_notice, render_question, render_reveal, render_standings

log = logging.getLogger("studybot.telegram")
T = TypeVar("T")
# Opt in to PTB's coming timedelta durations now; PTB itself reads RetryAfter.retry_after on every
# 429 and would warn each time otherwise.
os.environ.setdefault("PTB_TIMEDELTA", "true")
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER]
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def retry_seconds(error: RetryAfter) -> float:
    value = getattr(error, "_retry_after", None)  # a timedelta, read without PTB's deprecation warning
    if not isinstance(value, timedelta):
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class TelegramAdapter:
    platform = Platform.TELEGRAM
    limits = PaceLimits(per_second=30, per_chat=20, per_chat_window=60)

    def __init__(self, app: Application, settings: TelegramSettings) -> None:
        token = settings.token.value
        if not token:
            raise ValueError("TELEGRAM_TOKEN is not set")
        if settings.webhook_url and not settings.webhook_secret.value:
            raise ValueError("a webhook needs its secret (STUDYBOT_TELEGRAM_WEBHOOK_SECRET)")
        add_secret(settings.webhook_secret.value)  # never in a log line, even PTB's request dumps
        self.app = app
        self.settings = settings
        # httpx logs every Bot API call at INFO, a line per click in a burst: kept for DEBUG only.
        quiet = logging.getLogger().getEffectiveLevel() > logging.DEBUG
        logging.getLogger("httpx").setLevel(logging.WARNING if quiet else logging.NOTSET)
        self.redaction = Redaction(token)
        self.redaction.install()  # PTB logs its API URLs, token included, while it is being built
        builder = (
            ApplicationBuilder().token(token).rate_limiter(RateLimiter(max_retries=settings.max_retries))
            .request(AiohttpRequest()).concurrent_updates(PerUserUpdateProcessor()).job_queue(None)
            # getUpdates has its own request object; PTB's default one logs a traceback for an
            # answer that is not JSON (a proxy's HTML 502 page): the poller reports it in one line.
            .get_updates_request(AiohttpRequest(connections=1, pool_timeout=1.0))
            .updater(None)  # updates are fetched here, and confirmed once handled (polling.py)
        )  # fmt: skip
        if settings.api_base:
            builder = builder.base_url(settings.api_base)
            # Files come from the same server: <base>/file/bot<token>/<file_path>, as Telegram's.
            if settings.api_base.rstrip("/").endswith("/bot"):
                builder = builder.base_file_url(settings.api_base.rstrip("/")[: -len("bot")] + "file/bot")
        self.application: PtbApplication = builder.build()
        self.receiver: ConfirmingPoller | HandlingWebhook | None = None
        self.rounds = RoundIndex()
        self.admins = AdminCheck(lambda: self.bot, settings.admin_ttl)
        self.counts = CountEdits(lambda: self.bot)
        # How many of a round's pictures were sent: a question the outbox posts again (flood
        # control after its photo went out) does not send a photo twice. The latest few hundred.
        self._pictured: OrderedDict[int, int] = OrderedDict()
        # Live counts under a group's daily question only.
        daily = frozenset({RoundKind.DAILY})
        self.live = app.live_counts(settings.live_count_seconds, self.counts.show, daily)
        Handlers(self).register(self.application)
        self.application.add_handler(CallbackQueryHandler(Callbacks(self).on_click))
        self.application.add_error_handler(self._on_error)

    @property
    def bot(self) -> ExtBot:
        return self.application.bot

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self.redaction.install()  # again: handlers configured since construction get it too
        transient.install()
        try:
            await self.application.initialize()
            try:
                await set_commands(self.bot)
            except TelegramError as exc:  # menus are a convenience; the bot works without them
                log.warning("telegram command menus not set: %s", exc)
            await set_menu_button(self.bot, self.app, self.settings.language)
            await self.application.start()
            self.live.start()
            if self.settings.webhook_url:
                hook = self.settings.webhook()
                self.receiver = HandlingWebhook(
                    self.application, listen=str(hook["listen"]), port=int(str(hook["port"])),
                    url_path=str(hook["url_path"]), webhook_url=str(hook["webhook_url"]),
                    secret_token=self.settings.webhook_secret.value, allowed_updates=ALLOWED_UPDATES,
                )  # fmt: skip
            else:
                self.receiver = ConfirmingPoller(
                    self.application,
                    timeout=timedelta(seconds=self.settings.poll_timeout),
                    allowed_updates=ALLOWED_UPDATES,
                    error_callback=PollingErrors(),
                )
            await self.receiver.start()
        except BaseException:
            await self.stop()
            raise
        log.info("telegram adapter running as @%s", self.bot.username)

    def connected(self) -> bool:
        """Polling or the webhook is running (for /readyz)."""
        return self.application.running and self.receiver is not None and self.receiver.running

    async def stop(self) -> None:
        application = self.application
        try:
            await self.live.stop()
            if self.receiver is not None:
                await self.receiver.stop()
                self.receiver = None
            if application.running:
                await application.stop()
            await application.shutdown()
        finally:
            transient.uninstall()
            self.redaction.remove()

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Log a handler's failure (the token is redacted: one line for Telegram's passing
        failures, a traceback for ours) and tell the user, if there is one."""
        error = context.error
        if is_transient(error):
            assert error is not None
            log.warning("telegram update not handled: %s", describe(error))
        elif _chat_gone(error):
            # Telegram refused to post into the chat the update came from: it was deleted, the
            # bot left or was blocked while the update was handled. Nobody is there to tell.
            assert error is not None
            log.warning("telegram update not answered, the chat is gone: %s", describe(error))
            return
        else:
            log.error("telegram update failed: %r", error, exc_info=error)
        if not isinstance(update, Update) or update.effective_chat is None:
            return
        try:
            language = await self.app.language(chat_ref(update.effective_chat))
        except Exception:
            language = self.settings.language
        try:
            await self.send(update.effective_chat.id, HTML.escape(t(language, "error.internal")))
        except TelegramError as exc:
            log.warning("could not tell chat %s about the error: %s", update.effective_chat.id, exc)

    # ------------------------------------------------------------ sending

    async def send(
        self,
        chat_id: int,
        html: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> Message:
        """Send HTML, split at 4096 characters; the keyboard goes under the last part."""
        chunks = split_html(html)
        sent: Message | None = None
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            sent = await self.bot.send_message(
                chat_id,
                chunk,
                parse_mode=ParseMode.HTML,
                reply_markup=markup if last else None,
                link_preview_options=NO_PREVIEW,
                reply_parameters=(
                    ReplyParameters(reply_to, allow_sending_without_reply=True)
                    if reply_to is not None and index == 0 else None
                ),
            )  # fmt: skip
        if sent is None:
            raise ValueError("nothing to send")
        return sent

    async def send_question(self, chat_id: int, view: QuestionView) -> str:
        """Post a question with its keyboard (by input kind); a typed answer or an order gets the how-to. Its
        pictures go first, each a photo, so that the question and its buttons come last."""
        for picture in self.app.pictures(view)[self._pictured.get(view.round_id, 0):]:
            await self.bot.send_photo(chat_id, picture.data)
            self._pictured[view.round_id] = self._pictured.get(view.round_id, 0) + 1
            while len(self._pictured) > 500:
                self._pictured.popitem(last=False)
        text = render_question(view, HTML, how_to=hinted(view))
        markup = question_keyboard(view)
        message = await self.send(chat_id, text, markup)
        self.rounds.posted(chat_id, message.message_id, view.round_id)
        if view.kind is RoundKind.DAILY and chat_id < 0:  # a group's daily (Telegram groups are < 0)
            self.counts.remember(view.round_id, CountedMessage(chat_id, message.message_id, text, markup,
                                                               view.language))  # fmt: skip
            self.live.track(view.round_id)
        return message_ref(chat_id, message.message_id)

    async def answer(self, message: Message, html: str, markup: InlineKeyboardMarkup | None = None) -> None:
        """Answer a message in its chat; in a group as a reply to it."""
        private = message.chat.type == TgChat.PRIVATE
        await self.send(message.chat.id, html, markup, reply_to=None if private else message.message_id)

    async def show(self, message: Message, reply: Reply) -> None:
        """An application reply to `message`, rendered by the kind of its view."""
        private = message.chat.type == TgChat.PRIVATE
        await self.post_reply(message.chat.id, reply, reply_to=None if private else message.message_id)

    async def post_reply(self, chat_id: int, reply: Reply, *, reply_to: int | None = None) -> None:
        """An application reply in a chat (as an answer to message `reply_to`, in a group)."""
        view = reply.view
        if isinstance(view, QuestionView):
            if view.lead:  # what became of the question before: its own message, above the question
                await self.send(chat_id, HTML.escape(view.lead), None, reply_to=reply_to)
                view = dataclasses.replace(view, lead="")
            ref = await self.send_question(chat_id, view)
            await self.app.question_posted(view.round_id, ref)
        else:
            for picture in self.app.pictures(view):  # a mock's item (or a reviewed one): above it
                await self.bot.send_photo(chat_id, picture.data)
            html = render_reply(reply, HTML)
            if html.strip():
                markup = language_keyboard() if isinstance(view, WelcomeView) else (
                    weak_keyboard(view) or mock_keyboard(view))  # fmt: skip
                markup = with_web_button(self.app, view, reply.language, markup, private=chat_id > 0)
                await self.send(chat_id, html, markup, reply_to=reply_to)
        for file in reply.files:
            await self.send_file(chat_id, file)

    async def replace_message(self, chat_id: int, message_id: int, html: str,
                              markup: InlineKeyboardMarkup | None) -> None:  # fmt: skip
        """Edit a message of ours into `html` with `markup` (a mock exam turning its page); a
        new message if it cannot be edited (too old, or too long for one)."""
        chunks = split_html(html)
        if len(chunks) == 1:
            try:
                await self.bot.edit_message_text(
                    chunks[0], chat_id=chat_id, message_id=message_id, parse_mode=ParseMode.HTML,
                    link_preview_options=NO_PREVIEW, reply_markup=markup,
                )  # fmt: skip
                return
            except BadRequest as exc:
                if "not modified" in str(exc).lower():
                    return
                log.info("message %s:%s not edited (%s): sent anew", chat_id, message_id, exc)
        await self.drop_keyboard(chat_id, message_id)
        await self.send(chat_id, html, markup)

    async def send_file(self, chat_id: int, file: FileView) -> None:
        """An image as a photo, anything else as a document."""
        caption = HTML.escape(file.caption) or None
        if file.image:
            await self.bot.send_photo(chat_id, file.data, caption=caption, parse_mode=ParseMode.HTML)
        else:
            await self.bot.send_document(chat_id, file.data, filename=file.filename, caption=caption,
                                         parse_mode=ParseMode.HTML)  # fmt: skip

    async def drop_keyboard(self, chat_id: int, message_id: int,
                            keep: InlineKeyboardMarkup | None = None) -> None:  # fmt: skip
        """Remove a message's buttons (all, or all but `keep`: a question's ☆)."""
        try:
            await self.bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id,
                                                     reply_markup=keep)  # fmt: skip
        except BadRequest as exc:  # already without buttons, or gone: nothing to remove
            log.debug("keyboard of %s:%s not removed: %s", chat_id, message_id, exc)

    # ------------------------------------------------------------ ChatPort

    async def post_question(self, chat: ChatRef, view: QuestionView) -> str:
        chat_id = int(chat.chat_key)
        ref = await self._port(lambda: self.send_question(chat_id, view))
        await self._retire(chat_id, view)
        return ref

    async def _retire(self, chat_id: int, view: QuestionView) -> None:
        """Take the answer buttons off the copy of a question that this one was posted to replace
        (its ☆ stays). Posted already, the new copy must not be sent again for this: a failure
        here only leaves buttons whose clicks are refused as stale."""
        target = parse_message_ref(view.replaces)
        if target is None or target[0] != chat_id:
            return
        try:
            await self.drop_keyboard(chat_id, target[1], keep=star_keyboard(view.round_id, view.language))
        except TelegramError as exc:
            log.info("earlier copy of round %s keeps its buttons: %s", view.round_id, describe(exc))

    async def post_reveal(self, chat: ChatRef, view: RevealView) -> None:
        await self._port(lambda: self._reveal(int(chat.chat_key), view))

    async def post_standings(self, chat: ChatRef, view: StandingsView) -> None:
        await self._port(lambda: self.send(int(chat.chat_key), render_standings(view, HTML)))

    async def post_notice(self, chat: ChatRef, notice: Notice) -> None:
        chat_id = int(chat.chat_key)
        target = parse_message_ref(notice.reply_to)  # e.g. a report's resolution answers the report
        reply_to = target[1] if target is not None and target[0] == chat_id else None
        await self._port(lambda: self.send(chat_id, render_notice(notice, HTML), reply_to=reply_to))

    def private_chat_key(self, user_key: str) -> str:
        """A person's private chat with the bot: Telegram gives it the person's own id."""
        return user_key

    async def _reveal(self, chat_id: int, view: RevealView) -> None:
        """Edit the question into its reveal (its answer buttons give way to the ☆); a new message
        if that fails."""
        text = render_reveal(view, HTML)
        star = star_keyboard(view.round_id, view.language)
        target = parse_message_ref(view.message_ref)
        if target is not None and target[0] == chat_id:
            first, *rest = split_html(text)
            try:
                async with self.live.closing(view.round_id):
                    self.counts.forget(view.round_id)
                    await self.bot.edit_message_text(
                        first, chat_id=chat_id, message_id=target[1], parse_mode=ParseMode.HTML,
                        link_preview_options=NO_PREVIEW, reply_markup=star,
                    )  # fmt: skip
            except BadRequest as exc:
                if "not modified" in exc.message.lower():
                    return  # revealed already (a retried post)
                log.info("reveal of round %s sent anew: %s", view.round_id, exc.message)
            else:
                for chunk in rest:
                    await self.send(chat_id, chunk)
                return
        await self.send(chat_id, text, star)

    async def _port(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run a post, translating Telegram's refusals into the core's PostErrors."""
        try:
            return await call()
        except RetryAfter as exc:
            raise RetryLater(retry_seconds(exc), str(exc)) from exc
        except Forbidden as exc:
            raise ChatGone(exc.message) from exc
        except ChatMigrated as exc:
            raise ChatMoved(str(exc.new_chat_id)) from exc
        except BadRequest as exc:
            if "chat not found" in exc.message.lower():
                raise ChatGone(exc.message) from exc
            raise PostRejected(exc.message) from exc


def _chat_gone(error: BaseException | None) -> bool:
    """Telegram's refusal to post into a chat that is no longer there for the bot."""
    if isinstance(error, Forbidden):
        return True
    return isinstance(error, BadRequest) and "chat not found" in error.message.lower()
