"""The write side of answers on PostgreSQL: the group-commit batch insert and its scoring
(streaks and scoring on close are written once, chats_rounds.py).

Each function runs inside a transaction the store opened. A batch is sent as arrays and
unnested into one INSERT … SELECT per answer policy, whatever its size; RETURNING (with the
xmax = 0 test that tells an inserted row from an updated one) says which answers are new, where
SQLite relies on the order of rowids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg

from adapters.storage.sql import answer_outcomes, as_stored, to_db
from bot.domain.kinds import AnswerStatus
from bot.domain.records import AnswerOutcome, NewAnswer

_INCOMING = (
    "unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], "
    "$7::float8[], $8::float8[], $9::text[], $10::text[]) "
    "AS i(seq, round_id, user_id, response, answered_at, verdict, fraction, points, week_key, month_key)"
)
_ELIGIBLE = "r.state = 'open' AND i.answered_at < r.closes_at"
# The rounds are share-locked first: a close committing meanwhile is waited for, and the locked
# rows are then its closed versions; a close that comes later waits for this transaction (so its
# scoring counts these answers). Later statements of the transaction see the same state.
_LOCK_ROUNDS = (
    "SELECT id, state, closes_at, answer_policy FROM rounds WHERE id = ANY($2::bigint[]) "
    "ORDER BY id FOR SHARE"
)


def _scores(source: str, where: str) -> str:
    """Add the selected answers of `source` (the answers table, or the rows an INSERT returned) to
    the materialised leaderboards, as adapters/storage/sqlite/answers.py APPLY_SCORES does on SQLite: every
    answer counts in its chat's scope and, inside a Discord guild, the guild's; each in three
    windows. Summed per (scope, window, user) first, since ON CONFLICT DO UPDATE may touch a row
    once per statement and one batch can hold several answers of a user; the time the score was
    reached is the last answer that earned points (the first answer when none did)."""
    return f"""
INSERT INTO scores AS t (scope, win, user_id, points, answers, correct, reached_at)
SELECT scope, win, user_id, sum(points), count(*), sum(correct),
       coalesce(max(answered_at) FILTER (WHERE points > 0), min(answered_at))
FROM (
    SELECT
        CASE s.k WHEN 0 THEN 'c:' || c.id ELSE 'g:' || c.platform || ':' || c.guild_key END AS scope,
        CASE w.n WHEN 0 THEN 'all' WHEN 1 THEN a.week_key ELSE a.month_key END AS win,
        a.user_id, a.points, (a.verdict = 'correct')::int AS correct, a.answered_at
    FROM {source} a
    JOIN rounds r ON r.id = a.round_id
    JOIN chats c ON c.id = r.chat_id
    CROSS JOIN (VALUES (0), (1)) s(k)
    CROSS JOIN (VALUES (0), (1), (2)) w(n)
    WHERE (s.k = 0 OR c.guild_key IS NOT NULL) AND a.verdict != 'pending' AND {where}
) answered
GROUP BY scope, win, user_id
ON CONFLICT (scope, win, user_id) DO UPDATE SET
    points = t.points + excluded.points,
    answers = t.answers + excluded.answers,
    correct = t.correct + excluded.correct,
    reached_at = CASE WHEN excluded.points > 0 AND excluded.reached_at > t.reached_at
                      THEN excluded.reached_at ELSE t.reached_at END
"""


# The answers table's rows chosen by {where} (close_round, self_grade, the changeable path).
APPLY_SCORES = _scores("answers", "{where}")

# The common case: insert the answers to first-answer-counts rounds in the order given (ON CONFLICT
# keeps an earlier answer), under the rounds' lock (`r`).
_FIRST_ROWS = (
    "INSERT INTO answers (round_id, user_id, response, answered_at, verdict, fraction, points, "
    "week_key, month_key) SELECT i.round_id, i.user_id, i.response, i.answered_at, i.verdict, "
    f"i.fraction, i.points, i.week_key, i.month_key FROM {_INCOMING} JOIN r ON r.id = i.round_id "
    f"WHERE {_ELIGIBLE} AND r.answer_policy = 'first' ORDER BY i.seq "
    "ON CONFLICT (round_id, user_id) DO NOTHING RETURNING id"
)
_SCORE_INSERTED = _scores("inserted", "r.reveal = 'practice'").strip()
# The same, when the batch holds answers graded on the spot: those of practice rounds are scored
# in the same statement (their rounds found by key: a practice batch touches many rounds).
_INSERT_FIRST_SCORED = (
    f"WITH r AS ({_LOCK_ROUNDS}), inserted AS ({_FIRST_ROWS}, round_id, user_id, verdict, points, "
    "answered_at, week_key, month_key), "
    f"scored AS ({_SCORE_INSERTED}) SELECT id FROM inserted"
)
_INSERT_FIRST = f"WITH r AS ({_LOCK_ROUNDS}) {_FIRST_ROWS}"
# The usual batch (every answer new, to open first-answer rounds, none twice) in one statement
# that needs no transaction around it: all of it is inserted, or none. Checking that first
# (joining the stored answers, counting distinct pairs) cost the server more than the insert, so
# the table's own constraints decide instead, and the statement fails whole: an answer stored
# before, by another process meanwhile, or twice in the batch breaks UNIQUE (round_id, user_id);
# an answer to a missing round or one that came too late gets a NULL round_id, which breaks NOT
# NULL. A batch touching a closed or changeable round inserts nothing (checked once, on the
# locked rounds), so the common refusals cost no failed statement. The full path then decides.
_CLEAN_ROWS = (
    "INSERT INTO answers (round_id, user_id, response, answered_at, verdict, fraction, points, week_key, "
    "month_key) SELECT CASE WHEN r.state = 'open' AND i.answered_at < r.closes_at "
    "AND r.answer_policy = 'first' THEN i.round_id END, i.user_id, i.response, i.answered_at, i.verdict, "
    f"i.fraction, i.points, i.week_key, i.month_key FROM {_INCOMING} LEFT JOIN r ON r.id = i.round_id "
    "WHERE NOT EXISTS (SELECT FROM r WHERE r.state != 'open' OR r.answer_policy != 'first') ORDER BY i.seq"
)
_ACCEPT_ALL = f"WITH r AS ({_LOCK_ROUNDS}) {_CLEAN_ROWS}"
_ACCEPT_ALL_SCORED = (
    f"WITH r AS ({_LOCK_ROUNDS}), inserted AS ({_CLEAN_ROWS} RETURNING round_id, user_id, verdict, "
    f"points, answered_at, week_key, month_key), scored AS ({_SCORE_INSERTED}) SELECT count(*) FROM inserted"
)
# The refusals of _ACCEPT_ALL that send a batch down the full path.
NOT_ALL_NEW = (asyncpg.UniqueViolationError, asyncpg.NotNullViolationError)
# ON CONFLICT DO UPDATE may touch a row once per statement: the last answer of the batch per
# (round, user) is the one kept, as the sequence of updates would leave it.
_INSERT_CHANGEABLE = (
    "INSERT INTO answers AS a (round_id, user_id, response, answered_at, verdict, fraction, points, "
    "week_key, month_key) SELECT DISTINCT ON (i.round_id, i.user_id) i.round_id, i.user_id, i.response, "
    f"i.answered_at, i.verdict, i.fraction, i.points, i.week_key, i.month_key FROM {_INCOMING} "
    f"JOIN rounds r ON r.id = i.round_id WHERE {_ELIGIBLE} AND r.answer_policy = 'changeable' "
    "ORDER BY i.round_id, i.user_id, i.seq DESC "
    "ON CONFLICT (round_id, user_id) DO UPDATE SET response = excluded.response, "
    "answered_at = excluded.answered_at, verdict = excluded.verdict, fraction = excluded.fraction, "
    "points = excluded.points, week_key = excluded.week_key, month_key = excluded.month_key, "
    "changes = a.changes + 1 RETURNING id, xmax = 0"
)
_RESULTS = (
    f"SELECT i.seq, r.id, {_ELIGIBLE}, r.answer_policy, a.id, a.response, a.answered_at, a.verdict, "
    f"a.fraction, a.points FROM {_INCOMING} LEFT JOIN rounds r ON r.id = i.round_id "
    "LEFT JOIN answers a ON a.round_id = i.round_id AND a.user_id = i.user_id ORDER BY i.seq"
)


def batch_columns(batch: Sequence[NewAnswer]) -> list[list[Any]]:
    """A batch as the arrays every statement here takes ($1 … $10)."""
    return [
        list(range(len(batch))),
        [a.round_id for a in batch],
        [a.user_id for a in batch],
        [a.response for a in batch],
        [to_db(a.answered_at) for a in batch],
        [a.verdict for a in batch],
        [a.fraction for a in batch],
        [a.points for a in batch],
        [a.week_key for a in batch],
        [a.month_key for a in batch],
    ]


async def accept_all(db: asyncpg.Pool, batch: Sequence[NewAnswer], columns: list[list[Any]]) -> int:
    """Store a clean batch whole in one statement (see _CLEAN_ROWS), or none of it: the number
    of answers stored. Raises one of NOT_ALL_NEW when the table refused one."""
    if any(a.scored_now for a in batch):
        return int(await db.fetchval(_ACCEPT_ALL_SCORED, *columns))
    status: str = await db.execute(_ACCEPT_ALL, *columns)  # 'INSERT 0 <count>'
    return int(status.rsplit(" ", 1)[-1])


def all_accepted(batch: Sequence[NewAnswer]) -> list[AnswerOutcome]:
    return [AnswerOutcome(AnswerStatus.ACCEPTED, as_stored(a)) for a in batch]


async def record_answers(
    db: asyncpg.Connection, batch: Sequence[NewAnswer], columns: list[list[Any]]
) -> list[AnswerOutcome]:
    """Insert a batch with set-based SQL inside the store's transaction; the database decides, as
    on SQLite: a closed or overdue round takes nothing, UNIQUE(round_id, user_id) keeps the first
    answer (the last, in a changeable round), answers to rounds graded on the spot are scored in
    the same transaction.
    """
    first = _INSERT_FIRST_SCORED if any(a.scored_now for a in batch) else _INSERT_FIRST
    new_ids: set[int] = {row[0] for row in await db.fetch(first, *columns)}
    if len(new_ids) == len(batch):
        return all_accepted(batch)
    changed: list[int] = []
    for answer_id, inserted in await db.fetch(_INSERT_CHANGEABLE, *columns):
        if inserted:
            new_ids.add(answer_id)
            changed.append(answer_id)
    if changed:
        await db.execute(
            APPLY_SCORES.format(where="a.id = ANY($1::bigint[]) AND r.reveal = 'practice'"), changed
        )
    return answer_outcomes(batch, await db.fetch(_RESULTS, *columns), new_ids.__contains__)
