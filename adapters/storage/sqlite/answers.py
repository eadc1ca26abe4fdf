"""The write side of answers: the group-commit batch insert and daily streak updates.

Each function runs inside a transaction the store opened; it never commits itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite

from adapters.storage.sql import APPLY_SCORES, answer_outcomes, as_stored, to_db
from bot.kinds import AnswerPolicy, AnswerStatus
from bot.records import AnswerOutcome, NewAnswer

CREATE_INCOMING = (
    "CREATE TEMP TABLE IF NOT EXISTS incoming (seq INTEGER PRIMARY KEY, round_id INTEGER, "
    "user_id INTEGER, response TEXT, answered_at TEXT, verdict TEXT, fraction REAL, "
    "points REAL, week_key TEXT, month_key TEXT)"
)

_INSERT = (
    "INSERT {verb} INTO answers (round_id, user_id, response, answered_at, verdict, fraction, "
    "points, week_key, month_key) SELECT i.round_id, i.user_id, i.response, i.answered_at, "
    "i.verdict, i.fraction, i.points, i.week_key, i.month_key "
    "FROM incoming i JOIN rounds r ON r.id = i.round_id "
    "WHERE r.state = 'open' AND i.answered_at < r.closes_at AND r.answer_policy = '{policy}' "
    "ORDER BY i.seq"
)
_REPLACE_EARLIER = (
    " ON CONFLICT (round_id, user_id) DO UPDATE SET response = excluded.response, "
    "answered_at = excluded.answered_at, verdict = excluded.verdict, "
    "fraction = excluded.fraction, points = excluded.points, week_key = excluded.week_key, "
    "month_key = excluded.month_key, changes = changes + 1"
)
_RESULTS = (
    "SELECT i.seq, r.id, r.state = 'open' AND i.answered_at < r.closes_at, r.answer_policy, "
    "a.id, a.response, a.answered_at, a.verdict, a.fraction, a.points "
    "FROM incoming i LEFT JOIN rounds r ON r.id = i.round_id "
    "LEFT JOIN answers a ON a.round_id = i.round_id AND a.user_id = i.user_id ORDER BY i.seq"
)


async def record_answers(db: aiosqlite.Connection, batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
    """Insert a batch with set-based SQL: a handful of statements however large the batch.

    The database decides, not the caller: a round that is closed or past its deadline takes
    nothing, UNIQUE(round_id, user_id) keeps only the first answer (or, in a changeable round,
    the last), and answers to rounds graded on the spot are scored in the same transaction.
    """
    rows = [
        (
            seq, a.round_id, a.user_id, a.response, to_db(a.answered_at), a.verdict,
            a.fraction, a.points, a.week_key, a.month_key,
        )
        for seq, a in enumerate(batch)
    ]  # fmt: skip
    # Each await is a hop to the database thread: the common case (every answer a first answer
    # to an open daily) takes four, whatever the batch size.
    await db.execute("DELETE FROM incoming")
    await db.executemany("INSERT INTO incoming VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    cursor = await db.execute(_INSERT.format(verb="OR IGNORE", policy=AnswerPolicy.FIRST))
    inserted = cursor.rowcount
    if inserted > 0:  # rowids are handed out in order, so the new ones follow `before`
        before = cursor.lastrowid - inserted  # type: ignore[operator]
    else:
        async with db.execute("SELECT coalesce(max(id), 0) FROM answers") as found_max:
            before = (await found_max.fetchone())[0]  # type: ignore[index]
    if inserted != len(batch):
        await db.execute(_INSERT.format(verb="", policy=AnswerPolicy.CHANGEABLE) + _REPLACE_EARLIER)
    if any(a.scored_now for a in batch):
        await db.execute(APPLY_SCORES.format(where="a.id > ? AND r.reveal = 'practice'"), (before,))
    if inserted == len(batch):
        # Every answer was a first answer to an open round: each was stored exactly as given.
        return [AnswerOutcome(AnswerStatus.ACCEPTED, as_stored(a)) for a in batch]
    found = await db.execute_fetchall(_RESULTS)
    return answer_outcomes(batch, found, lambda answer_id: answer_id > before)


async def update_streaks(db: aiosqlite.Connection, chat_id: int, round_id: int, date: str) -> None:
    """A daily closed: extend the streak of whoever was right, reset everyone else's.

    Consecutive means consecutive dailies of the chat, so a weekday-only schedule does not
    break streaks over the weekend.
    """
    async with db.execute(
        "SELECT max(daily_date) FROM rounds WHERE chat_id = ? AND kind = 'daily' "
        "AND daily_date < ? AND state = 'closed'",
        (chat_id, date),
    ) as cursor:
        previous = (await cursor.fetchone())[0]  # type: ignore[index]
    next_value = (
        "CASE WHEN streaks.last_date = :prev THEN streaks.current + 1 "
        "WHEN streaks.last_date = :date THEN streaks.current ELSE 1 END"
    )
    await db.execute(
        "INSERT INTO streaks (chat_id, user_id, current, best, last_date) "
        "SELECT :chat, user_id, 1, 1, :date FROM answers "
        "WHERE round_id = :round AND verdict = 'correct' "
        f"ON CONFLICT (chat_id, user_id) DO UPDATE SET current = {next_value}, "
        f"best = max(streaks.best, {next_value}), last_date = :date",
        {"chat": chat_id, "date": date, "prev": previous, "round": round_id},
    )
    await db.execute(
        "UPDATE streaks SET current = 0 WHERE chat_id = ? AND (last_date IS NULL OR last_date < ?)",
        (chat_id, date),
    )
