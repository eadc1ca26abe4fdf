"""The DailyStore and ContestStore ports on either backend: daily schedules and contests, sharing
the backend's connections and units of work."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from adapters.storage.database import Database
from adapters.storage.sql import ROUND_COLUMNS, from_db, round_from_row, to_db
from bot.domain.kinds import AnswerMode
from bot.domain.records import Contest, ContestPhase, ContestScore, DailySchedule, Round
from bot.ports.storage import ContestRunning

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DAILY_COLUMNS = "chat_id, local_time, timezone, weekdays, deadline_seconds, tag, mode, enabled, updated_at"
CONTEST_COLUMNS = (
    "id, chat_id, question_ids, seconds, pause_seconds, position, phase, phase_until, round_id, "
    "scored_position, started_at, finished_at"
)


def daily_from_row(row) -> DailySchedule:
    return DailySchedule(
        chat_id=row[0],
        local_time=row[1],
        timezone=row[2],
        weekdays=tuple(int(d) for d in row[3]),
        deadline_seconds=row[4],
        tag=row[5],
        mode=AnswerMode(row[6]),
        enabled=bool(row[7]),
        since=from_db(row[8]),
    )


def contest_from_row(row) -> Contest:
    return Contest(
        id=row[0],
        chat_id=row[1],
        question_ids=tuple(json.loads(row[2])),
        seconds=row[3],
        pause_seconds=row[4],
        position=row[5],
        phase=ContestPhase(row[6]),
        phase_until=from_db(row[7]),
        round_id=row[8],
        scored_position=row[9],
        started_at=from_db(row[10]),  # type: ignore[arg-type]
        finished_at=from_db(row[11]),
    )


class SqlScheduleStore:
    """Daily schedules and contests; every write one transaction (or part of a unit of work)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------ dailies

    async def save_daily(self, schedule: DailySchedule) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                f"INSERT INTO dailies ({DAILY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (chat_id) DO UPDATE SET local_time = excluded.local_time, "
                "timezone = excluded.timezone, weekdays = excluded.weekdays, "
                "deadline_seconds = excluded.deadline_seconds, tag = excluded.tag, mode = excluded.mode, "
                "enabled = excluded.enabled, updated_at = excluded.updated_at",
                schedule.chat_id, schedule.local_time, schedule.timezone,
                "".join(str(d) for d in schedule.weekdays), schedule.deadline_seconds, schedule.tag,
                str(schedule.mode), int(schedule.enabled), to_db(schedule.since or _EPOCH),
            )  # fmt: skip

    async def get_daily(self, chat_id: int) -> DailySchedule | None:
        row = await self.db.one(f"SELECT {DAILY_COLUMNS} FROM dailies WHERE chat_id = ?", chat_id)
        return daily_from_row(row) if row else None

    async def enabled_dailies(self) -> list[DailySchedule]:
        rows = await self.db.all(f"SELECT {DAILY_COLUMNS} FROM dailies WHERE enabled = 1 ORDER BY chat_id")
        return [daily_from_row(r) for r in rows]

    async def daily_round(self, chat_id: int, daily_date: str) -> Round | None:
        row = await self.db.one(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE chat_id = ? AND daily_date = ?", chat_id, daily_date
        )
        return round_from_row(row) if row else None

    async def close_expired_practice(self, now: datetime) -> int:
        async with self.db.transaction() as tx:
            return await tx.execute(
                "UPDATE rounds SET state = 'closed', closed_at = ?1 "
                "WHERE state = 'open' AND kind = 'practice' AND closes_at <= ?1",
                to_db(now),
            )

    async def overdue_dailies(self, now: datetime) -> list[int]:
        rows = await self.db.all(
            "SELECT id FROM rounds WHERE state = 'open' AND closes_at <= ? AND kind = 'daily' "
            "ORDER BY closes_at",
            to_db(now),
        )
        return [int(r[0]) for r in rows]

    # ------------------------------------------------------------ contests

    async def create_contest(
        self, chat_id: int, question_ids: Sequence[str], seconds: int, pause_seconds: float, now: datetime
    ) -> Contest:
        try:
            async with self.db.transaction() as tx:
                row = await tx.one(
                    "INSERT INTO contests (chat_id, question_ids, seconds, pause_seconds, phase, started_at) "
                    f"VALUES (?, ?, ?, ?, 'question', ?) RETURNING {CONTEST_COLUMNS}",
                    chat_id, json.dumps(list(question_ids)), seconds, pause_seconds, to_db(now),
                )  # fmt: skip
        except self.db.dialect.unique_violation as exc:
            raise ContestRunning(f"chat {chat_id} has a contest running") from exc
        assert row is not None
        return contest_from_row(row)

    async def get_contest(self, contest_id: int) -> Contest | None:
        row = await self.db.one(f"SELECT {CONTEST_COLUMNS} FROM contests WHERE id = ?", contest_id)
        return contest_from_row(row) if row else None

    async def running_contest(self, chat_id: int) -> Contest | None:
        row = await self.db.one(
            f"SELECT {CONTEST_COLUMNS} FROM contests WHERE chat_id = ? AND phase IN ('question', 'pause')",
            chat_id,
        )
        return contest_from_row(row) if row else None

    async def running_contests(self) -> list[Contest]:
        rows = await self.db.all(
            f"SELECT {CONTEST_COLUMNS} FROM contests WHERE phase IN ('question', 'pause') ORDER BY id"
        )
        return [contest_from_row(r) for r in rows]

    async def latest_contest(self, chat_id: int) -> Contest | None:
        row = await self.db.one(
            f"SELECT {CONTEST_COLUMNS} FROM contests WHERE chat_id = ? ORDER BY id DESC LIMIT 1", chat_id
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
        async with self.db.transaction() as tx:
            await tx.execute(
                "UPDATE contests SET position = ?, phase = ?, phase_until = ?, round_id = ?, "
                "finished_at = coalesce(?, finished_at) WHERE id = ?",
                position, str(phase), to_db(phase_until) if phase_until else None, round_id, finished,
                contest_id,
            )  # fmt: skip

    async def contest_scores(self, contest_id: int) -> list[ContestScore]:
        rows = await self.db.all(
            "SELECT s.user_id, u.display_name, s.points, s.correct, s.answered, s.streak "
            "FROM contest_scores s JOIN users u ON u.id = s.user_id "
            "WHERE s.contest_id = ? ORDER BY s.user_id",
            contest_id,
        )
        return [ContestScore(*r) for r in rows]

    async def save_contest_scores(
        self, contest_id: int, position: int, scores: Sequence[ContestScore]
    ) -> bool:
        async with self.db.transaction() as tx:
            moved = await tx.execute(
                "UPDATE contests SET scored_position = ? WHERE id = ? AND scored_position = ?",
                position + 1, contest_id, position,
            )  # fmt: skip
            if moved != 1:
                return False
            await tx.execute_many(
                "INSERT INTO contest_scores (contest_id, user_id, points, correct, answered, streak) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (contest_id, user_id) DO UPDATE SET "
                "points = excluded.points, correct = excluded.correct, answered = excluded.answered, "
                "streak = excluded.streak",
                [(contest_id, s.user_id, s.points, s.correct, s.answered, s.streak) for s in scores],
            )
        return True
