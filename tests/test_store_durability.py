"""The database is the source of truth: data survives closing and reopening; schema upgrades work."""

from __future__ import annotations

import random
import sqlite3

import pytest

from adapters.storage.migrations import LATEST, MIGRATIONS, migrate
from adapters.storage.sqlite.store import SqliteStore
from bot.application.quiz import Quiz
from bot.application.requests import Ask, ShowLeaderboard, ShowStats, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef

CHAT = ChatRef(Platform.CONSOLE, "console", ChatKind.PRIVATE)
ME = UserRef(Platform.CONSOLE, "me", "Me")


async def test_data_survives_closing_and_reopening(tmp_path, bank, settings, clock):
    path = tmp_path / "studybot.db"
    store = await SqliteStore.open(path)
    quiz = Quiz(store, {bank.id: bank}, settings, clock, random.Random(1))
    view = await quiz.ask(Ask(CHAT, ME, tag="physics"))
    receipt = await quiz.submit(SubmitAnswer(view.round_id, ME, "对"))
    assert receipt.verdict == "correct"
    await store.close()

    store = await SqliteStore.open(path)
    quiz = Quiz(store, {bank.id: bank}, settings, clock, random.Random(1))
    board = await quiz.leaderboard(ShowLeaderboard(CHAT, ME))
    stats = await quiz.stats(ShowStats(CHAT, ME))
    assert [(r.name, r.points) for r in board.rows] == [("Me", 1.0)]
    assert (stats.answers, stats.correct) == (1, 1)
    again = await quiz.submit(SubmitAnswer(view.round_id, ME, "错"))  # a retry after restart
    assert again.response == "true" and again.status == "duplicate"
    mode = (await (await store.reader.execute("PRAGMA journal_mode")).fetchone())[0]
    fks = (await (await store.db.execute("PRAGMA foreign_keys")).fetchone())[0]
    assert (mode, fks) == ("wal", 1)
    await store.close()


def _sample_rows(conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT INTO chats (platform, chat_key, kind, bank_id, timezone, language, reveal_policy, "
        "answer_policy, created_at) VALUES ('console', 'console', 'private', 'sample', "
        "'Asia/Shanghai', 'en', 'practice', 'first', '2026-12-01T00:00:00.000000+00:00')"
    )
    conn.execute("INSERT INTO users (platform, user_key, display_name) VALUES ('console', 'me', 'Me')")


@pytest.mark.parametrize("start", range(0, LATEST + 1))
async def test_upgrade_from_every_earlier_version(tmp_path, start, bank, settings, clock):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    migrate(conn, target=start)
    if start >= 1:
        _sample_rows(conn)
    conn.close()

    store = await SqliteStore.open(path)
    version = (await (await store.db.execute("PRAGMA user_version")).fetchone())[0]
    assert version == LATEST == len(MIGRATIONS)
    quiz = Quiz(store, {bank.id: bank}, settings, clock, random.Random(1))
    chat = await quiz.chat(CHAT)
    if start >= 1:
        assert chat.id == 1 and await store.find_user(ME) == 1  # old rows kept
    view = await quiz.ask(Ask(CHAT, ME, tag="physics"))
    assert (await quiz.submit(SubmitAnswer(view.round_id, ME, "对"))).verdict == "correct"
    await store.close()


def test_a_newer_database_is_refused(tmp_path):
    path = tmp_path / "future.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    with pytest.raises(RuntimeError, match="newer than this studybot"):
        migrate(conn)
    conn.close()


async def test_writes_are_read_back_even_while_a_reader_snapshot_is_open(store, bank, clock):
    """A cursor left open on the read connection pins an old snapshot; read-backs must not use it."""
    from datetime import timedelta

    from bot.domain.kinds import AnswerPolicy, RevealPolicy, RoundKind
    from bot.domain.records import ChatSettings, NewRound

    await store.ensure_user(ME)
    pinned = await store.reader.execute("SELECT id FROM users UNION ALL SELECT id FROM users")
    chat = await store.ensure_chat(CHAT, ChatSettings("sample", "UTC", "en"))
    round_ = await store.open_round(
        NewRound(chat.id, "sample", "s-1", RoundKind.DAILY, clock.now(), clock.now() + timedelta(hours=1),
                 RevealPolicy.ROUND, AnswerPolicy.FIRST, False, daily_date="2026-12-02")
    )  # fmt: skip
    renamed = await store.update_chat(chat.id, ChatSettings("sample", "Asia/Tokyo", "en"))
    assert round_.question_id == "s-1" and renamed.settings.timezone == "Asia/Tokyo"
    await pinned.close()
    assert (await store.get_round(round_.id)).id == round_.id
