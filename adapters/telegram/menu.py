"""The command menus Telegram shows: per scope (private chats, groups, group admins), in Chinese
(language_code "zh") and English (the default), with descriptions from the catalog."""

from __future__ import annotations

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)

from bot.i18n import t

PRIVATE = ("start", "quiz", "review", "daily", "tz", "stats", "streak", "lang", "bank", "contest", "help")
GROUP = ("quiz", "leaderboard", "stats", "streak", "review", "help")
ADMINS = (*GROUP, "daily", "contest", "bank", "lang", "tz")
LANGUAGES = (("zh", "zh-CN"), (None, "en"))  # (language_code, catalog language); None = default


def menus() -> list[tuple[BotCommandScope, str | None, list[BotCommand]]]:
    scopes: tuple[tuple[BotCommandScope, tuple[str, ...]], ...] = (
        (BotCommandScopeAllPrivateChats(), PRIVATE),
        (BotCommandScopeAllGroupChats(), GROUP),
        (BotCommandScopeAllChatAdministrators(), ADMINS),
    )
    return [
        (scope, code, [BotCommand(name, t(language, f"tg.cmd.{name}")) for name in names])
        for scope, names in scopes
        for code, language in LANGUAGES
    ]


async def set_commands(bot: Bot) -> None:
    for scope, code, commands in menus():
        await bot.set_my_commands(commands, scope=scope, language_code=code)
