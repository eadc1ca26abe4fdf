"""Slash-command names, descriptions and choices in zh-CN, zh-TW and en-US, from the message catalog.

Every localizable string is a `locale_str` whose `key` extra names a catalog entry; strings
without a key (e.g. the choice "English") are left as they are.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.locales.i18n import t

LOCALES = {
    discord.Locale.chinese: "zh-CN",
    discord.Locale.taiwan_chinese: "zh-TW",
    discord.Locale.american_english: "en",
}


def text(key: str) -> app_commands.locale_str:
    """A localizable command string; its default (what Discord shows elsewhere) is the English one."""
    return app_commands.locale_str(t("en", key), key=key)


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        language = LOCALES.get(locale)
        if key is None or language is None:
            return None
        return t(language, key)
