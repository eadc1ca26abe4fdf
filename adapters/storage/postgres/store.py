"""The PostgreSQL implementation of the core's Store port (chats and users, rounds and answers,
the leaderboards), on an asyncpg pool.

Every write is one transaction on a pooled connection; reads go to the pool too and see only
committed rows. A unit of work (`unit_of_work()`) pins one connection and one transaction to
the task: every write (and read) the task makes through this backend meanwhile joins it.

A lost server (restarting, network gone) raises the core's StoreUnavailable: nothing was
committed, and the pool connects again by itself once the server is back.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg

from adapters.storage.fault_episodes import FaultEpisodes
from adapters.storage.postgres import reads
from adapters.storage.postgres.answers import (
    APPLY_SCORES,
    NOT_ALL_NEW,
    accept_all,
    all_accepted,
    batch_columns,
    record_answers,
    update_streaks,
)
from adapters.storage.postgres.migrate import migrate
from adapters.storage.postgres.open_errors import classify
from adapters.storage.sql import CHAT_COLUMNS, ROUND_COLUMNS, chat_from_row, round_from_row, to_db
from bot.kinds import ChatRef, RevealPolicy, UserRef
from bot.ports import DuplicateDaily, StoreFull, StoreUnavailable
from bot.records import (
    AnswerOutcome,
    Chat,
    ChatSettings,
    NewAnswer,
    NewRound,
    Round,
    ScoreRow,
    StoredAnswer,
    StreakRecord,
    UserTotals,
)

LOST = (OSError, asyncpg.PostgresConnectionError, asyncpg.exceptions.OperatorInterventionError)


def is_lost(exc: BaseException) -> bool:
    """The server or the connection to it is gone (not a refusal of the statement itself)."""
    if isinstance(exc, LOST):
        return True
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def unavailable(exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(f"the PostgreSQL server cannot be reached: {type(exc).__name__}")


def fault_of(exc: BaseException) -> StoreUnavailable | None:
    """The core's StoreUnavailable for a lost server, StoreFull for a server out of disk space
    (SQLSTATE 53100); None for anything else (a refusal of the statement, a bug)."""
    if is_lost(exc):
        return unavailable(exc)
    if isinstance(exc, asyncpg.DiskFullError):
        return StoreFull(f"the PostgreSQL server's disk is full: {exc}")
    return None


def affected(status: str) -> int:
    """The row count of a command status such as 'UPDATE 3' or 'INSERT 0 1'."""
    return int(status.rsplit(" ", 1)[-1])


async def keep_session(conn: asyncpg.Connection) -> None:
    """Nothing to undo when the pool takes a connection back (asyncpg has already rolled back
    an open transaction): the store leaves no session state behind (no LISTEN, which the
    broadcast does on a connection of its own, no session settings, cursors or session-level
    advisory locks). asyncpg's default reset is a round trip of four statements after every
    statement run on the pool, before its result is handed back: one for every group commit."""


class PostgresStore:
    def __init__(self, dsn: str, *, max_connections: int = 10) -> None:
        self.dsn = dsn
        self.max_connections = max_connections
        self._pool: asyncpg.Pool | None = None
        self.faults = FaultEpisodes()  # a lost server or full disk: one warning, one line once back
        self._unit: contextvars.ContextVar[tuple[asyncio.Task[Any], asyncpg.Connection] | None] = (
            contextvars.ContextVar(f"pg_unit_{id(self)}", default=None)
        )

    @classmethod
    async def open(cls, dsn: str, *, max_connections: int = 10) -> PostgresStore:
        store = cls(dsn, max_connections=max_connections)
        await store.connect()
        return store

    async def connect(self) -> None:
        """Connect, and bring the schema up to date; a StoreOpenError says why not."""
        try:
            self._pool = await asyncpg.create_pool(
                self.dsn,
                min_size=1,
                max_size=self.max_connections,
                server_settings={"jit": "off"},
                reset=keep_session,
            )
            async with self._pool.acquire() as conn:
                await migrate(conn)
        except BaseException as exc:
            await self.close()
            problem = classify(exc, self.dsn)
            if problem is None or problem is exc:
                raise
            raise problem from None  # the driver's traceback would show the URL, password and all

    @property
    def is_open(self) -> bool:
        return self._pool is not None

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("store is not open")
        return self._pool

    def _unit_conn(self) -> asyncpg.Connection | None:
        unit = self._unit.get()
        if unit is not None and unit[0] is asyncio.current_task():
            return unit[1]
        return None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """One write transaction; committed on exit, rolled back on any error. Inside this task's
        unit of work it is part of the unit's transaction instead."""
        joined = self._unit_conn()
        if joined is not None:
            yield joined
            return
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                yield conn
        except Exception as exc:
            fault = fault_of(exc)
            if fault is None:
                raise
            self.faults.failed(fault)
            raise fault from exc
        self.faults.succeeded()

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        if self._unit_conn() is not None:
            yield
            return
        task = asyncio.current_task()
        assert task is not None
        async with self.transaction() as conn:
            token = self._unit.set((task, conn))
            try:
                yield
            finally:
                self._unit.reset(token)

    async def one(self, sql: str, *params: Any) -> asyncpg.Record | None:
        joined = self._unit_conn()
        try:
            if joined is not None:
                return await joined.fetchrow(sql, *params)
            return await self.pool.fetchrow(sql, *params)
        except Exception as exc:
            fault = fault_of(exc)
            if fault is None:
                raise
            self.faults.failed(fault)
            raise fault from exc

    async def all(self, sql: str, *params: Any) -> list[asyncpg.Record]:
        joined = self._unit_conn()
        try:
            if joined is not None:
                return list(await joined.fetch(sql, *params))
            return list(await self.pool.fetch(sql, *params))
        except Exception as exc:
            fault = fault_of(exc)
            if fault is None:
                raise
            self.faults.failed(fault)
            raise fault from exc

    # ------------------------------------------------------------ chats and users

    async def ensure_chat(self, ref: ChatRef, defaults: ChatSettings) -> Chat:
        chat = await self.find_chat(str(ref.platform), ref.chat_key)
        if chat is not None:
            if (ref.guild_key, ref.title) == (chat.ref.guild_key, chat.ref.title) or not (
                ref.guild_key or ref.title
            ):
                return chat
            async with self.transaction() as db:
                row = await db.fetchrow(
                    "UPDATE chats SET guild_key = coalesce($1, guild_key), title = $2 WHERE id = $3 "
                    f"RETURNING {CHAT_COLUMNS}",
                    ref.guild_key, ref.title or chat.ref.title, chat.id,
                )  # fmt: skip
            assert row is not None
            return chat_from_row(row)
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_key, kind, guild_key, title, bank_id, timezone, "
                "language, reveal_policy, answer_policy, partial_credit, created_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce((SELECT language FROM guild_settings "
                "WHERE platform = $1 AND guild_key = $4), $8), $9, $10, $11, $12) ON CONFLICT DO NOTHING",
                str(ref.platform), ref.chat_key, str(ref.kind), ref.guild_key, ref.title,
                defaults.bank_id, defaults.timezone, defaults.language, str(defaults.reveal_policy),
                str(defaults.answer_policy), int(defaults.partial_credit), to_db(datetime.now(UTC)),
            )  # fmt: skip
            row = await db.fetchrow(
                f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = $1 AND chat_key = $2",
                str(ref.platform), ref.chat_key,
            )  # fmt: skip
        assert row is not None
        return chat_from_row(row)

    async def get_chat(self, chat_id: int) -> Chat | None:
        row = await self.one(f"SELECT {CHAT_COLUMNS} FROM chats WHERE id = $1", chat_id)
        return chat_from_row(row) if row else None

    async def find_chat(self, platform: str, chat_key: str) -> Chat | None:
        row = await self.one(
            f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = $1 AND chat_key = $2", platform, chat_key
        )
        return chat_from_row(row) if row else None

    async def update_chat(self, chat_id: int, settings: ChatSettings) -> Chat:
        async with self.transaction() as db:
            row = await db.fetchrow(
                "UPDATE chats SET bank_id = $1, timezone = $2, language = $3, reveal_policy = $4, "
                f"answer_policy = $5, partial_credit = $6 WHERE id = $7 RETURNING {CHAT_COLUMNS}",
                settings.bank_id, settings.timezone, settings.language, str(settings.reveal_policy),
                str(settings.answer_policy), int(settings.partial_credit), chat_id,
            )  # fmt: skip
        if row is None:
            raise KeyError(chat_id)
        return chat_from_row(row)

    async def set_chat_paused(self, chat_id: int, paused: bool) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE chats SET paused = $1 WHERE id = $2", int(paused), chat_id)

    async def move_chat(self, chat_id: int, new_chat_key: str) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE chats SET chat_key = $1 WHERE id = $2", new_chat_key, chat_id)

    async def set_guild_language(self, platform: str, guild_key: str, language: str) -> list[int]:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (platform, guild_key, language) VALUES ($1, $2, $3) "
                "ON CONFLICT (platform, guild_key) DO UPDATE SET language = excluded.language",
                platform, guild_key, language,
            )  # fmt: skip
            rows = await db.fetch(
                "UPDATE chats SET language = $1 WHERE platform = $2 AND guild_key = $3 RETURNING id",
                language, platform, guild_key,
            )  # fmt: skip
        return sorted(row[0] for row in rows)

    async def ensure_user(self, ref: UserRef) -> int:
        return (await self.ensure_users([ref]))[0]

    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) users in one transaction; their ids, in order."""
        # One row per user (the last name given wins): ON CONFLICT DO UPDATE may touch a row once.
        names = {(str(r.platform), r.user_key): r.display_name for r in refs}
        platforms, keys = [p for p, _ in names], [k for _, k in names]
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO users AS u (platform, user_key, display_name) "
                "SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ORDER BY 1, 2 "
                "ON CONFLICT (platform, user_key) DO UPDATE SET display_name = excluded.display_name "
                "WHERE u.display_name != excluded.display_name",
                platforms, keys, list(names.values()),
            )  # fmt: skip
            rows = await db.fetch(
                "SELECT u.platform, u.user_key, u.id FROM users u "
                "JOIN unnest($1::text[], $2::text[]) AS k(platform, user_key) "
                "ON u.platform = k.platform AND u.user_key = k.user_key",
                platforms, keys,
            )  # fmt: skip
        found = {(r[0], r[1]): r[2] for r in rows}
        return [found[(str(r.platform), r.user_key)] for r in refs]

    async def find_user(self, ref: UserRef) -> int | None:
        row = await self.one(
            "SELECT id FROM users WHERE platform = $1 AND user_key = $2", str(ref.platform), ref.user_key
        )
        return row[0] if row else None

    # ------------------------------------------------------------ rounds

    async def question_counts(self, chat_id: int, bank_id: str) -> dict[str, int]:
        rows = await self.all(
            "SELECT question_id, count(*) FROM rounds WHERE chat_id = $1 AND bank_id = $2 "
            "GROUP BY question_id",
            chat_id, bank_id,
        )  # fmt: skip
        return {qid: n for qid, n in rows}

    async def open_round(self, new: NewRound) -> Round:
        try:
            async with self.transaction() as db:
                row = await db.fetchrow(
                    "INSERT INTO rounds (chat_id, bank_id, question_id, kind, opened_at, closes_at, "
                    "reveal, answer_policy, partial_credit, daily_date, contest_id, answer_mode) "
                    f"VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING {ROUND_COLUMNS}",
                    new.chat_id, new.bank_id, new.question_id, str(new.kind), to_db(new.opened_at),
                    to_db(new.closes_at), str(new.reveal), str(new.answer_policy), int(new.partial_credit),
                    new.daily_date, new.contest_id, str(new.mode),
                )  # fmt: skip
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "rounds_one_daily_per_date":
                raise DuplicateDaily(f"chat {new.chat_id} already has the {new.daily_date} daily") from exc
            raise
        assert row is not None
        return round_from_row(row)

    async def get_round(self, round_id: int) -> Round | None:
        row = await self.one(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = $1", round_id)
        return round_from_row(row) if row else None

    async def set_message_ref(self, round_id: int, message_ref: str) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE rounds SET message_ref = $1 WHERE id = $2", message_ref, round_id)

    async def round_by_message(self, chat_id: int, message_ref: str) -> Round | None:
        row = await self.one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = $1 AND message_ref = $2 "
            "ORDER BY id DESC LIMIT 1",
            chat_id, message_ref,
        )  # fmt: skip
        return round_from_row(row) if row else None

    async def open_rounds(self) -> list[Round]:
        rows = await self.all(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE state = 'open' ORDER BY closes_at, id"
        )
        return [round_from_row(r) for r in rows]

    async def last_round(self, chat_id: int) -> Round | None:
        row = await self.one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = $1 ORDER BY id DESC LIMIT 1", chat_id
        )
        return round_from_row(row) if row else None

    async def restart_round(self, round_id: int, opened_at: datetime, closes_at: datetime) -> None:
        async with self.transaction() as db:
            await db.execute(
                "UPDATE rounds SET opened_at = $1, closes_at = $2 WHERE id = $3 AND state = 'open'",
                to_db(opened_at), to_db(closes_at), round_id,
            )  # fmt: skip

    async def close_round(
        self, round_id: int, closed_at: datetime, *, due_by: datetime | None = None
    ) -> bool:
        # With due_by, the row's closes_at is checked again on the version the UPDATE locks (READ
        # COMMITTED re-reads a row another transaction changed meanwhile): a restarted timer wins.
        due = "" if due_by is None else " AND closes_at <= $3"
        async with self.transaction() as db:
            row = await db.fetchrow(
                f"UPDATE rounds SET state = 'closed', closed_at = $1 WHERE id = $2 AND state = 'open'{due} "
                "RETURNING reveal, kind, chat_id, daily_date",
                to_db(closed_at), round_id, *(() if due_by is None else (to_db(due_by),)),
            )  # fmt: skip
            if row is None:
                return False
            reveal, kind, chat_id, daily_date = row
            if reveal == str(RevealPolicy.ROUND):
                await db.execute(APPLY_SCORES.format(where="a.round_id = $1"), round_id)
            if kind == "daily" and daily_date:
                await update_streaks(db, chat_id, round_id, daily_date)
        return True

    # ------------------------------------------------------------ answers

    async def record_answers(self, batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
        columns = batch_columns(batch)
        if self._unit_conn() is None:
            # The usual batch in one statement, all or nothing, with no BEGIN and COMMIT round
            # trips; any other batch (a duplicate, a late answer, a changeable round) is told
            # apart by the full path, in a transaction.
            try:
                stored = await accept_all(self.pool, batch, columns)
            except NOT_ALL_NEW:
                stored = 0
            except Exception as exc:
                if is_lost(exc):
                    raise unavailable(exc) from exc
                raise
            if stored == len(batch):
                return all_accepted(batch)
        async with self.transaction() as db:
            return await record_answers(db, batch, columns)

    async def self_grade(
        self, round_id: int, user_id: int, verdict: str, fraction: float, points: float
    ) -> bool:
        async with self.transaction() as db:
            answer_id = await db.fetchval(
                "UPDATE answers SET verdict = $1, fraction = $2, points = $3 "
                "WHERE round_id = $4 AND user_id = $5 AND verdict = 'pending' RETURNING id",
                verdict, fraction, points, round_id, user_id,
            )  # fmt: skip
            if answer_id is None:
                return False
            await db.execute(
                APPLY_SCORES.format(where="a.id = $1 AND (r.reveal = 'practice' OR r.state = 'closed')"),
                answer_id,
            )
        return True

    async def round_answers(self, round_id: int) -> list[StoredAnswer]:
        return reads.stored_answers(await self.all(reads.ROUND_ANSWERS, round_id))

    async def answer_count(self, round_id: int) -> int:
        row = await self.one("SELECT count(*) FROM answers WHERE round_id = $1", round_id)
        return int(row[0]) if row else 0

    async def user_answer(self, round_id: int, user_id: int) -> StoredAnswer | None:
        found = reads.stored_answers(await self.all(reads.USER_ANSWER, round_id, user_id))
        return found[0] if found else None

    # ------------------------------------------------------------ the leaderboards

    async def top_scores(self, scope: str, window: str, limit: int) -> list[ScoreRow]:
        return reads.ranked(await self.all(reads.TOP_SCORES, scope, window, limit))

    async def score_of(self, scope: str, window: str, user_id: int) -> ScoreRow | None:
        row = await self.one(reads.SCORE_OF, scope, window, user_id)
        return reads.score_row(row) if row else None

    async def streak(self, chat_id: int, user_id: int) -> StreakRecord:
        row = await self.one(
            "SELECT current, best, last_date FROM streaks WHERE chat_id = $1 AND user_id = $2",
            chat_id, user_id,
        )  # fmt: skip
        return StreakRecord(row[0], row[1], row[2]) if row else StreakRecord(0, 0, None)

    async def top_streaks(self, chat_id: int, round_id: int, limit: int) -> list[tuple[str, int]]:
        rows = await self.all(reads.TOP_STREAKS, chat_id, round_id, limit)
        return [(r[0], r[1]) for r in rows]

    async def totals(self, chat_id: int, user_id: int) -> UserTotals:
        row = await self.one(reads.TOTALS, user_id, chat_id)
        return UserTotals(int(row[0]), int(row[1]), float(row[2])) if row else UserTotals(0, 0, 0.0)

    async def recent_mistakes(self, chat_id: int, user_id: int, limit: int) -> list[str]:
        rows = await self.all(reads.RECENT_MISTAKES, user_id, chat_id, limit)
        return [r[0] for r in rows]
