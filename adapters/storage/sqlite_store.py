"""The SQLite implementation of the core's Store port, on aiosqlite.

One database file in WAL mode with foreign keys on. Writes go through one connection under an
asyncio lock, each an explicit BEGIN IMMEDIATE ... COMMIT; reads use a second connection so a
leaderboard never waits behind a burst of answers and never sees uncommitted rows.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

from adapters.storage.answer_writes import CREATE_INCOMING, record_answers, update_streaks
from adapters.storage.migrations import migrate
from adapters.storage.sql import (
    APPLY_SCORES,
    CHAT_COLUMNS,
    ROUND_COLUMNS,
    chat_from_row,
    from_db,
    round_from_row,
    to_db,
)
from bot.ports import DuplicateDaily
from bot.records import (
    AnswerOutcome,
    Chat,
    ChatRef,
    ChatSettings,
    NewAnswer,
    NewRound,
    RevealPolicy,
    Round,
    ScoreRow,
    StoredAnswer,
    StreakRecord,
    UserRef,
    UserTotals,
)


class SqliteStore:
    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.path = str(path)
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "FULL") -> SqliteStore:
        store = cls(path, synchronous=synchronous)
        await store.connect()
        return store

    async def connect(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(_prepare_file, self.path)
        self._db = await self._connection()
        await self._db.execute(CREATE_INCOMING)
        self._reader = await self._connection()

    async def _connection(self) -> aiosqlite.Connection:
        conn = await aiosqlite.connect(self.path, isolation_level=None)
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA busy_timeout = 5000")
        await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        return conn

    async def close(self) -> None:
        for conn in (self._db, self._reader):
            if conn is not None:
                await conn.close()
        self._db = self._reader = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("store is not open")
        return self._db

    @property
    def reader(self) -> aiosqlite.Connection:
        if self._reader is None:
            raise RuntimeError("store is not open")
        return self._reader

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; committed on exit, rolled back on any error."""
        async with self._write_lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    async def _one(self, sql: str, params: Sequence | dict = ()) -> tuple | None:
        # fetchall in one hop: a cursor left open between hops would hold the reader on an old
        # snapshot, and every other read on it would miss what was committed since.
        rows = await self.reader.execute_fetchall(sql, params)
        return rows[0] if rows else None

    async def read_own(self, sql: str, params: Sequence | dict = ()) -> tuple | None:
        """A read on the writer, for reading back what was just written (read-your-writes)."""
        async with self._write_lock:
            rows = await self.db.execute_fetchall(sql, params)
        return rows[0] if rows else None

    async def _all(self, sql: str, params: Sequence | dict = ()) -> list[tuple]:
        return list(await self.reader.execute_fetchall(sql, params))

    # ------------------------------------------------------------ chats and users

    async def ensure_chat(self, ref: ChatRef, defaults: ChatSettings) -> Chat:
        row = await self._one(
            f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = ? AND chat_key = ?",
            (str(ref.platform), ref.chat_key),
        )
        if row is not None:
            chat = chat_from_row(row)
            if (ref.guild_key, ref.title) != (chat.ref.guild_key, chat.ref.title) and (
                ref.guild_key or ref.title
            ):
                async with self.transaction() as db:
                    await db.execute(
                        "UPDATE chats SET guild_key = coalesce(?, guild_key), title = ? WHERE id = ?",
                        (ref.guild_key, ref.title or chat.ref.title, chat.id),
                    )
                row = await self.read_own(f"SELECT {CHAT_COLUMNS} FROM chats WHERE id = ?", (chat.id,))
                assert row is not None
                return chat_from_row(row)
            return chat
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_key, kind, guild_key, title, bank_id, timezone, "
                "language, reveal_policy, answer_policy, partial_credit, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
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
        row = await self.read_own(
            f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = ? AND chat_key = ?",
            (str(ref.platform), ref.chat_key),
        )
        assert row is not None
        return chat_from_row(row)

    async def get_chat(self, chat_id: int) -> Chat | None:
        row = await self._one(f"SELECT {CHAT_COLUMNS} FROM chats WHERE id = ?", (chat_id,))
        return chat_from_row(row) if row else None

    async def find_chat(self, platform: str, chat_key: str) -> Chat | None:
        row = await self._one(
            f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = ? AND chat_key = ?",
            (platform, chat_key),
        )
        return chat_from_row(row) if row else None

    async def update_chat(self, chat_id: int, settings: ChatSettings) -> Chat:
        async with self.transaction() as db:
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
        row = await self.read_own(f"SELECT {CHAT_COLUMNS} FROM chats WHERE id = ?", (chat_id,))
        if row is None:
            raise KeyError(chat_id)
        return chat_from_row(row)

    async def set_chat_paused(self, chat_id: int, paused: bool) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE chats SET paused = ? WHERE id = ?", (int(paused), chat_id))

    async def move_chat(self, chat_id: int, new_chat_key: str) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE chats SET chat_key = ? WHERE id = ?", (new_chat_key, chat_id))

    async def guild_language(self, platform: str, guild_key: str) -> str | None:
        row = await self._one(
            "SELECT language FROM guild_settings WHERE platform = ? AND guild_key = ?", (platform, guild_key)
        )
        return row[0] if row else None

    async def set_guild_language(self, platform: str, guild_key: str, language: str) -> list[int]:
        async with self.transaction() as db:
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

    async def ensure_user(self, ref: UserRef) -> int:
        return (await self.ensure_users([ref]))[0]

    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) users in one transaction; their ids, in order."""
        rows = [(str(r.platform), r.user_key, r.display_name) for r in refs]
        async with self.transaction() as db:
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

    async def find_user(self, ref: UserRef) -> int | None:
        row = await self._one(
            "SELECT id FROM users WHERE platform = ? AND user_key = ?",
            (str(ref.platform), ref.user_key),
        )
        return row[0] if row else None

    # ------------------------------------------------------------ rounds

    async def question_counts(self, chat_id: int, bank_id: str) -> dict[str, int]:
        rows = await self._all(
            "SELECT question_id, count(*) FROM rounds WHERE chat_id = ? AND bank_id = ? GROUP BY question_id",
            (chat_id, bank_id),
        )
        return {qid: n for qid, n in rows}

    async def open_round(self, new: NewRound) -> Round:
        try:
            async with self.transaction() as db:
                async with db.execute(
                    "INSERT INTO rounds (chat_id, bank_id, question_id, kind, opened_at, closes_at, "
                    "reveal, answer_policy, partial_credit, daily_date, contest_id, answer_mode) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        new.chat_id,
                        new.bank_id,
                        new.question_id,
                        str(new.kind),
                        to_db(new.opened_at),
                        to_db(new.closes_at),
                        str(new.reveal),
                        str(new.answer_policy),
                        int(new.partial_credit),
                        new.daily_date,
                        new.contest_id,
                        str(new.mode),
                    ),
                ) as cursor:
                    row = await cursor.fetchone()
        except sqlite3.IntegrityError as exc:
            if "daily_date" in str(exc):
                raise DuplicateDaily(f"chat {new.chat_id} already has the {new.daily_date} daily") from exc
            raise
        assert row is not None
        found = await self.read_own(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", (row[0],))
        assert found is not None
        return round_from_row(found)

    async def get_round(self, round_id: int) -> Round | None:
        row = await self._one(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", (round_id,))
        return round_from_row(row) if row else None

    async def set_message_ref(self, round_id: int, message_ref: str) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE rounds SET message_ref = ? WHERE id = ?", (message_ref, round_id))

    async def round_by_message(self, chat_id: int, message_ref: str) -> Round | None:
        row = await self._one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = ? AND message_ref = ? "
            "ORDER BY id DESC LIMIT 1",
            (chat_id, message_ref),
        )
        return round_from_row(row) if row else None

    async def open_rounds(self) -> list[Round]:
        rows = await self._all(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE state = 'open' ORDER BY closes_at")
        return [round_from_row(r) for r in rows]

    async def last_round(self, chat_id: int) -> Round | None:
        row = await self._one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = ? ORDER BY id DESC LIMIT 1",
            (chat_id,),
        )
        return round_from_row(row) if row else None

    async def restart_round(self, round_id: int, opened_at: datetime, closes_at: datetime) -> None:
        async with self.transaction() as db:
            await db.execute(
                "UPDATE rounds SET opened_at = ?, closes_at = ? WHERE id = ? AND state = 'open'",
                (to_db(opened_at), to_db(closes_at), round_id),
            )

    async def close_round(self, round_id: int, closed_at: datetime) -> bool:
        async with self.transaction() as db:
            cursor = await db.execute(
                "UPDATE rounds SET state = 'closed', closed_at = ? WHERE id = ? AND state = 'open' "
                "RETURNING reveal, kind, chat_id, daily_date",
                (to_db(closed_at), round_id),
            )
            row = await cursor.fetchone()
            await cursor.close()
            if row is None:
                return False
            reveal, kind, chat_id, daily_date = row
            if reveal == str(RevealPolicy.ROUND):
                await db.execute(APPLY_SCORES.format(where="a.round_id = ?"), (round_id,))
            if kind == "daily" and daily_date:
                await update_streaks(db, chat_id, round_id, daily_date)
        return True

    # ------------------------------------------------------------ answers

    async def record_answers(self, batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
        async with self.transaction() as db:
            return await record_answers(db, batch)

    async def self_grade(
        self, round_id: int, user_id: int, verdict: str, fraction: float, points: float
    ) -> bool:
        async with self.transaction() as db:
            cursor = await db.execute(
                "UPDATE answers SET verdict = ?, fraction = ?, points = ? "
                "WHERE round_id = ? AND user_id = ? AND verdict = 'pending' RETURNING id",
                (verdict, fraction, points, round_id, user_id),
            )
            row = await cursor.fetchone()
            await cursor.close()
            if row is None:
                return False
            # Scored now if the round already scored its answers (practice, or closed).
            await db.execute(
                APPLY_SCORES.format(where="a.id = ? AND (r.reveal = 'practice' OR r.state = 'closed')"),
                (row[0],),
            )
        return True

    async def round_answers(self, round_id: int) -> list[StoredAnswer]:
        rows = await self._all(
            "SELECT a.round_id, a.user_id, a.response, a.answered_at, a.verdict, a.fraction, "
            "a.points, u.display_name FROM answers a JOIN users u ON u.id = a.user_id "
            "WHERE a.round_id = ? ORDER BY a.answered_at, a.id",
            (round_id,),
        )
        return [_stored(r) for r in rows]

    async def answer_count(self, round_id: int) -> int:
        row = await self._one("SELECT count(*) FROM answers WHERE round_id = ?", (round_id,))
        return row[0] if row else 0

    async def user_answer(self, round_id: int, user_id: int) -> StoredAnswer | None:
        row = await self._one(
            "SELECT a.round_id, a.user_id, a.response, a.answered_at, a.verdict, a.fraction, "
            "a.points, u.display_name FROM answers a JOIN users u ON u.id = a.user_id "
            "WHERE a.round_id = ? AND a.user_id = ?",
            (round_id, user_id),
        )
        return _stored(row) if row else None

    # ------------------------------------------------------------ scores

    async def top_scores(self, scope: str, window: str, limit: int) -> list[ScoreRow]:
        rows = await self._all(
            "SELECT s.user_id, u.display_name, s.points, s.answers, s.correct, s.reached_at "
            "FROM scores s JOIN users u ON u.id = s.user_id WHERE s.scope = ? AND s.win = ? "
            "ORDER BY s.points DESC, s.reached_at, s.user_id LIMIT ?",
            (scope, window, limit),
        )
        return [
            ScoreRow(r[0], r[1], r[2], r[3], r[4], from_db(r[5]), rank)  # type: ignore[arg-type]
            for rank, r in enumerate(rows, start=1)
        ]

    async def score_of(self, scope: str, window: str, user_id: int) -> ScoreRow | None:
        row = await self._one(
            "SELECT s.user_id, u.display_name, s.points, s.answers, s.correct, s.reached_at "
            "FROM scores s JOIN users u ON u.id = s.user_id "
            "WHERE s.scope = ? AND s.win = ? AND s.user_id = ?",
            (scope, window, user_id),
        )
        if row is None:
            return None
        # Users on higher scores come from the buckets; only the ties ahead are counted row by row.
        ahead = await self._one(
            "SELECT (SELECT coalesce(sum(users), 0) FROM score_buckets "
            "        WHERE scope = :scope AND win = :win AND points > :points) + "
            "(SELECT count(*) FROM scores WHERE scope = :scope AND win = :win AND points = :points "
            "        AND (reached_at < :at OR (reached_at = :at AND user_id < :user)))",
            {"scope": scope, "win": window, "points": row[2], "at": row[5], "user": user_id},
        )
        rank = (ahead[0] if ahead else 0) + 1
        return ScoreRow(row[0], row[1], row[2], row[3], row[4], from_db(row[5]), rank)  # type: ignore[arg-type]

    async def streak(self, chat_id: int, user_id: int) -> StreakRecord:
        row = await self._one(
            "SELECT current, best, last_date FROM streaks WHERE chat_id = ? AND user_id = ?",
            (chat_id, user_id),
        )
        return StreakRecord(*row) if row else StreakRecord(0, 0, None)

    async def top_streaks(self, chat_id: int, round_id: int, limit: int) -> list[tuple[str, int]]:
        """(name, current streak) of the longest streaks (> 1) among those right in a round."""
        rows = await self._all(
            "SELECT u.display_name, s.current FROM answers a "
            "JOIN streaks s ON s.chat_id = ? AND s.user_id = a.user_id JOIN users u ON u.id = a.user_id "
            "WHERE a.round_id = ? AND a.verdict = 'correct' AND s.current > 1 "
            "ORDER BY s.current DESC, a.answered_at LIMIT ?",
            (chat_id, round_id, limit),
        )
        return [(r[0], r[1]) for r in rows]

    async def totals(self, chat_id: int, user_id: int) -> UserTotals:
        row = await self._one(
            "SELECT count(*), coalesce(sum(a.verdict = 'correct'), 0), coalesce(sum(a.points), 0) "
            "FROM answers a JOIN rounds r ON r.id = a.round_id "
            "WHERE a.user_id = ? AND r.chat_id = ? AND (r.reveal = 'practice' OR r.state = 'closed')",
            (user_id, chat_id),
        )
        return UserTotals(*row) if row else UserTotals(0, 0, 0.0)

    async def recent_mistakes(self, chat_id: int, user_id: int, limit: int) -> list[str]:
        rows = await self._all(
            "SELECT r.question_id FROM answers a JOIN rounds r ON r.id = a.round_id "
            "WHERE a.user_id = ? AND r.chat_id = ? AND a.verdict IN ('wrong', 'partial') "
            "AND (r.reveal = 'practice' OR r.state = 'closed') ORDER BY a.answered_at DESC LIMIT ?",
            (user_id, chat_id, limit),
        )
        return [r[0] for r in rows]


def _prepare_file(path: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
    finally:
        conn.close()


def _stored(row) -> StoredAnswer:
    return StoredAnswer(
        round_id=row[0],
        user_id=row[1],
        response=row[2],
        answered_at=from_db(row[3]),  # type: ignore[arg-type]
        verdict=row[4],
        fraction=row[5],
        points=row[6],
        display_name=row[7],
    )
