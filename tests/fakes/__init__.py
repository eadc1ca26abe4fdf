"""Fake chat-platform servers (aiohttp on 127.0.0.1) that the real discord.py and python-telegram-bot talk to in tests."""
