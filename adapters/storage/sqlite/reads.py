"""The read side of answers: a round's answers, scores and ranks, streaks, totals and recent mistakes.

Each function takes the store's reader connection and only reads; SqliteStore's methods delegate here.
"""

from __future__ import annotations

import aiosqlite

from adapters.storage.sql import from_db
from adapters.storage.sqlite.fetch import fetch_all, fetch_one
from bot.domain.records import ScoreRow, StoredAnswer, StreakRecord, UserTotals

# ------------------------------------------------------------ answers


async def round_answers(reader: aiosqlite.Connection, round_id: int) -> list[StoredAnswer]:
    rows = await fetch_all(
        reader,
        "SELECT a.round_id, a.user_id, a.response, a.answered_at, a.verdict, a.fraction, "
        "a.points, u.display_name FROM answers a JOIN users u ON u.id = a.user_id "
        "WHERE a.round_id = ? ORDER BY a.answered_at, a.id",
        (round_id,),
    )
    return [_stored(r) for r in rows]


async def answer_count(reader: aiosqlite.Connection, round_id: int) -> int:
    row = await fetch_one(reader, "SELECT count(*) FROM answers WHERE round_id = ?", (round_id,))
    return row[0] if row else 0


async def user_answer(reader: aiosqlite.Connection, round_id: int, user_id: int) -> StoredAnswer | None:
    row = await fetch_one(
        reader,
        "SELECT a.round_id, a.user_id, a.response, a.answered_at, a.verdict, a.fraction, "
        "a.points, u.display_name FROM answers a JOIN users u ON u.id = a.user_id "
        "WHERE a.round_id = ? AND a.user_id = ?",
        (round_id, user_id),
    )
    return _stored(row) if row else None


# ------------------------------------------------------------ scores


async def top_scores(reader: aiosqlite.Connection, scope: str, window: str, limit: int) -> list[ScoreRow]:
    rows = await fetch_all(
        reader,
        "SELECT s.user_id, u.display_name, s.points, s.answers, s.correct, s.reached_at "
        "FROM scores s JOIN users u ON u.id = s.user_id WHERE s.scope = ? AND s.win = ? "
        "ORDER BY s.points DESC, s.reached_at, s.user_id LIMIT ?",
        (scope, window, limit),
    )
    return [
        ScoreRow(r[0], r[1], r[2], r[3], r[4], from_db(r[5]), rank)  # type: ignore[arg-type]
        for rank, r in enumerate(rows, start=1)
    ]


async def score_of(reader: aiosqlite.Connection, scope: str, window: str, user_id: int) -> ScoreRow | None:
    row = await fetch_one(
        reader,
        "SELECT s.user_id, u.display_name, s.points, s.answers, s.correct, s.reached_at "
        "FROM scores s JOIN users u ON u.id = s.user_id "
        "WHERE s.scope = ? AND s.win = ? AND s.user_id = ?",
        (scope, window, user_id),
    )
    if row is None:
        return None
    # Users on higher scores come from the buckets; only the ties ahead are counted row by row.
    ahead = await fetch_one(
        reader,
        "SELECT (SELECT coalesce(sum(users), 0) FROM score_buckets "
        "        WHERE scope = :scope AND win = :win AND points > :points) + "
        "(SELECT count(*) FROM scores WHERE scope = :scope AND win = :win AND points = :points "
        "        AND (reached_at < :at OR (reached_at = :at AND user_id < :user)))",
        {"scope": scope, "win": window, "points": row[2], "at": row[5], "user": user_id},
    )
    rank = (ahead[0] if ahead else 0) + 1
    return ScoreRow(row[0], row[1], row[2], row[3], row[4], from_db(row[5]), rank)  # type: ignore[arg-type]


# ------------------------------------------------------------ streaks, totals, mistakes


async def streak(reader: aiosqlite.Connection, chat_id: int, user_id: int) -> StreakRecord:
    row = await fetch_one(
        reader,
        "SELECT current, best, last_date FROM streaks WHERE chat_id = ? AND user_id = ?",
        (chat_id, user_id),
    )
    return StreakRecord(*row) if row else StreakRecord(0, 0, None)


async def top_streaks(
    reader: aiosqlite.Connection, chat_id: int, round_id: int, limit: int
) -> list[tuple[str, int]]:
    """(name, current streak) of the longest streaks (> 1) among those right in a round."""
    rows = await fetch_all(
        reader,
        "SELECT u.display_name, s.current FROM answers a "
        "JOIN streaks s ON s.chat_id = ? AND s.user_id = a.user_id JOIN users u ON u.id = a.user_id "
        "WHERE a.round_id = ? AND a.verdict = 'correct' AND s.current > 1 "
        "ORDER BY s.current DESC, a.answered_at LIMIT ?",
        (chat_id, round_id, limit),
    )
    return [(r[0], r[1]) for r in rows]


async def totals(reader: aiosqlite.Connection, chat_id: int, user_id: int) -> UserTotals:
    row = await fetch_one(
        reader,
        "SELECT count(*), coalesce(sum(a.verdict = 'correct'), 0), coalesce(sum(a.points), 0) "
        "FROM answers a JOIN rounds r ON r.id = a.round_id "
        "WHERE a.user_id = ? AND r.chat_id = ? AND (r.reveal = 'practice' OR r.state = 'closed')",
        (user_id, chat_id),
    )
    return UserTotals(*row) if row else UserTotals(0, 0, 0.0)


async def recent_mistakes(reader: aiosqlite.Connection, chat_id: int, user_id: int, limit: int) -> list[str]:
    rows = await fetch_all(
        reader,
        "SELECT r.question_id FROM answers a JOIN rounds r ON r.id = a.round_id "
        "WHERE a.user_id = ? AND r.chat_id = ? AND a.verdict IN ('wrong', 'partial') "
        "AND (r.reveal = 'practice' OR r.state = 'closed') ORDER BY a.answered_at DESC LIMIT ?",
        (user_id, chat_id, limit),
    )
    return [r[0] for r in rows]


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
