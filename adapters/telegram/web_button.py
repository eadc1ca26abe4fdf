"""The web app's "📝 打开网页版" button (a Mini App, adapters/web) under /start, /mock and /stats in
a private chat, and the chat's menu button; nothing at all when the web app is not configured."""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, MenuButtonWebApp, WebAppInfo
from telegram.error import TelegramError

from bot.application.app import Application, MockQuestionView, ProgressView
from bot.application.replies import WelcomeView
from bot.locales.i18n import t
from bot.views.quiz import StatsView

log = logging.getLogger("studybot.telegram")


def _offers(view: object) -> bool:
    if isinstance(view, WelcomeView):
        return True
    if isinstance(view, MockQuestionView):
        return view.intro is not None  # the mock's first message (its start or resume), not each page
    return isinstance(view, ProgressView | StatsView)  # /stats, with or without the study tools


def with_web_button(
    app: Application, view: object, language: str, markup: InlineKeyboardMarkup | None, *, private: bool
) -> InlineKeyboardMarkup | None:
    """`markup` with the web app's button added below, where it belongs."""
    if app.web is None or not private or not _offers(view):
        return markup
    button = InlineKeyboardButton(t(language, "web.open_button"), web_app=WebAppInfo(app.web.app_url()))
    rows = [list(row) for row in markup.inline_keyboard] if markup is not None else []
    return InlineKeyboardMarkup([*rows, [button]])


async def set_menu_button(bot: Bot, app: Application, language: str) -> None:
    """The web app as the private chats' menu button (a convenience: failing it is only logged)."""
    if app.web is None:
        return
    try:
        button = MenuButtonWebApp(t(language, "web.open_button"), WebAppInfo(app.web.app_url()))
        await bot.set_chat_menu_button(menu_button=button)
    except TelegramError as exc:
        log.warning("telegram menu button not set: %s", exc)
