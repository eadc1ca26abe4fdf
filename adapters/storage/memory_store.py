"""Each learner's memory model on either backend: desired retention and fitted FSRS parameters
(bot/application/study/memory_fit.py), and the review history the fit reads (the answers table)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.study_records import LearnerMemory, Outcome, StudyAnswer

_OUTCOMES = {"correct": Outcome.RIGHT, "partial": Outcome.PARTLY, "wrong": Outcome.WRONG}
# A final answer, as the study feed takes it (adapters/storage/study_store.py _UNSTUDIED): graded,
# and no longer changeable.
_HISTORY = """
SELECT r.bank_id, r.question_id, a.verdict, a.answered_at, r.kind, r.opened_at
FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE a.user_id = ?1 AND a.verdict != 'pending' AND (r.state = 'closed' OR r.answer_policy = 'first')
ORDER BY a.answered_at, a.id
"""


def _parameters(text: str | None) -> tuple[float, ...] | None:
    if not text:
        return None
    values = json.loads(text)
    return tuple(float(v) for v in values) if isinstance(values, list) and values else None


class SqlLearnerMemoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def memories(self, user_ids: Sequence[int]) -> dict[int, LearnerMemory]:
        if not user_ids:
            return {}
        ids, params = self.db.dialect.any_of("user_id", sorted(set(user_ids)), "bigint")
        rows = await self.db.all(
            "SELECT user_id, desired_retention, parameters, fitted_reviews, fitted_at "
            f"FROM learner_memory WHERE {ids}",
            *params,
        )
        return {
            r[0]: LearnerMemory(r[0], float(r[1]), _parameters(r[2]), int(r[3]), from_db(r[4])) for r in rows
        }

    async def set_retention(self, user_id: int, retention: float) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO learner_memory (user_id, desired_retention) VALUES (?1, ?2) "
                "ON CONFLICT (user_id) DO UPDATE SET desired_retention = excluded.desired_retention",
                user_id, float(retention),
            )  # fmt: skip

    async def save_parameters(self, user_id: int, parameters: Sequence[float] | None, reviews: int,
                              at: datetime) -> None:  # fmt: skip
        text = json.dumps([float(p) for p in parameters]) if parameters is not None else None
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO learner_memory (user_id, parameters, fitted_reviews, fitted_at) "
                "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (user_id) DO UPDATE SET "
                "parameters = excluded.parameters, fitted_reviews = excluded.fitted_reviews, "
                "fitted_at = excluded.fitted_at",
                user_id, text, reviews, to_db(at),
            )  # fmt: skip

    async def learners_with(self, reviews: int) -> list[int]:
        rows = await self.db.all(
            "SELECT user_id FROM answers WHERE verdict != 'pending' GROUP BY user_id "
            "HAVING count(*) >= ?1 ORDER BY user_id",
            reviews,
        )
        return [int(r[0]) for r in rows]

    async def review_history(self, user_id: int) -> list[StudyAnswer]:
        out = []
        for bank_id, question_id, verdict, answered, kind, opened_at in await self.db.all(_HISTORY, user_id):
            at, opened = from_db(answered), from_db(opened_at)
            assert at is not None and opened is not None
            seconds = (at - opened).total_seconds() if kind == "practice" else None
            outcome = _OUTCOMES.get(verdict, Outcome.WRONG)
            out.append(StudyAnswer(user_id, bank_id, question_id, outcome, at, seconds))
        return out
