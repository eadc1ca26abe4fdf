"""Chats, users and rounds on either backend: the part of the core's Store port that both
databases run as the same SQL. Each backend's store (sqlite/store.py, postgres/store.py) is a
ChatsAndRounds over its own `Database` (`self.sql`) and its scoring statement (`scores_sql`,
the materialised leaderboards' upsert, which the two databases write differently), and adds
what it does its own way: users registered in bulk, and the answer path (the ingest and the
leaderboard reads)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from adapters.storage.database import Database
from adapters.storage.sql import CHAT_COLUMNS, ROUND_COLUMNS, chat_from_row, round_from_row, to_db
from bot.domain.kinds import ChatRef, RevealPolicy, UserRef
from bot.domain.records import Chat, ChatSettings, NewRound, Round
from bot.ports.storage import DuplicateDaily

# A chat with the default settings, in its server's language if the server chose one; a chat
# already there (a concurrent insert) is left as is.
INSERT_CHAT = (
    "INSERT INTO chats (platform, chat_key, kind, guild_key, title, bank_id, timezone, "
    "language, reveal_policy, answer_policy, partial_credit, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce((SELECT language FROM guild_settings "
    "WHERE platform = ?1 AND guild_key = ?4), ?8), ?9, ?10, ?11, ?12) ON CONFLICT DO NOTHING"
)


# A daily closed: extend the streak of whoever was right, reset everyone else's. Consecutive
# means consecutive dailies of the chat (?3, the one before, or NULL), so a weekday-only schedule
# does not break streaks over the weekend. ?1 chat, ?2 date, ?4 round; the casts type the values
# for PostgreSQL and change nothing on SQLite.
_NEXT_STREAK = (
    "CASE WHEN t.last_date = CAST(?3 AS TEXT) THEN t.current + 1 "
    "WHEN t.last_date = CAST(?2 AS TEXT) THEN t.current ELSE 1 END"
)
EXTEND_STREAKS = (
    "INSERT INTO streaks AS t (chat_id, user_id, current, best, last_date) "
    "SELECT CAST(?1 AS BIGINT), user_id, 1, 1, CAST(?2 AS TEXT) FROM answers "
    "WHERE round_id = ?4 AND verdict = 'correct' "
    f"ON CONFLICT (chat_id, user_id) DO UPDATE SET current = {_NEXT_STREAK}, "
    f"best = CASE WHEN t.best > {_NEXT_STREAK} THEN t.best ELSE {_NEXT_STREAK} END, last_date = ?2"
)


class ChatsAndRounds:
    sql: Database
    # The scores upsert for the answers `{where}` selects (a condition on `a`, the answers, and
    # `r`, their rounds, with `?` parameters).
    scores_sql: str

    async def ensure_users(self, refs: Sequence[UserRef]) -> list[int]:
        """Register (or rename) users in one transaction; their ids, in order (per backend)."""
        raise NotImplementedError

    # ------------------------------------------------------------ chats and users

    async def ensure_chat(self, ref: ChatRef, defaults: ChatSettings) -> Chat:
        chat = await self.find_chat(str(ref.platform), ref.chat_key)
        if chat is not None:
            if (ref.guild_key, ref.title) == (chat.ref.guild_key, chat.ref.title) or not (
                ref.guild_key or ref.title
            ):
                return chat
            async with self.sql.transaction() as tx:
                row = await tx.one(
                    "UPDATE chats SET guild_key = coalesce(?, guild_key), title = ? WHERE id = ? "
                    f"RETURNING {CHAT_COLUMNS}",
                    ref.guild_key, ref.title or chat.ref.title, chat.id,
                )  # fmt: skip
            assert row is not None
            return chat_from_row(row)
        async with self.sql.transaction() as tx:
            await tx.execute(
                INSERT_CHAT,
                str(ref.platform), ref.chat_key, str(ref.kind), ref.guild_key, ref.title,
                defaults.bank_id, defaults.timezone, defaults.language, str(defaults.reveal_policy),
                str(defaults.answer_policy), int(defaults.partial_credit), to_db(datetime.now(UTC)),
            )  # fmt: skip
            row = await tx.one(
                f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = ? AND chat_key = ?",
                str(ref.platform),
                ref.chat_key,
            )
        assert row is not None
        return chat_from_row(row)

    async def get_chat(self, chat_id: int) -> Chat | None:
        row = await self.sql.one(f"SELECT {CHAT_COLUMNS} FROM chats WHERE id = ?", chat_id)
        return chat_from_row(row) if row else None

    async def find_chat(self, platform: str, chat_key: str) -> Chat | None:
        row = await self.sql.one(
            f"SELECT {CHAT_COLUMNS} FROM chats WHERE platform = ? AND chat_key = ?", platform, chat_key
        )
        return chat_from_row(row) if row else None

    async def update_chat(self, chat_id: int, settings: ChatSettings) -> Chat:
        async with self.sql.transaction() as tx:
            row = await tx.one(
                "UPDATE chats SET bank_id = ?, timezone = ?, language = ?, reveal_policy = ?, "
                f"answer_policy = ?, partial_credit = ? WHERE id = ? RETURNING {CHAT_COLUMNS}",
                settings.bank_id, settings.timezone, settings.language, str(settings.reveal_policy),
                str(settings.answer_policy), int(settings.partial_credit), chat_id,
            )  # fmt: skip
        if row is None:
            raise KeyError(chat_id)
        return chat_from_row(row)

    async def set_chat_paused(self, chat_id: int, paused: bool) -> None:
        async with self.sql.transaction() as tx:
            await tx.execute("UPDATE chats SET paused = ? WHERE id = ?", int(paused), chat_id)

    async def move_chat(self, chat_id: int, new_chat_key: str) -> None:
        async with self.sql.transaction() as tx:
            await tx.execute("UPDATE chats SET chat_key = ? WHERE id = ?", new_chat_key, chat_id)

    async def set_guild_language(self, platform: str, guild_key: str, language: str) -> list[int]:
        """Store a server's language and set it on every chat of the server; those chats' ids."""
        async with self.sql.transaction() as tx:
            await tx.execute(
                "INSERT INTO guild_settings (platform, guild_key, language) VALUES (?, ?, ?) "
                "ON CONFLICT (platform, guild_key) DO UPDATE SET language = excluded.language",
                platform, guild_key, language,
            )  # fmt: skip
            rows = await tx.all(
                "UPDATE chats SET language = ? WHERE platform = ? AND guild_key = ? RETURNING id",
                language, platform, guild_key,
            )  # fmt: skip
        return sorted(row[0] for row in rows)

    async def ensure_user(self, ref: UserRef) -> int:
        return (await self.ensure_users([ref]))[0]

    async def find_user(self, ref: UserRef) -> int | None:
        row = await self.sql.one(
            "SELECT id FROM users WHERE platform = ? AND user_key = ?", str(ref.platform), ref.user_key
        )
        return row[0] if row else None

    # ------------------------------------------------------------ rounds

    async def question_counts(self, chat_id: int, bank_id: str) -> dict[str, int]:
        rows = await self.sql.all(
            "SELECT question_id, count(*) FROM rounds WHERE chat_id = ? AND bank_id = ? GROUP BY question_id",
            chat_id, bank_id,
        )  # fmt: skip
        return {qid: n for qid, n in rows}

    async def open_round(self, new: NewRound) -> Round:
        try:
            async with self.sql.transaction() as tx:
                row = await tx.one(
                    "INSERT INTO rounds (chat_id, bank_id, question_id, kind, opened_at, closes_at, "
                    "reveal, answer_policy, partial_credit, daily_date, contest_id, answer_mode) "
                    f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {ROUND_COLUMNS}",
                    new.chat_id, new.bank_id, new.question_id, str(new.kind), to_db(new.opened_at),
                    to_db(new.closes_at), str(new.reveal), str(new.answer_policy), int(new.partial_credit),
                    new.daily_date, new.contest_id, str(new.mode),
                )  # fmt: skip
        except self.sql.dialect.unique_violation as exc:
            if self.sql.dialect.violates(exc, "rounds_one_daily_per_date", "rounds.daily_date"):
                raise DuplicateDaily(f"chat {new.chat_id} already has the {new.daily_date} daily") from exc
            raise
        assert row is not None
        return round_from_row(row)

    async def get_round(self, round_id: int) -> Round | None:
        row = await self.sql.one(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", round_id)
        return round_from_row(row) if row else None

    async def set_message_ref(self, round_id: int, message_ref: str) -> None:
        async with self.sql.transaction() as tx:
            await tx.execute("UPDATE rounds SET message_ref = ? WHERE id = ?", message_ref, round_id)

    async def round_by_message(self, chat_id: int, message_ref: str) -> Round | None:
        row = await self.sql.one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = ? AND message_ref = ? "
            "ORDER BY id DESC LIMIT 1",
            chat_id, message_ref,
        )  # fmt: skip
        return round_from_row(row) if row else None

    async def open_rounds(self) -> list[Round]:
        rows = await self.sql.all(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE state = 'open' ORDER BY closes_at, id"
        )
        return [round_from_row(r) for r in rows]

    async def last_round(self, chat_id: int) -> Round | None:
        row = await self.sql.one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = ? ORDER BY id DESC LIMIT 1", chat_id
        )
        return round_from_row(row) if row else None

    async def restart_round(self, round_id: int, opened_at: datetime, closes_at: datetime) -> None:
        async with self.sql.transaction() as tx:
            await tx.execute(
                "UPDATE rounds SET opened_at = ?, closes_at = ? WHERE id = ? AND state = 'open'",
                to_db(opened_at), to_db(closes_at), round_id,
            )  # fmt: skip

    async def close_round(
        self, round_id: int, closed_at: datetime, *, due_by: datetime | None = None
    ) -> bool:
        # With due_by, the row's closes_at is checked again in the closing statement itself: on
        # PostgreSQL on the version the UPDATE locks (READ COMMITTED re-reads a row another
        # transaction changed meanwhile), on SQLite under the one writer: a restarted timer wins.
        due = "" if due_by is None else " AND closes_at <= ?"
        async with self.sql.transaction() as tx:
            row = await tx.one(
                f"UPDATE rounds SET state = 'closed', closed_at = ? WHERE id = ? AND state = 'open'{due} "
                "RETURNING reveal, kind, chat_id, daily_date",
                to_db(closed_at), round_id, *(() if due_by is None else (to_db(due_by),)),
            )  # fmt: skip
            if row is None:
                return False
            reveal, kind, chat_id, daily_date = row
            if reveal == str(RevealPolicy.ROUND):
                await tx.execute(self.scores_sql.format(where="a.round_id = ?"), round_id)
            if kind == "daily" and daily_date:
                previous = await tx.one(
                    "SELECT max(daily_date) FROM rounds WHERE chat_id = ? AND kind = 'daily' "
                    "AND daily_date < ? AND state = 'closed'",
                    chat_id, daily_date,
                )  # fmt: skip
                await tx.execute(
                    EXTEND_STREAKS, chat_id, daily_date, previous[0] if previous else None, round_id
                )
                await tx.execute(
                    "UPDATE streaks SET current = 0 "
                    "WHERE chat_id = ? AND (last_date IS NULL OR last_date < ?)",
                    chat_id, daily_date,
                )  # fmt: skip
        return True

    # ------------------------------------------------------------ self-grades

    async def self_grade(
        self, round_id: int, user_id: int, verdict: str, fraction: float, points: float
    ) -> bool:
        async with self.sql.transaction() as tx:
            row = await tx.one(
                "UPDATE answers SET verdict = ?, fraction = ?, points = ? "
                "WHERE round_id = ? AND user_id = ? AND verdict = 'pending' RETURNING id",
                verdict, fraction, points, round_id, user_id,
            )  # fmt: skip
            if row is None:
                return False
            # Scored now if the round already scored its answers (practice, or closed).
            await tx.execute(
                self.scores_sql.format(where="a.id = ? AND (r.reveal = 'practice' OR r.state = 'closed')"),
                row[0],
            )
        return True
