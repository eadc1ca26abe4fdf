"""Driven adapter for storage: the SQLite (aiosqlite) implementation of the core's Store port."""
