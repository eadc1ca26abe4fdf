"""The contract suite's fixtures: every test runs once per storage backend (SQLite, PostgreSQL).

One PostgreSQL server per test session (tests/pg_server.py); each test gets a fresh database
copied from a migrated template (CREATE DATABASE … TEMPLATE), which takes milliseconds. Without
the PostgreSQL binaries the PostgreSQL half is skipped, with the reason, except under CI=true,
where it fails: CI must run both backends.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from adapters.storage.backends import PostgresStorage, SqliteStorage
from adapters.storage.postgres.migrate import migrate
from tests.pg_server import PgServer, find_bin_dir

TEMPLATE = "studybot_template"
_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        reason = "PostgreSQL binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; CI must run the PostgreSQL contract tests")
        pytest.skip(reason)
    server = PgServer(bin_dir).start()
    server.template_ready = False  # type: ignore[attr-defined]
    yield server
    server.stop()


async def fresh_database(server: PgServer) -> str:
    """A new, migrated database on the server; its DSN."""
    admin = await asyncpg.connect(server.dsn())
    try:
        if not server.template_ready:  # type: ignore[attr-defined]
            await admin.execute(f"CREATE DATABASE {TEMPLATE}")
            template = await asyncpg.connect(server.dsn(TEMPLATE))
            try:
                await migrate(template)
            finally:
                await template.close()
            server.template_ready = True  # type: ignore[attr-defined]
        name = f"t{next(_numbers)}"
        await admin.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
    finally:
        await admin.close()
    return server.dsn(name)


@pytest.fixture(params=["sqlite", "postgres"])
async def storage(request, tmp_path) -> AsyncIterator[SqliteStorage | PostgresStorage]:
    opened: SqliteStorage | PostgresStorage
    if request.param == "sqlite":
        opened = await SqliteStorage.open(tmp_path / "studybot.db", synchronous="NORMAL")
    else:
        server = request.getfixturevalue("pg_server")
        opened = await PostgresStorage.open(await fresh_database(server))
    yield opened
    await opened.close()


@pytest.fixture
def backend(storage) -> str:
    return "postgres" if isinstance(storage, PostgresStorage) else "sqlite"
