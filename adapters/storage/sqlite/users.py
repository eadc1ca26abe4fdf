"""Users registered (or renamed) in bulk on SQLite: one executemany, then the ids read back in
chunks under SQLite's bound-parameter limit. (PostgreSQL does it with arrays, postgres/store.py;
the rest of chats and users is written once, chats_rounds.py.)

Runs inside a transaction the store opened; it never commits itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite

from bot.domain.kinds import UserRef


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
