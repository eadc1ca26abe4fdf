"""Adapters: chat platforms (console, Discord, Telegram) and the driven ports (SQLite store, APScheduler)."""
