"""The command menus Telegram shows, built from the command catalog: per scope (private chats,
groups, group admins) and language ("zh" clients: zh-CN wording; everyone else: English).

A top-level name is listed in a scope when one of its commands may run there: private chats
list what the private scope allows; groups what anyone may run in a group; group admins every
group command.
"""

from __future__ import annotations

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)

from bot.application.commands import catalog
from bot.application.commands.catalog import Command, Permission
from bot.locales.i18n import t

LANGUAGES = (("zh", "zh-CN"), (None, "en"))  # (language_code, catalog language); None = default


def _private(command: Command) -> bool:
    return command.scope.allows(True)


def _group(command: Command) -> bool:
    return command.scope.allows(False) and command.permission is Permission.ANYONE


def _admins(command: Command) -> bool:
    return command.scope.allows(False)


SCOPES = (
    (BotCommandScopeAllPrivateChats(), _private),
    (BotCommandScopeAllGroupChats(), _group),
    (BotCommandScopeAllChatAdministrators(), _admins),
)


def names(listed: object) -> list[str]:
    """The top-level names a scope's rule lists, in catalog order."""
    rule = next(r for scope, r in SCOPES if scope == listed)
    return [name for name in catalog.groups() if any(rule(c) for c in catalog.CATALOG if c.path[0] == name)]


def menus() -> list[tuple[BotCommandScope, str | None, list[BotCommand]]]:
    return [
        (scope, code, [BotCommand(name, t(language, f"cmd.{name}.desc")) for name in names(scope)])
        for scope, _ in SCOPES
        for code, language in LANGUAGES
    ]


async def set_commands(bot: Bot) -> None:
    for scope, code, commands in menus():
        await bot.set_my_commands(commands, scope=scope, language_code=code)
