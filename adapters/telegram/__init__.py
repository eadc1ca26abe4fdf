"""Telegram: private study and group quizzes with inline keyboards, on python-telegram-bot 22."""

from adapters.telegram.adapter import TelegramAdapter

__all__ = ["TelegramAdapter"]
