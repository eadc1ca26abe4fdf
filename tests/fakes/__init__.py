"""Fakes for tests: fake platform servers (aiohttp on 127.0.0.1) for the real discord.py and
python-telegram-bot, and fakes of the core's own ports."""
