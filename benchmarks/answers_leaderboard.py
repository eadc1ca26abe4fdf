"""Section 3 of the answers benchmark: leaderboard latency (top 10 + own rank) on a chat with many
answers, against the naive GROUP BY over the answers table.
"""

from __future__ import annotations

import random
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adapters.storage.migrations import migrate
from adapters.storage.sql import to_db
from adapters.storage.sqlite.answers import APPLY_SCORES
from adapters.storage.sqlite.store import SqliteStore
from benchmarks._common import (
    LETTERS,
    Report,
    bench_bank,
    fmt_ms,
    latency_summary_ms,
    percentile,
    stderr,
)
from benchmarks.answers_fixtures import (
    PLATFORM,
    START,
    TARGET_LEADERBOARD_MEDIAN_MS,
    TIMEZONE,
    Sizes,
    settings,
    user_ref,
)
from bot.application.quiz import Quiz, chat_scope
from bot.application.requests import ShowLeaderboard
from bot.domain.clock import ManualClock
from bot.domain.kinds import ChatKind, ChatRef
from bot.domain.windows import month_key, week_key

BOARD_CHAT = ChatRef(PLATFORM, "-100999", ChatKind.GROUP, title="leaderboard bench")


def populate_board(path: Path, sizes: Sizes, rng: random.Random) -> dict[str, Any]:
    """A chat with `board_answers` answers from `board_users` users in closed rounds.

    Rows go in with stdlib sqlite3 as the store would write them (UTC ISO times, week/month keys in
    the chat's zone). The scores rows are then built with one GROUP BY per window; before that, the
    store's own APPLY_SCORES is run round by round (as closing each round would) for a sample of
    users, and the GROUP BY rows of those users must match it exactly.
    """
    bank = bench_bank()
    per_round = sizes.board_answers // sizes.board_rounds
    rounds_per_day = 10
    conn = sqlite3.connect(path, isolation_level=None)
    timings = {}
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        migrate(conn)
        conn.execute("PRAGMA synchronous = OFF")  # loading only; the measured store uses its own setting
        conn.execute("PRAGMA cache_size = -262144")
        start = time.perf_counter()
        conn.execute("BEGIN")
        chat_id = conn.execute(
            "INSERT INTO chats (platform, chat_key, kind, guild_key, title, bank_id, timezone, language, "
            "reveal_policy, answer_policy, partial_credit, created_at) "
            "VALUES (?, ?, 'group', NULL, ?, 'bench', ?, 'en', 'practice', 'first', 0, ?) RETURNING id",
            (str(PLATFORM), BOARD_CHAT.chat_key, BOARD_CHAT.title, TIMEZONE, to_db(START)),
        ).fetchone()[0]
        conn.executemany(
            "INSERT INTO users (id, platform, user_key, display_name) VALUES (?, ?, ?, ?)",
            ((n, str(PLATFORM), str(n), f"user {n}") for n in range(1, sizes.board_users + 1)),
        )
        first_day = START - timedelta(days=sizes.board_rounds // rounds_per_day)
        answers = []
        round_ids = []
        population = range(1, sizes.board_users + 1)
        for r in range(sizes.board_rounds):
            opened = first_day + timedelta(days=r // rounds_per_day, hours=r % rounds_per_day)
            closes = opened + timedelta(minutes=30)
            question = bank.questions[r % len(bank.questions)]
            round_id = conn.execute(
                "INSERT INTO rounds (chat_id, bank_id, question_id, kind, opened_at, closes_at, reveal, "
                "answer_policy, partial_credit, state, closed_at) "
                "VALUES (?, 'bench', ?, 'practice', ?, ?, 'round', 'first', 0, 'closed', ?) RETURNING id",
                (chat_id, question.id, to_db(opened), to_db(closes), to_db(closes)),
            ).fetchone()[0]
            round_ids.append(round_id)
            wk, mk = week_key(opened, TIMEZONE), month_key(opened, TIMEZONE)  # 09:00-18:30 local: one day
            right = question.answer[0]
            base_s = opened.timestamp()
            for user_id in sorted(rng.sample(population, per_round)):
                letter = LETTERS[rng.randrange(4)]
                ok = letter == right
                at = datetime.fromtimestamp(base_s + rng.randrange(1_800_000_000) / 1e6, UTC)
                answers.append(
                    (round_id, user_id, letter, to_db(at), "correct" if ok else "wrong",
                     1.0 if ok else 0.0, 1.0 if ok else 0.0, wk, mk)
                )  # fmt: skip
        timings["generate_s"] = time.perf_counter() - start
        # Secondary indexes are dropped for the load and recreated from their own DDL afterwards.
        indexes = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'answers' "
            "AND sql IS NOT NULL"
        ).fetchall()
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name}"')
        conn.executemany(
            "INSERT INTO answers (round_id, user_id, response, answered_at, verdict, fraction, points, "
            "week_key, month_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            answers,
        )
        for _, sql in indexes:
            conn.execute(sql)
        conn.execute("COMMIT")
        timings["rows_s"] = time.perf_counter() - start
        start = time.perf_counter()
        conn.execute("BEGIN")
        sample = check_scores_sample(conn, round_ids, rng.sample(population, 100))
        for win in ("'all'", "a.week_key", "a.month_key"):
            conn.execute(
                "INSERT INTO scores (scope, win, user_id, points, answers, correct, reached_at) "
                f"SELECT ?, {win}, a.user_id, sum(a.points), count(*), sum(a.verdict = 'correct'), "
                "coalesce(max(CASE WHEN a.points > 0 THEN a.answered_at END), min(a.answered_at)) "
                "FROM answers a JOIN rounds r ON r.id = a.round_id "
                f"WHERE r.chat_id = ? AND a.verdict != 'pending' GROUP BY {win}, a.user_id",
                (chat_scope(chat_id), chat_id),
            )
        mismatched = conn.execute(
            "SELECT count(*) FROM temp.expected e LEFT JOIN scores s USING (scope, win, user_id) "
            "WHERE s.points IS NOT e.points OR s.answers IS NOT e.answers OR s.correct IS NOT e.correct "
            "OR s.reached_at IS NOT e.reached_at"
        ).fetchone()[0]
        extra = conn.execute(
            "SELECT count(*) FROM scores WHERE user_id IN (SELECT user_id FROM temp.sample)"
        ).fetchone()[0]
        if mismatched or extra != sample:
            raise RuntimeError(
                f"bulk scores differ from APPLY_SCORES: {mismatched} rows differ, {extra} vs {sample} rows"
            )
        conn.execute("COMMIT")
        timings["scores_s"] = time.perf_counter() - start
        conn.execute("ANALYZE")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        scores = conn.execute("SELECT count(*) FROM scores").fetchone()[0]
        counted = conn.execute(
            "SELECT sum(answers) FROM scores WHERE scope = ? AND win = 'all'", (chat_scope(chat_id),)
        ).fetchone()[0]
    finally:
        conn.close()
    if counted != len(answers):
        raise RuntimeError(f"scores count {counted} answers, expected {len(answers)}")
    return {"chat_id": chat_id, "answers": len(answers), "score_rows": scores, **timings}


def check_scores_sample(conn: sqlite3.Connection, round_ids: list[int], users: list[int]) -> int:
    """Run the store's APPLY_SCORES for `users`, one closed round at a time in order, into
    temp.expected; leaves `scores` empty again. Returns the number of expected rows."""
    conn.execute("CREATE TEMP TABLE sample (user_id INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO temp.sample VALUES (?)", [(u,) for u in users])
    statement = APPLY_SCORES.format(where="a.round_id = ? AND a.user_id IN (SELECT user_id FROM temp.sample)")
    for round_id in round_ids:
        conn.execute(statement, (round_id,))
    conn.execute("CREATE TEMP TABLE expected AS SELECT * FROM main.scores")
    conn.execute("DELETE FROM main.scores")
    return conn.execute("SELECT count(*) FROM temp.expected").fetchone()[0]


NAIVE_TOP10 = (
    "SELECT a.user_id, sum(a.points) AS pts, count(*), sum(a.verdict = 'correct') "
    "FROM answers a JOIN rounds r ON r.id = a.round_id WHERE r.chat_id = ? "
    "GROUP BY a.user_id ORDER BY pts DESC, a.user_id LIMIT 10"
)


async def leaderboard_section(report: Report, base: Path, sizes: Sizes) -> None:
    report.section(
        f"[3] leaderboard: one chat, {sizes.board_answers:,} answers from {sizes.board_users:,} users, "
        f"top 10 + own rank, all-time window"
    )
    stderr(f"[3] populating {sizes.board_answers:,} answers ...")
    path = base / "leaderboard.db"
    rng = random.Random(3)
    built = populate_board(path, sizes, rng)
    stderr(f"[3] populated: rows {built['rows_s']:.1f} s, scores {built['scores_s']:.1f} s")
    store = await SqliteStore.open(path)
    bank = bench_bank()
    quiz = Quiz(store, {bank.id: bank}, settings(), ManualClock(START), random.Random(1))
    scope = chat_scope(built["chat_id"])
    lookups = [user_ref(n) for n in rng.sample(range(1, sizes.board_users + 1), sizes.board_lookups)]
    try:
        t0 = time.perf_counter()
        first = await quiz.leaderboard(ShowLeaderboard(BOARD_CHAT, lookups[0]))
        cold = time.perf_counter() - t0
        for ref in lookups[:5]:  # warm-up: chat cache, statement cache, pages
            await quiz.leaderboard(ShowLeaderboard(BOARD_CHAT, ref))
        # Interleaved per user, so a noisy moment on the machine hits the three measurements alike.
        board, tops, owns = [], [], []
        views = []
        user_ids = [int(ref.user_key) for ref in lookups]  # inserted with id = user_key
        for ref, user_id in zip(lookups, user_ids, strict=True):
            t0 = time.perf_counter()
            view = await quiz.leaderboard(ShowLeaderboard(BOARD_CHAT, ref))
            t1 = time.perf_counter()
            await store.top_scores(scope, "all", 10)
            t2 = time.perf_counter()
            await store.score_of(scope, "all", user_id)
            t3 = time.perf_counter()
            board.append(t1 - t0)
            tops.append(t2 - t1)
            owns.append(t3 - t2)
            views.append(view)
        # Correctness: the top 10 and some own ranks against a full ordering.
        async with store.reader.execute(
            "SELECT user_id FROM scores WHERE scope = ? AND win = 'all' "
            "ORDER BY points DESC, reached_at, user_id",
            (scope,),
        ) as cursor:
            order = [row[0] for row in await cursor.fetchall()]
        rank_of = {uid: i + 1 for i, uid in enumerate(order)}
        if len(first.rows) != 10 or [r.name for r in first.rows] != [f"user {u}" for u in order[:10]]:
            raise RuntimeError("leaderboard top 10 does not match the scores ordering")
        for view, user_id in zip(views, user_ids, strict=True):
            expected = rank_of.get(user_id)
            got = view.own.rank if view.own else None
            if got != expected:
                raise RuntimeError(f"own rank of user {user_id}: got {got}, expected {expected}")
    finally:
        await store.close()

    stderr(f"[3] naive GROUP BY x{sizes.naive_repeats} ...")
    naive = []
    conn = sqlite3.connect(path)
    try:
        for _ in range(sizes.naive_repeats):
            t0 = time.perf_counter()
            rows = conn.execute(NAIVE_TOP10, (built["chat_id"],)).fetchall()
            naive.append(time.perf_counter() - t0)
    finally:
        conn.close()
    if len(rows) != 10:
        raise RuntimeError("naive leaderboard returned fewer than 10 rows")

    b, t, o, nv = (latency_summary_ms(x) for x in (board, tops, owns, naive))
    ranks = sorted(rank_of[u] for u in user_ids if u in rank_of)
    report.results["leaderboard"] = {
        "populate": built,
        "first_call_ms": cold * 1e3,
        "quiz_leaderboard": b,
        "store_top_scores": t,
        "store_score_of": o,
        "naive_group_by": nv,
        "median_rank_looked_up": percentile(ranks, 50),
    }

    def trio(s: dict[str, float]) -> str:
        return f"{s['p50_ms']:.2f} / {s['p90_ms']:.2f} / {s['max_ms']:.2f} ms"

    report.check(
        f"Quiz.leaderboard median ({len(board)} random users)",
        b["p50_ms"],
        fmt_ms(b["p50_ms"] / 1e3),
        at_most=TARGET_LEADERBOARD_MEDIAN_MS,
    )
    report.line("  Quiz.leaderboard median / p90 / max", trio(b))
    report.line("  store.top_scores(limit 10) median / p90 / max", trio(t))
    report.line("  store.score_of (own rank) median / p90 / max", trio(o))
    report.line("  first call (cold caches)", fmt_ms(cold))
    report.line(
        f"naive SUM GROUP BY over answers, x{len(naive)}: median / max",
        f"{nv['p50_ms']:,.0f} / {nv['max_ms']:,.0f} ms",
    )
    report.line("ratio naive / Quiz.leaderboard (medians)", f"{nv['p50_ms'] / b['p50_ms']:,.0f}x")
    report.line(
        "  (setup: rows loaded / scores built and checked)",
        f"{built['rows_s']:.1f} s / {built['scores_s']:.1f} s",
    )
