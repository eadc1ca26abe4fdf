"""The write side of chats, server settings and users: inserts, renames and settings updates.

Each function runs inside a transaction the store opened; it never commits itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import aiosqlite

from adapters.storage.sql import to_db
from bot.kinds import ChatRef, UserRef
from bot.records import ChatSettings


async def insert_chat(db: aiosqlite.Connection, ref: ChatRef, defaults: ChatSettings) -> None:
    """Add a chat with the default settings, in its server's language if the server chose one; a
    chat already there (a concurrent insert) is left as is."""
    await db.execute(
        "INSERT INTO chats (platform, chat_key, kind, guild_key, title, bank_id, timezone, "
        "language, reveal_policy, answer_policy, partial_credit, created_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce((SELECT language FROM guild_settings "
        "WHERE platform = ?1 AND guild_key = ?4), ?8), ?9, ?10, ?11, ?12) ON CONFLICT DO NOTHING",
        (
            str(ref.platform),
            ref.chat_key,
            str(ref.kind),
            ref.guild_key,
            ref.title,
            defaults.bank_id,
            defaults.timezone,
            defaults.language,
            str(defaults.reveal_policy),
            str(defaults.answer_policy),
            int(defaults.partial_credit),
            to_db(datetime.now(UTC)),
        ),
    )


async def rename_chat(db: aiosqlite.Connection, chat_id: int, guild_key: str | None, title: str) -> None:
    """Set a chat's title, and its server unless guild_key is None."""
    await db.execute(
        "UPDATE chats SET guild_key = coalesce(?, guild_key), title = ? WHERE id = ?",
        (guild_key, title, chat_id),
    )


async def save_chat_settings(db: aiosqlite.Connection, chat_id: int, settings: ChatSettings) -> None:
    await db.execute(
        "UPDATE chats SET bank_id = ?, timezone = ?, language = ?, reveal_policy = ?, "
        "answer_policy = ?, partial_credit = ? WHERE id = ?",
        (
            settings.bank_id,
            settings.timezone,
            settings.language,
            str(settings.reveal_policy),
            str(settings.answer_policy),
            int(settings.partial_credit),
            chat_id,
        ),
    )


async def set_guild_language(
    db: aiosqlite.Connection, platform: str, guild_key: str, language: str
) -> list[int]:
    """Store a server's language and set it on every chat of the server; those chats' ids."""
    await db.execute(
        "INSERT INTO guild_settings (platform, guild_key, language) VALUES (?, ?, ?) "
        "ON CONFLICT (platform, guild_key) DO UPDATE SET language = excluded.language",
        (platform, guild_key, language),
    )
    await db.execute(
        "UPDATE chats SET language = ? WHERE platform = ? AND guild_key = ?",
        (language, platform, guild_key),
    )
    rows = await db.execute_fetchall(
        "SELECT id FROM chats WHERE platform = ? AND guild_key = ?", (platform, guild_key)
    )
    return [row[0] for row in rows]


async def register_users(db: aiosqlite.Connection, refs: Sequence[UserRef]) -> list[int]:
    """Register (or rename) users; their ids, in order."""
    rows = [(str(r.platform), r.user_key, r.display_name) for r in refs]
    await db.executemany(
        "INSERT INTO users (platform, user_key, display_name) VALUES (?, ?, ?) "
        "ON CONFLICT (platform, user_key) DO UPDATE SET display_name = excluded.display_name "
        "WHERE display_name != excluded.display_name",
        rows,
    )
    found: dict[tuple[str, str], int] = {}
    keys = sorted({(platform, user_key) for platform, user_key, _ in rows})
    for start in range(0, len(keys), 400):  # stay under SQLite's bound-parameter limit
        chunk = keys[start : start + 400]
        pairs = " OR ".join("(platform = ? AND user_key = ?)" for _ in chunk)
        params = [part for key in chunk for part in key]
        for platform, user_key, user_id in await db.execute_fetchall(
            f"SELECT platform, user_key, id FROM users WHERE {pairs}", params
        ):
            found[(platform, user_key)] = user_id
    return [found[(platform, user_key)] for platform, user_key, _ in rows]
