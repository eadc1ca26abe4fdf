"""The write side of answers on SQLite: the group-commit batch insert and the scores upsert
(closing a round, self-grades and streaks are written once, chats_rounds.py).

Each function runs inside a transaction the store opened; it never commits itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite

from adapters.storage.sql import answer_outcomes, as_stored, to_db
from bot.domain.kinds import AnswerPolicy, AnswerStatus
from bot.domain.records import AnswerOutcome, NewAnswer

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
