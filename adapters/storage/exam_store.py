"""The exam plan's storage on either backend (bot/ports/exam_storage.ExamStore): each learner's
exam date per bank and their study settings; and the read of their answer times that the plan
prices a day's items with."""

from __future__ import annotations

from datetime import date, datetime

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.exam_records import ExamDate, LearnerSettings

# Every final answer of one learner on one bank, oldest first, with its round's kind and opening.
_ANSWER_TIMES = """
SELECT r.question_id, a.answered_at, r.kind, r.opened_at
FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE a.user_id = ? AND r.bank_id = ? AND a.verdict != 'pending'
ORDER BY a.answered_at, a.id
"""


class SqlExamStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def set_exam(self, exam: ExamDate, at: datetime) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO exam_dates (user_id, bank_id, exam_on, minutes, set_at) "
                "VALUES (?1, ?2, ?3, ?4, ?5) "
                "ON CONFLICT (user_id, bank_id) DO UPDATE SET exam_on = excluded.exam_on, "
                "minutes = excluded.minutes, set_at = excluded.set_at",
                exam.user_id, exam.bank_id, exam.on.isoformat(), exam.minutes, to_db(at),
            )  # fmt: skip

    async def clear_exam(self, user_id: int, bank_id: str) -> bool:
        async with self.db.transaction() as tx:
            changed = await tx.execute(
                "DELETE FROM exam_dates WHERE user_id = ?1 AND bank_id = ?2", user_id, bank_id
            )
        return changed > 0

    async def exam(self, user_id: int, bank_id: str) -> ExamDate | None:
        row = await self.db.read_own(
            "SELECT exam_on, minutes FROM exam_dates WHERE user_id = ?1 AND bank_id = ?2", user_id, bank_id
        )
        if row is None:
            return None
        return ExamDate(user_id, bank_id, date.fromisoformat(row[0]), None if row[1] is None else int(row[1]))

    async def learner_settings(self, user_id: int) -> LearnerSettings:
        row = await self.db.read_own(
            "SELECT quiet_from, quiet_until, day_start FROM learner_settings WHERE user_id = ?1", user_id
        )
        return LearnerSettings(user_id) if row is None else LearnerSettings(user_id, row[0], row[1], row[2])

    async def set_learner_settings(self, settings: LearnerSettings) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO learner_settings (user_id, quiet_from, quiet_until, day_start) "
                "VALUES (?1, ?2, ?3, ?4) "
                "ON CONFLICT (user_id) DO UPDATE SET quiet_from = excluded.quiet_from, "
                "quiet_until = excluded.quiet_until, day_start = excluded.day_start",
                settings.user_id, settings.quiet_from, settings.quiet_until, settings.day_start,
            )  # fmt: skip

    async def answer_times(self, user_id: int, bank_id: str) -> list[tuple[str, datetime, float | None]]:
        out = []
        for question_id, answered_at, kind, opened_at in await self.db.all(_ANSWER_TIMES, user_id, bank_id):
            at, opened = from_db(answered_at), from_db(opened_at)
            assert at is not None and opened is not None
            out.append((question_id, at, (at - opened).total_seconds() if kind == "practice" else None))
        return out
