"""The read side on PostgreSQL: a round's answers, scores and ranks, streaks, totals, mistakes.

The same queries as adapters/storage/sqlite/reads.py, in PostgreSQL's SQL; sums of integers
are cast back to bigint (PostgreSQL widens them to numeric).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.storage.sql import from_db
from bot.domain.records import ScoreRow, StoredAnswer

_ANSWER = (
    "SELECT a.round_id, a.user_id, a.response, a.answered_at, a.verdict, a.fraction, a.points, "
    "u.display_name FROM answers a JOIN users u ON u.id = a.user_id "
)
ROUND_ANSWERS = _ANSWER + "WHERE a.round_id = $1 ORDER BY a.answered_at, a.id"
USER_ANSWER = _ANSWER + "WHERE a.round_id = $1 AND a.user_id = $2"

TOP_SCORES = (
    "SELECT s.user_id, u.display_name, s.points, s.answers, s.correct, s.reached_at, 0 "
    "FROM scores s JOIN users u ON u.id = s.user_id WHERE s.scope = $1 AND s.win = $2 "
    "ORDER BY s.points DESC, s.reached_at, s.user_id LIMIT $3"
)
# Users on higher scores come from the buckets; only the ties ahead are counted row by row.
SCORE_OF = """
SELECT s.user_id, u.display_name, s.points, s.answers, s.correct, s.reached_at,
    (SELECT coalesce(sum(b.users), 0)::bigint FROM score_buckets b
        WHERE b.scope = s.scope AND b.win = s.win AND b.points > s.points)
  + (SELECT count(*) FROM scores o WHERE o.scope = s.scope AND o.win = s.win AND o.points = s.points
        AND (o.reached_at < s.reached_at OR (o.reached_at = s.reached_at AND o.user_id < s.user_id)))
  + 1
FROM scores s JOIN users u ON u.id = s.user_id
WHERE s.scope = $1 AND s.win = $2 AND s.user_id = $3
"""

TOP_STREAKS = (
    "SELECT u.display_name, s.current FROM answers a "
    "JOIN streaks s ON s.chat_id = $1 AND s.user_id = a.user_id JOIN users u ON u.id = a.user_id "
    "WHERE a.round_id = $2 AND a.verdict = 'correct' AND s.current > 1 "
    "ORDER BY s.current DESC, a.answered_at LIMIT $3"
)
TOTALS = (
    "SELECT count(*), count(*) FILTER (WHERE a.verdict = 'correct'), coalesce(sum(a.points), 0) "
    "FROM answers a JOIN rounds r ON r.id = a.round_id "
    "WHERE a.user_id = $1 AND r.chat_id = $2 AND (r.reveal = 'practice' OR r.state = 'closed')"
)
RECENT_MISTAKES = (
    "SELECT r.question_id FROM answers a JOIN rounds r ON r.id = a.round_id "
    "WHERE a.user_id = $1 AND r.chat_id = $2 AND a.verdict IN ('wrong', 'partial') "
    "AND (r.reveal = 'practice' OR r.state = 'closed') ORDER BY a.answered_at DESC LIMIT $3"
)


def stored_answers(rows: Sequence[Sequence[Any]]) -> list[StoredAnswer]:
    return [
        StoredAnswer(
            round_id=r[0], user_id=r[1], response=r[2], answered_at=from_db(r[3]),  # type: ignore[arg-type]
            verdict=r[4], fraction=r[5], points=r[6], display_name=r[7],
        )
        for r in rows
    ]


def score_row(row: Sequence[Any], rank: int | None = None) -> ScoreRow:
    return ScoreRow(
        row[0], row[1], row[2], row[3], row[4], from_db(row[5]),  # type: ignore[arg-type]
        int(row[6]) if rank is None else rank,
    )  # fmt: skip


def ranked(rows: Sequence[Sequence[Any]]) -> list[ScoreRow]:
    return [score_row(r, rank) for rank, r in enumerate(rows, start=1)]
