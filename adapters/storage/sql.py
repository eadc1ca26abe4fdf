"""SQL text and row conversions shared by the SQLite store's modules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import aiosqlite

from bot.kinds import (
    AnswerMode,
    AnswerPolicy,
    AnswerStatus,
    ChatKind,
    ChatRef,
    Platform,
    RevealPolicy,
    RoundKind,
    RoundState,
)
from bot.records import AnswerOutcome, Chat, ChatSettings, NewAnswer, Round, StoredAnswer

Params = Sequence[Any] | dict[str, Any]


async def fetch_all(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
    """Every row, fetched in one hop: a cursor left open between hops would hold a reader on an
    old snapshot, and every other read on it would miss what was committed since."""
    # No row factory is set, so sqlite3 hands back plain tuples.
    return list(cast(Iterable[tuple[Any, ...]], await conn.execute_fetchall(sql, params)))


async def fetch_one(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
    rows = await fetch_all(conn, sql, params)
    return rows[0] if rows else None


def to_db(when: datetime) -> str:
    """UTC ISO text with fixed width, so string order is time order."""
    if when.tzinfo is None:
        raise ValueError("naive datetime given to the store")
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def from_db(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


CHAT_COLUMNS = (
    "id, platform, chat_key, kind, guild_key, title, bank_id, timezone, language, "
    "reveal_policy, answer_policy, partial_credit, paused"
)


def chat_from_row(row) -> Chat:
    return Chat(
        id=row[0],
        ref=ChatRef(
            platform=Platform(row[1]),
            chat_key=row[2],
            kind=ChatKind(row[3]),
            guild_key=row[4],
            title=row[5],
        ),
        settings=ChatSettings(
            bank_id=row[6],
            timezone=row[7],
            language=row[8],
            reveal_policy=RevealPolicy(row[9]),
            answer_policy=AnswerPolicy(row[10]),
            partial_credit=bool(row[11]),
        ),
        paused=bool(row[12]),
    )


ROUND_COLUMNS = (
    "id, chat_id, bank_id, question_id, kind, opened_at, closes_at, reveal, answer_policy, "
    "partial_credit, state, message_ref, daily_date, contest_id, closed_at, answer_mode"
)


def round_from_row(row) -> Round:
    return Round(
        id=row[0],
        chat_id=row[1],
        bank_id=row[2],
        question_id=row[3],
        kind=RoundKind(row[4]),
        opened_at=from_db(row[5]),  # type: ignore[arg-type]
        closes_at=from_db(row[6]),  # type: ignore[arg-type]
        reveal=RevealPolicy(row[7]),
        answer_policy=AnswerPolicy(row[8]),
        partial_credit=bool(row[9]),
        state=RoundState(row[10]),
        message_ref=row[11],
        daily_date=row[12],
        contest_id=row[13],
        closed_at=from_db(row[14]),
        mode=AnswerMode(row[15]),
    )


# Adds the selected answers to the materialised leaderboards: every answer counts in the chat
# scope and, for a chat inside a Discord guild, the guild scope; each in three windows.
APPLY_SCORES = """
INSERT INTO scores (scope, win, user_id, points, answers, correct, reached_at)
SELECT
    CASE s.k WHEN 0 THEN 'c:' || c.id ELSE 'g:' || c.platform || ':' || c.guild_key END,
    CASE w.n WHEN 0 THEN 'all' WHEN 1 THEN a.week_key ELSE a.month_key END,
    a.user_id, a.points, 1, a.verdict = 'correct', a.answered_at
FROM answers a
JOIN rounds r ON r.id = a.round_id
JOIN chats c ON c.id = r.chat_id
JOIN (SELECT 0 AS k UNION ALL SELECT 1) s
JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2) w
WHERE (s.k = 0 OR c.guild_key IS NOT NULL) AND a.verdict != 'pending' AND {where}
ON CONFLICT (scope, win, user_id) DO UPDATE SET
    points = points + excluded.points,
    answers = answers + excluded.answers,
    correct = correct + excluded.correct,
    reached_at = CASE WHEN excluded.points > 0 AND excluded.reached_at > reached_at
                      THEN excluded.reached_at ELSE reached_at END
"""


def as_stored(new: NewAnswer) -> StoredAnswer:
    """A new answer as the store keeps it (what a first answer to an open round becomes)."""
    return StoredAnswer(
        new.round_id, new.user_id, new.response, new.answered_at, new.verdict, new.fraction, new.points
    )


def answer_outcomes(
    batch: Sequence[NewAnswer], found: Iterable[Sequence[Any]], inserted: Callable[[int], bool]
) -> list[AnswerOutcome]:
    """The outcome of each answer of a batch from the rows the batch's insert left behind
    (seq, round id, eligible, policy, answer id, stored response, time, verdict, fraction,
    points); `inserted(answer_id)` says whether this batch's insert created that answer row."""
    first_seq: dict[tuple[int, int], int] = {}
    for seq, answer in enumerate(batch):
        first_seq.setdefault((answer.round_id, answer.user_id), seq)
    out = []
    for seq, round_id, eligible, policy, answer_id, *stored in found:
        new = batch[seq]
        if round_id is None:
            out.append(AnswerOutcome(AnswerStatus.UNKNOWN_ROUND))
            continue
        if not eligible or answer_id is None:
            out.append(AnswerOutcome(AnswerStatus.CLOSED))
            continue
        inserted_here = inserted(answer_id) and first_seq[(new.round_id, new.user_id)] == seq
        if policy == AnswerPolicy.CHANGEABLE:
            status = AnswerStatus.ACCEPTED if inserted_here else AnswerStatus.CHANGED
            kept = as_stored(new)
        else:
            status = AnswerStatus.ACCEPTED if inserted_here else AnswerStatus.DUPLICATE
            response, answered_at, verdict, fraction, points = stored
            kept = StoredAnswer(
                new.round_id, new.user_id, response, from_db(answered_at),  # type: ignore[arg-type]
                verdict, fraction, points,
            )  # fmt: skip
        out.append(AnswerOutcome(status, kept))
    return out
