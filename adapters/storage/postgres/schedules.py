"""PostgreSQL implementation of the DailyStore (schedules) and ContestStore ports, sharing the
PostgresStore's pool and units of work."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import asyncpg

from adapters.storage.postgres.store import PostgresStore, affected
from adapters.storage.schedule_store import CONTEST_COLUMNS, DAILY_COLUMNS, contest_from_row, daily_from_row
from adapters.storage.sql import ROUND_COLUMNS, round_from_row, to_db
from bot.ports import ContestRunning
from bot.records import Contest, ContestPhase, ContestScore, DailySchedule, Round

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class PostgresScheduleStore:
    """Daily schedules and contests; every write one transaction (or part of a unit of work)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    # ------------------------------------------------------------ dailies

    async def save_daily(self, schedule: DailySchedule) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                f"INSERT INTO dailies ({DAILY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
                "ON CONFLICT (chat_id) DO UPDATE SET local_time = excluded.local_time, "
                "timezone = excluded.timezone, weekdays = excluded.weekdays, "
                "deadline_seconds = excluded.deadline_seconds, tag = excluded.tag, mode = excluded.mode, "
                "enabled = excluded.enabled, updated_at = excluded.updated_at",
                schedule.chat_id, schedule.local_time, schedule.timezone,
                "".join(str(d) for d in schedule.weekdays), schedule.deadline_seconds, schedule.tag,
                str(schedule.mode), int(schedule.enabled), to_db(schedule.since or _EPOCH),
            )  # fmt: skip

    async def get_daily(self, chat_id: int) -> DailySchedule | None:
        row = await self.store.one(f"SELECT {DAILY_COLUMNS} FROM dailies WHERE chat_id = $1", chat_id)
        return daily_from_row(row) if row else None

    async def enabled_dailies(self) -> list[DailySchedule]:
        rows = await self.store.all(f"SELECT {DAILY_COLUMNS} FROM dailies WHERE enabled = 1 ORDER BY chat_id")
        return [daily_from_row(r) for r in rows]

    async def daily_round(self, chat_id: int, daily_date: str) -> Round | None:
        row = await self.store.one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = $1 AND daily_date = $2", chat_id, daily_date
        )
        return round_from_row(row) if row else None

    async def close_expired_practice(self, now: datetime) -> int:
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE rounds SET state = 'closed', closed_at = $1 "
                "WHERE state = 'open' AND kind = 'practice' AND closes_at <= $1",
                to_db(now),
            )
        return affected(status)

    async def overdue_dailies(self, now: datetime) -> list[int]:
        rows = await self.store.all(
            "SELECT id FROM rounds WHERE state = 'open' AND closes_at <= $1 AND kind = 'daily' "
            "ORDER BY closes_at",
            to_db(now),
        )
        return [int(r[0]) for r in rows]

    # ------------------------------------------------------------ contests

    async def create_contest(
        self, chat_id: int, question_ids: Sequence[str], seconds: int, pause_seconds: float, now: datetime
    ) -> Contest:
        try:
            async with self.store.transaction() as db:
                row = await db.fetchrow(
                    "INSERT INTO contests (chat_id, question_ids, seconds, pause_seconds, phase, started_at) "
                    f"VALUES ($1, $2, $3, $4, 'question', $5) RETURNING {CONTEST_COLUMNS}",
                    chat_id, json.dumps(list(question_ids)), seconds, pause_seconds, to_db(now),
                )  # fmt: skip
        except asyncpg.UniqueViolationError as exc:
            raise ContestRunning(f"chat {chat_id} has a contest running") from exc
        assert row is not None
        return contest_from_row(row)

    async def get_contest(self, contest_id: int) -> Contest | None:
        row = await self.store.one(f"SELECT {CONTEST_COLUMNS} FROM contests WHERE id = $1", contest_id)
        return contest_from_row(row) if row else None

    async def running_contest(self, chat_id: int) -> Contest | None:
        row = await self.store.one(
            f"SELECT {CONTEST_COLUMNS} FROM contests WHERE chat_id = $1 AND phase IN ('question', 'pause')",
            chat_id,
        )
        return contest_from_row(row) if row else None

    async def running_contests(self) -> list[Contest]:
        rows = await self.store.all(
            f"SELECT {CONTEST_COLUMNS} FROM contests WHERE phase IN ('question', 'pause') ORDER BY id"
        )
        return [contest_from_row(r) for r in rows]

    async def latest_contest(self, chat_id: int) -> Contest | None:
        row = await self.store.one(
            f"SELECT {CONTEST_COLUMNS} FROM contests WHERE chat_id = $1 ORDER BY id DESC LIMIT 1", chat_id
        )
        return contest_from_row(row) if row else None

    async def set_contest_phase(
        self,
        contest_id: int,
        *,
        position: int,
        phase: ContestPhase,
        phase_until: datetime | None,
        round_id: int | None,
        now: datetime,
    ) -> None:
        finished = to_db(now) if phase in (ContestPhase.FINISHED, ContestPhase.STOPPED) else None
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE contests SET position = $1, phase = $2, phase_until = $3, round_id = $4, "
                "finished_at = coalesce($5, finished_at) WHERE id = $6",
                position, str(phase), to_db(phase_until) if phase_until else None, round_id, finished,
                contest_id,
            )  # fmt: skip

    async def contest_scores(self, contest_id: int) -> list[ContestScore]:
        rows = await self.store.all(
            "SELECT s.user_id, u.display_name, s.points, s.correct, s.answered, s.streak "
            "FROM contest_scores s JOIN users u ON u.id = s.user_id "
            "WHERE s.contest_id = $1 ORDER BY s.user_id",
            contest_id,
        )
        return [ContestScore(*r) for r in rows]

    async def save_contest_scores(
        self, contest_id: int, position: int, scores: Sequence[ContestScore]
    ) -> bool:
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE contests SET scored_position = $1 WHERE id = $2 AND scored_position = $3",
                position + 1, contest_id, position,
            )  # fmt: skip
            if affected(status) != 1:
                return False
            await db.executemany(
                "INSERT INTO contest_scores AS t (contest_id, user_id, points, correct, answered, streak) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (contest_id, user_id) DO UPDATE SET "
                "points = excluded.points, correct = excluded.correct, answered = excluded.answered, "
                "streak = excluded.streak",
                [(contest_id, s.user_id, s.points, s.correct, s.answered, s.streak) for s in scores],
            )
        return True
