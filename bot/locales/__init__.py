"""The catalogs, one per language (`<locale>/LC_MESSAGES/studybot.po`), and `i18n`, which reads them.

Every layer of the core may import `bot.locales.i18n`; it imports only the standard library.
"""
