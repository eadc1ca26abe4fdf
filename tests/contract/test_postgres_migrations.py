"""PostgreSQL's text of every migration: applied one version at a time, and the study tables of
version 6 as the stores need them (identity ids, JSON as text, one open mock per person); a
schema newer than this studybot, and the URL shown when opening fails."""

from __future__ import annotations

import asyncpg
import pytest

from adapters.storage.migrations import LATEST
from adapters.storage.open_errors import OpenProblem, StoreOpenError
from adapters.storage.postgres.migrate import migrate, schema_version
from adapters.storage.postgres.open_errors import classify, shown_url
from adapters.storage.postgres.store import PostgresStore


async def empty_database(server, name: str) -> asyncpg.Connection:
    admin = await asyncpg.connect(server.dsn())
    try:
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    return await asyncpg.connect(server.dsn(name))


async def test_every_version_applies_after_the_one_before(pg_server):
    conn = await empty_database(pg_server, "stepwise")
    try:
        for version in range(1, LATEST + 1):
            assert await migrate(conn, version) == version - 1
            assert await schema_version(conn) == version
        assert await migrate(conn) == LATEST
    finally:
        await conn.close()


async def test_version_6_on_a_database_with_answers(pg_server):
    conn = await empty_database(pg_server, "from_five")
    try:
        await migrate(conn, 5)
        user = await conn.fetchval(
            "INSERT INTO users (platform, user_key, display_name) VALUES ('discord', 'u', 'U') RETURNING id"
        )
        chat = await conn.fetchval(
            "INSERT INTO chats (platform, chat_key, kind, bank_id, timezone, language, reveal_policy, "
            "answer_policy, created_at) VALUES ('discord', 'c', 'group', 'b', 'UTC', 'en', 'round', 'first', "
            "'2026-01-01T00:00:00.000000Z') RETURNING id"
        )
        assert await migrate(conn) == 5
        identity = await conn.fetchval(
            "SELECT string_agg(table_name || '.' || column_name, ',' ORDER BY table_name) "
            "FROM information_schema.columns WHERE is_identity = 'YES' AND table_name IN ('mocks', 'reports')"
        )
        assert identity == "mocks.id,reports.id"
        index = await conn.fetchval("SELECT indexdef FROM pg_indexes WHERE indexname = 'mocks_open'")
        assert index.startswith("CREATE UNIQUE INDEX") and "WHERE (state = 'open'" in index
        insert = (
            "INSERT INTO mocks (user_id, chat_id, bank_id, items, sections, pass_mark, started_at, ends_at, "
            "state) VALUES ($1, $2, 'b', '[[\"q\", 0]]', '[[\"single\", 1, 1.0]]', 0.6, 't0', 't1', $3) "
            "ON CONFLICT (user_id) WHERE state = 'open' DO NOTHING RETURNING id"
        )
        first = await conn.fetchval(insert, user, chat, "open")
        assert first is not None
        assert await conn.fetchval(insert, user, chat, "open") is None
        assert await conn.fetchval(insert, user, chat, "done") > first  # a refused row may use up an id
        assert await conn.fetchval("SELECT items FROM mocks WHERE id = $1", first) == '[["q", 0]]'
    finally:
        await conn.close()


async def test_a_schema_newer_than_this_studybot_is_a_store_open_error(pg_server):
    conn = await empty_database(pg_server, "from_the_future")
    try:
        await migrate(conn)
        await conn.execute("UPDATE schema_version SET version = $1", LATEST + 1)
    finally:
        await conn.close()
    with pytest.raises(StoreOpenError) as raised:
        await PostgresStore.open(pg_server.dsn("from_the_future"))
    assert raised.value.problem is OpenProblem.NEWER
    assert raised.value.path == pg_server.dsn("from_the_future")


def test_the_url_shown_keeps_all_but_the_password():
    assert shown_url("postgresql://bot:hunter2@db:5433/studybot?sslmode=require") == (
        "postgresql://bot@db:5433/studybot?sslmode=require"
    )
    assert shown_url("postgresql://bot@db/studybot") == "postgresql://bot@db/studybot"
    refused = classify(ConnectionRefusedError(111, "refused by hunter2"), "postgresql://bot:hunter2@db/x")
    assert refused is not None and refused.problem is OpenProblem.UNREACHABLE
    assert "hunter2" not in refused.detail + refused.path
    assert classify(ValueError("a bug of ours"), "postgresql://db/x") is None


async def test_version_11_keeps_what_the_answers_foreign_keys_did_on_deletion(pg_server):
    """The answers table lost its foreign keys (version 11): a deleted round still takes its
    answers along, and a user with answers still cannot be deleted."""
    conn = await empty_database(pg_server, "from_ten")
    try:
        await migrate(conn, 10)
        user = await conn.fetchval(
            "INSERT INTO users (platform, user_key, display_name) VALUES ('discord', 'u', 'U') RETURNING id"
        )
        chat = await conn.fetchval(
            "INSERT INTO chats (platform, chat_key, kind, bank_id, timezone, language, reveal_policy, "
            "answer_policy, created_at) VALUES ('discord', 'c', 'group', 'b', 'UTC', 'en', 'round', 'first', "
            "'2026-01-01T00:00:00.000000Z') RETURNING id"
        )
        rounds = [
            await conn.fetchval(
                "INSERT INTO rounds (chat_id, bank_id, question_id, kind, opened_at, closes_at, reveal, "
                "answer_policy) VALUES ($1, 'b', $2, 'daily', 't0', 't1', 'round', 'first') RETURNING id",
                chat,
                question,
            )
            for question in ("q1", "q2")
        ]
        assert await migrate(conn) == 10
        for round_id in rounds:
            await conn.execute(
                "INSERT INTO answers (round_id, user_id, response, answered_at, verdict, fraction, points, "
                "week_key, month_key) VALUES ($1, $2, 'A', 't0', 'correct', 1, 1, 'w', 'm')",
                round_id, user,
            )  # fmt: skip
        keys = await conn.fetchval("SELECT count(*) FROM pg_constraint WHERE conrelid = 'answers'::regclass "
                                   "AND contype = 'f'")  # fmt: skip
        assert keys == 0
        await conn.execute("DELETE FROM rounds WHERE id = $1", rounds[0])
        assert await conn.fetchval("SELECT array_agg(round_id) FROM answers") == [rounds[1]]
        with pytest.raises(asyncpg.ForeignKeyViolationError, match="still has answers"):
            await conn.execute("DELETE FROM users WHERE id = $1", user)
        await conn.execute("DELETE FROM chats WHERE id = $1", chat)  # its rounds, and so their answers
        assert await conn.fetchval("SELECT count(*) FROM answers") == 0
        await conn.execute("DELETE FROM users WHERE id = $1", user)
    finally:
        await conn.close()
