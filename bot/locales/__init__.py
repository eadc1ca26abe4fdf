"""The gettext catalogs, one per language (`<locale>/LC_MESSAGES/studybot.po`), read by `bot.i18n`."""
