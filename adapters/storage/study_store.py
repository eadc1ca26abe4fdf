"""The study tools' storage on either backend: FSRS cards, the mistake notebook and favourites,
the practice runs, and the answers they are fed from (answers.studied). Shares the backend's
connections and units of work."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.study_records import (
    Card,
    Mistake,
    Outcome,
    PracticeRun,
    Reminder,
    RunTally,
    StudyAnswer,
)
from bot.ports.study_storage import Key

_OUTCOMES = {"correct": Outcome.RIGHT, "partial": Outcome.PARTLY, "wrong": Outcome.WRONG}
_CARD_COLUMNS = (
    "user_id, bank_id, question_id, state, step, stability, difficulty, due, last_review, reviews, lapses"
)
_MISTAKE_COLUMNS = "user_id, bank_id, question_id, misses, right_streak, last_missed, active"
_RUN_COLUMNS = "id, user_id, chat_id, bank_id, mode, qtype, tags, started_at, ended_at"
# A run's answers: its person's, in the rounds it asked.
_RUN_TALLY = """
SELECT count(a.id), coalesce(sum(CASE WHEN a.verdict = 'correct' THEN 1 ELSE 0 END), 0),
       count(DISTINCT CASE WHEN a.verdict = 'wrong' AND i.in_notebook = 0 THEN i.question_id END),
       min(a.answered_at), max(a.answered_at)
FROM practice_run_items i JOIN practice_runs p ON p.id = i.run_id
JOIN answers a ON a.round_id = i.round_id AND a.user_id = p.user_id
WHERE i.run_id = ?
"""
_PENDING = """
SELECT a.round_id FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE a.user_id = ? AND a.verdict = 'pending' AND r.chat_id = ? AND r.kind = 'practice'
ORDER BY a.round_id DESC LIMIT 1
"""
# A final grade: graded (not awaiting a self-grade), and not changeable any more (the round's
# answer policy keeps the first answer, or the round is closed).
_UNSTUDIED = """
SELECT a.id, a.user_id, r.bank_id, r.question_id, a.verdict, a.answered_at, r.kind, r.opened_at
FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE a.studied = 0 AND a.verdict != 'pending' AND (r.state = 'closed' OR r.answer_policy = 'first')
ORDER BY a.id LIMIT ?
"""


def _card(row: Sequence[Any]) -> Card:
    due = from_db(row[7])
    assert due is not None
    return Card(row[0], row[1], row[2], row[3], row[4], row[5], row[6], due, from_db(row[8]), row[9], row[10])


def _run(row: Sequence[Any]) -> PracticeRun:
    started = from_db(row[7])
    assert started is not None
    tags = tuple(t for t in str(row[6] or "").split(",") if t)
    return PracticeRun(row[0], row[1], row[2], row[3], row[4], row[5], tags, started, from_db(row[8]))


def _tally(row: Sequence[Any] | None) -> RunTally:
    if row is None:
        return RunTally(0, 0, 0, None, None)
    return RunTally(int(row[0] or 0), int(row[1] or 0), int(row[2] or 0), from_db(row[3]), from_db(row[4]))


def _mistake(row: Sequence[Any]) -> Mistake:
    missed = from_db(row[5])
    assert missed is not None
    return Mistake(row[0], row[1], row[2], row[3], row[4], missed, bool(row[6]))


class SqlStudyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def unstudied(self, limit: int) -> list[tuple[int, StudyAnswer]]:
        out = []
        for row in await self.db.all(_UNSTUDIED, limit):
            answer_id, user_id, bank_id, question_id, verdict, answered_at, kind, opened_at = row
            at, opened = from_db(answered_at), from_db(opened_at)
            assert at is not None and opened is not None
            seconds = (at - opened).total_seconds() if kind == "practice" else None
            outcome = _OUTCOMES.get(verdict, Outcome.WRONG)
            out.append((answer_id, StudyAnswer(user_id, bank_id, question_id, outcome, at, seconds)))
        return out

    async def cards(self, keys: Sequence[Key]) -> dict[Key, Card]:
        rows = await self._by_key("study_cards", _CARD_COLUMNS, keys)
        return {key: _card(row) for key, row in rows.items()}

    async def mistakes(self, keys: Sequence[Key]) -> dict[Key, Mistake]:
        rows = await self._by_key("mistakes", _MISTAKE_COLUMNS, keys)
        return {key: _mistake(row) for key, row in rows.items()}

    async def _by_key(self, table: str, columns: str, keys: Sequence[Key]) -> dict[Key, Sequence[Any]]:
        """The rows of `table` for these (user, bank, question) keys; its columns start with them."""
        if not keys:
            return {}
        source, params = self.db.dialect.rows_of(keys, ("bigint", "text", "text"))
        rows = await self.db.all(
            f"SELECT {columns} FROM {table} WHERE (user_id, bank_id, question_id) IN ({source})", *params
        )
        return {(r[0], r[1], r[2]): r for r in rows}

    async def save_study(
        self, answer_ids: Sequence[int], cards: Sequence[Card], mistakes: Sequence[Mistake]
    ) -> bool:
        try:
            await self._save_study(answer_ids, cards, mistakes)
        except _Raced:
            return False
        return True

    async def _save_study(
        self, answer_ids: Sequence[int], cards: Sequence[Card], mistakes: Sequence[Mistake]
    ) -> None:
        async with self.db.transaction() as tx:
            if answer_ids:  # none: answers kept elsewhere (a mock's)
                ids, params = self.db.dialect.any_of("id", sorted(set(answer_ids)), "bigint")
                marked = await tx.execute(
                    f"UPDATE answers SET studied = 1 WHERE {ids} AND studied = 0", *params
                )
                if marked != len(set(answer_ids)):
                    raise _Raced
            card_updates = ", ".join(
                f"{c.strip()} = excluded.{c.strip()}" for c in _CARD_COLUMNS.split(",")[3:]
            )
            placeholders = ", ".join(f"?{i}" for i in range(1, 12))
            await tx.execute_many(
                f"INSERT INTO study_cards ({_CARD_COLUMNS}) VALUES ({placeholders}) "
                f"ON CONFLICT (user_id, bank_id, question_id) DO UPDATE SET {card_updates}",
                [
                    (
                        c.user_id,
                        c.bank_id,
                        c.question_id,
                        c.state,
                        c.step,
                        c.stability,
                        c.difficulty,
                        to_db(c.due),
                        to_db(c.last_review) if c.last_review else None,
                        c.reviews,
                        c.lapses,
                    )
                    for c in cards
                ],
            )
            mistake_updates = ", ".join(
                f"{c.strip()} = excluded.{c.strip()}" for c in _MISTAKE_COLUMNS.split(",")[3:]
            )
            await tx.execute_many(
                f"INSERT INTO mistakes ({_MISTAKE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                f"ON CONFLICT (user_id, bank_id, question_id) DO UPDATE SET {mistake_updates}",
                [
                    (
                        m.user_id,
                        m.bank_id,
                        m.question_id,
                        m.misses,
                        m.right_streak,
                        to_db(m.last_missed),
                        int(m.active),
                    )
                    for m in mistakes
                ],
            )

    async def due_cards(self, user_id: int, bank_id: str, now: datetime, limit: int) -> list[Card]:
        rows = await self.db.all(
            f"SELECT {_CARD_COLUMNS} FROM study_cards WHERE user_id = ?1 AND bank_id = ?2 AND due <= ?3 "
            "ORDER BY due LIMIT ?4",
            user_id, bank_id, to_db(now), limit,
        )  # fmt: skip
        return [_card(r) for r in rows]

    async def next_due(self, user_id: int, bank_id: str) -> datetime | None:
        row = await self.db.one(
            "SELECT min(due) FROM study_cards WHERE user_id = ?1 AND bank_id = ?2", user_id, bank_id
        )
        return from_db(row[0]) if row else None

    async def due_counts(self, user_id: int, bank_id: str, bounds: Sequence[datetime]) -> list[int]:
        if not bounds:
            return []
        cases = ", ".join(f"count(*) FILTER (WHERE due <= ?{i + 3})" for i in range(len(bounds)))
        row = await self.db.one(
            f"SELECT {cases} FROM study_cards WHERE user_id = ?1 AND bank_id = ?2",
            user_id, bank_id, *(to_db(b) for b in bounds),
        )  # fmt: skip
        return [int(v or 0) for v in row] if row else [0] * len(bounds)

    async def due_by_day(self, user_id: int, bank_id: str, day_starts: Sequence[datetime]) -> list[int]:
        if len(day_starts) < 2:
            return []
        # ?3 tomorrow's start, ?4 the day after's, ...: today counts every card due before
        # tomorrow, overdue ones and those coming back later today (a learning step) included.
        ends = day_starts[1:]
        cases = ["count(*) FILTER (WHERE due < ?3)"]
        cases += [f"count(*) FILTER (WHERE due >= ?{k + 2} AND due < ?{k + 3})" for k in range(1, len(ends))]
        row = await self.db.one(
            f"SELECT {', '.join(cases)} FROM study_cards "
            f"WHERE user_id = ?1 AND bank_id = ?2 AND due < ?{len(ends) + 2}",
            user_id, bank_id, *(to_db(b) for b in ends),
        )  # fmt: skip
        return [int(v or 0) for v in row] if row else [0] * len(ends)

    async def notebook(self, user_id: int, bank_id: str) -> list[Mistake]:
        rows = await self.db.all(
            f"SELECT {_MISTAKE_COLUMNS} FROM mistakes "
            "WHERE user_id = ?1 AND bank_id = ?2 AND active = 1 ORDER BY misses DESC, last_missed DESC",
            user_id, bank_id,
        )  # fmt: skip
        return [_mistake(r) for r in rows]

    async def set_favourite(
        self, user_id: int, bank_id: str, question_id: str, on: bool, at: datetime
    ) -> bool:
        async with self.db.transaction() as tx:
            if on:
                status = await tx.execute(
                    "INSERT INTO favourites (user_id, bank_id, question_id, added_at) "
                    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                    user_id, bank_id, question_id, to_db(at),
                )  # fmt: skip
            else:
                status = await tx.execute(
                    "DELETE FROM favourites WHERE user_id = ?1 AND bank_id = ?2 AND question_id = ?3",
                    user_id, bank_id, question_id,
                )  # fmt: skip
        return status > 0

    async def favourites(self, user_id: int, bank_id: str) -> list[str]:
        rows = await self.db.all(
            "SELECT question_id FROM favourites WHERE user_id = ?1 AND bank_id = ?2 ORDER BY added_at",
            user_id, bank_id,
        )  # fmt: skip
        return [r[0] for r in rows]

    async def answered(
        self, user_id: int | None, bank_id: str, chat_id: int | None = None
    ) -> dict[str, tuple[int, int]]:
        """Per question: (right answers, final answers) of one person, or of everyone in a chat."""
        where, who = ("a.user_id = ?1", user_id) if user_id is not None else ("r.chat_id = ?1", chat_id)
        rows = await self.db.all(
            "SELECT r.question_id, count(*) FILTER (WHERE a.verdict = 'correct'), count(*) FROM answers a "
            f"JOIN rounds r ON r.id = a.round_id WHERE {where} AND r.bank_id = ?2 AND a.verdict != 'pending' "
            "GROUP BY r.question_id",
            who, bank_id,
        )  # fmt: skip
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    async def grades(self, user_id: int, bank_id: str) -> dict[str, list[float]]:
        rows = await self.db.all(
            "SELECT r.question_id, a.fraction FROM answers a JOIN rounds r ON r.id = a.round_id "
            "WHERE a.user_id = ? AND r.bank_id = ? AND a.verdict != 'pending' ORDER BY a.answered_at, a.id",
            user_id, bank_id,
        )  # fmt: skip
        out: dict[str, list[float]] = {}
        for question_id, fraction in rows:
            out.setdefault(question_id, []).append(float(fraction))
        return out

    async def ungraded(self, user_id: int, bank_id: str) -> dict[str, list[str]]:
        rows = await self.db.all(
            "SELECT r.question_id, a.response FROM answers a JOIN rounds r ON r.id = a.round_id "
            "WHERE a.user_id = ? AND r.bank_id = ? AND a.verdict = 'pending' ORDER BY a.answered_at, a.id",
            user_id, bank_id,
        )  # fmt: skip
        out: dict[str, list[str]] = {}
        for question_id, response in rows:
            out.setdefault(question_id, []).append(response)
        return out

    async def set_mistake_cause(self, user_id: int, bank_id: str, question_id: str, cause: str,
                                at: datetime) -> None:  # fmt: skip
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO mistake_causes (user_id, bank_id, question_id, cause, tagged_at) "
                "VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id, bank_id, question_id) DO UPDATE SET cause = excluded.cause, "
                "tagged_at = excluded.tagged_at",
                user_id, bank_id, question_id, cause, to_db(at),
            )  # fmt: skip

    async def mistake_causes(self, user_id: int, bank_id: str) -> dict[str, str]:
        rows = await self.db.all(
            "SELECT question_id, cause FROM mistake_causes WHERE user_id = ? AND bank_id = ?",
            user_id, bank_id,
        )  # fmt: skip
        return {r[0]: r[1] for r in rows}

    async def answers_by_day(self, user_id: int, day_starts: Sequence[datetime]) -> list[tuple[int, int]]:
        """(final answers, right answers) between each start and the next."""
        if len(day_starts) < 2:
            return []
        # ?1 the person, ?2.. the starts: day k runs from ?(k+2) to ?(k+3).
        cases = ", ".join(
            f"count(*) FILTER (WHERE answered_at >= ?{k + 2} AND answered_at < ?{k + 3}), "
            f"count(*) FILTER (WHERE answered_at >= ?{k + 2} AND answered_at < ?{k + 3} "
            "AND verdict = 'correct')"
            for k in range(len(day_starts) - 1)
        )
        row = await self.db.one(
            f"SELECT {cases} FROM answers WHERE user_id = ?1 AND verdict != 'pending' "
            f"AND answered_at >= ?2 AND answered_at < ?{len(day_starts) + 1}",
            user_id, *(to_db(b) for b in day_starts),
        )  # fmt: skip
        values = [int(v or 0) for v in row] if row else [0] * (2 * (len(day_starts) - 1))
        return list(zip(values[::2], values[1::2], strict=True))

    # ------------------------------------------------------------ practice positions, reminders

    async def practice_position(self, user_id: int, bank_id: str) -> int:
        """The number of the last question served in order (0: none yet)."""
        row = await self.db.read_own(
            "SELECT number FROM practice_positions WHERE user_id = ?1 AND bank_id = ?2", user_id, bank_id
        )
        return int(row[0]) if row else 0

    async def set_practice_position(self, user_id: int, bank_id: str, number: int) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO practice_positions (user_id, bank_id, number) VALUES (?1, ?2, ?3) "
                "ON CONFLICT (user_id, bank_id) DO UPDATE SET number = excluded.number",
                user_id, bank_id, number,
            )  # fmt: skip

    async def set_reminder(self, reminder: Reminder | None, user_id: int) -> None:
        """Turn a person's daily review reminder on (`reminder`) or off (None)."""
        async with self.db.transaction() as tx:
            if reminder is None:
                await tx.execute("DELETE FROM review_reminders WHERE user_id = ?1", user_id)
                return
            await tx.execute(
                "INSERT INTO review_reminders (user_id, chat_id, at_time, timezone) VALUES (?1, ?2, ?3, ?4) "
                "ON CONFLICT (user_id) DO UPDATE SET chat_id = excluded.chat_id, "
                "at_time = excluded.at_time, timezone = excluded.timezone",
                reminder.user_id, reminder.chat_id, reminder.at_time, reminder.timezone,
            )  # fmt: skip

    async def reminders(self) -> list[Reminder]:
        rows = await self.db.all(
            "SELECT user_id, chat_id, at_time, timezone FROM review_reminders ORDER BY user_id"
        )
        return [Reminder(r[0], r[1], r[2], r[3]) for r in rows]

    async def due_count(self, user_id: int, bank_id: str, now: datetime) -> int:
        row = await self.db.one(
            "SELECT count(*) FROM study_cards WHERE user_id = ?1 AND bank_id = ?2 AND due <= ?3",
            user_id, bank_id, to_db(now),
        )  # fmt: skip
        return int(row[0]) if row else 0

    # ------------------------------------------------------------ practice runs

    async def start_run(self, run: PracticeRun) -> PracticeRun:
        async with self.db.transaction() as tx:
            await tx.execute(
                "UPDATE practice_runs SET ended_at = ?1 "
                "WHERE user_id = ?2 AND chat_id = ?3 AND ended_at IS NULL",
                to_db(run.started_at), run.user_id, run.chat_id,
            )  # fmt: skip
            opened = await tx.one(
                "INSERT INTO practice_runs (user_id, chat_id, bank_id, mode, qtype, tags, started_at) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                "ON CONFLICT (user_id, chat_id) WHERE ended_at IS NULL DO NOTHING RETURNING id",
                run.user_id, run.chat_id, run.bank_id, run.mode, run.qtype, ",".join(run.tags),
                to_db(run.started_at),
            )  # fmt: skip
            if opened is None:  # a start at the same moment (a double click) opened one: share it
                row = await tx.one(
                    f"SELECT {_RUN_COLUMNS} FROM practice_runs "
                    "WHERE user_id = ?1 AND chat_id = ?2 AND ended_at IS NULL",
                    run.user_id, run.chat_id,
                )  # fmt: skip
                assert row is not None
                return _run(row)
        run_id = int(opened[0])
        return PracticeRun(run_id, run.user_id, run.chat_id, run.bank_id, run.mode, run.qtype, run.tags,
                           run.started_at)  # fmt: skip

    async def latest_run(self, user_id: int, chat_id: int) -> PracticeRun | None:
        row = await self.db.read_own(
            f"SELECT {_RUN_COLUMNS} FROM practice_runs WHERE user_id = ?1 AND chat_id = ?2 "
            "ORDER BY id DESC LIMIT 1",
            user_id, chat_id,
        )  # fmt: skip
        return _run(row) if row else None

    async def end_run(self, run_id: int, at: datetime) -> bool:
        async with self.db.transaction() as tx:
            status = await tx.execute(
                "UPDATE practice_runs SET ended_at = ?1 WHERE id = ?2 AND ended_at IS NULL", to_db(at), run_id
            )
        return status > 0

    async def add_run_item(self, run_id: int, round_id: int, question_id: str, in_notebook: bool) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO practice_run_items (run_id, round_id, question_id, in_notebook) "
                "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                run_id, round_id, question_id, int(in_notebook),
            )  # fmt: skip

    async def run_questions(self, run_id: int) -> set[str]:
        async with self.db.transaction() as tx:  # read-your-writes: the item just added
            rows = await tx.all("SELECT question_id FROM practice_run_items WHERE run_id = ?", run_id)
        return {r[0] for r in rows}

    async def run_tally(self, run_id: int) -> RunTally:
        return _tally(await self.db.read_own(_RUN_TALLY, run_id))

    async def seen(self, user_id: int, bank_id: str, pool: str) -> set[str]:
        async with self.db.transaction() as tx:  # read-your-writes: what was just marked
            rows = await tx.all(
                "SELECT question_id FROM practice_seen WHERE user_id = ? AND bank_id = ? AND pool = ?",
                user_id, bank_id, pool,
            )  # fmt: skip
        return {r[0] for r in rows}

    async def mark_seen(self, user_id: int, bank_id: str, pool: str, question_id: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO practice_seen (user_id, bank_id, pool, question_id) VALUES (?1, ?2, ?3, ?4) "
                "ON CONFLICT DO NOTHING",
                user_id, bank_id, pool, question_id,
            )  # fmt: skip

    async def clear_seen(self, user_id: int, bank_id: str, pool: str) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "DELETE FROM practice_seen WHERE user_id = ?1 AND bank_id = ?2 AND pool = ?3",
                user_id, bank_id, pool,
            )  # fmt: skip

    async def pending_self_grade(self, user_id: int, chat_id: int) -> int | None:
        row = await self.db.read_own(_PENDING, user_id, chat_id)
        return int(row[0]) if row else None


class _Raced(Exception):
    """Another feeder studied one of these answers first; the transaction is rolled back."""
