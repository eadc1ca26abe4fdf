"""Bring a PostgreSQL database's schema up to date from the shared list of migrations.

The version lives in the one-row table schema_version. Migrating holds a transaction-level
advisory lock, so several processes starting at once migrate one after the other (the later
ones find nothing to do).
"""

from __future__ import annotations

import asyncpg

from adapters.storage.migrations import LATEST, postgres_script
from adapters.storage.open_errors import SchemaTooNew

# An arbitrary constant naming studybot's migration lock among the database's advisory locks.
MIGRATION_LOCK = 0x5354_4442_0001


async def schema_version(conn: asyncpg.Connection) -> int:
    found = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not found:
        return 0
    return int(await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_version"))


async def migrate(conn: asyncpg.Connection, target: int = LATEST) -> int:
    """Apply every version after the database's up to `target`; returns the version found."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        found = await schema_version(conn)
        if found > LATEST:
            raise SchemaTooNew(
                f"database schema version {found} is newer than this studybot ({LATEST}); upgrade studybot"
            )
        for version in range(found + 1, target + 1):
            await conn.execute(postgres_script(version))  # a script: several statements, no parameters
        if target > found:
            await conn.execute("DELETE FROM schema_version")
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", target)
    return found
