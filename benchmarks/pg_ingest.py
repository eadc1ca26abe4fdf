"""Durable answer ingest: PostgreSQL with 1 process against SQLite with 1 process, in one run.

Both backends get the same work through the path the bot uses: every answer goes through a
GroupCommitter over the backend's `record_answers` (as Quiz.submit does) and is counted only
when the transaction holding it has committed. Durable means durable on both sides: SQLite with
synchronous=FULL in WAL mode, PostgreSQL with fsync and synchronous_commit on (its own server,
started here by tests/pg_server.py in a temporary folder, on the same disk).

Two shapes: a burst (every answer submitted at once) and a steady crowd (C clients, each
sending its next answer when the last was acknowledged).

PostgreSQL with 2 and 4 processes against SQLite with one: benchmarks/scale_ingest.py (child
processes, each with its own pool and GroupCommitter, on the same work).

    python -m benchmarks.pg_ingest [--answers 20000] [--clients 200]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adapters.storage.backends import PostgresStorage, SqliteStorage
from bot.application.group_commit import GroupCommitter
from bot.domain.kinds import (
    AnswerPolicy,
    AnswerStatus,
    ChatKind,
    ChatRef,
    Platform,
    RevealPolicy,
    RoundKind,
    UserRef,
)
from bot.domain.records import AnswerOutcome, ChatSettings, NewAnswer, NewRound
from tests.pg_server import PgServer, find_bin_dir

T0 = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)
ROUNDS = 20


async def prepare(storage: SqliteStorage | PostgresStorage, users: int) -> tuple[list[int], list[int]]:
    store = storage.store
    settings = ChatSettings("bench", "UTC", "en")
    round_ids, user_ids = [], []
    for n in range(ROUNDS):
        chat = await store.ensure_chat(ChatRef(Platform.DISCORD, f"c{n}", ChatKind.GROUP, "g1"), settings)
        new = NewRound(chat.id, "bench", "q1", RoundKind.DAILY, T0, T0 + timedelta(days=1),
                       RevealPolicy.ROUND, AnswerPolicy.FIRST, False)  # fmt: skip
        round_ids.append((await store.open_round(new)).id)
    for start in range(0, users, 1000):
        chunk = range(start, min(users, start + 1000))
        refs = [UserRef(Platform.DISCORD, str(u), f"user {u}") for u in chunk]
        user_ids += await store.ensure_users(refs)
    return round_ids, user_ids


def work(round_ids: list[int], user_ids: list[int], answers: int) -> list[NewAnswer]:
    at = T0 + timedelta(minutes=1)
    return [
        NewAnswer(
            round_ids[i % ROUNDS], user_ids[i // ROUNDS], "B", at, "correct", 1.0, 1.0, "2026-W49", "2026-12"
        )
        for i in range(answers)
    ]


async def burst(submit: Callable[[NewAnswer], Awaitable[AnswerOutcome]], batch: list[NewAnswer]) -> float:
    began = time.perf_counter()
    outcomes = await asyncio.gather(*(submit(a) for a in batch))
    seconds = time.perf_counter() - began
    assert all(o.status is AnswerStatus.ACCEPTED for o in outcomes)
    return len(batch) / seconds


async def crowd(
    submit: Callable[[NewAnswer], Awaitable[AnswerOutcome]], batch: list[NewAnswer], clients: int
) -> float:
    async def client(mine: list[NewAnswer]) -> None:
        for answer in mine:
            assert (await submit(answer)).status is AnswerStatus.ACCEPTED

    began = time.perf_counter()
    await asyncio.gather(*(client(batch[c::clients]) for c in range(clients)))
    return len(batch) / (time.perf_counter() - began)


async def measure(
    storage: SqliteStorage | PostgresStorage, answers: int, clients: int
) -> tuple[float, float]:
    round_ids, user_ids = await prepare(storage, 2 * answers // ROUNDS + 1)
    every = work(round_ids, user_ids, 2 * answers)
    committer: GroupCommitter[NewAnswer, AnswerOutcome] = GroupCommitter(storage.store.record_answers)
    burst_rate = await burst(committer.submit, every[:answers])
    crowd_rate = await crowd(committer.submit, every[answers:], clients)
    return burst_rate, crowd_rate


async def main_async(answers: int, clients: int) -> None:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL binaries (initdb, pg_ctl) not found")
    with tempfile.TemporaryDirectory(prefix="studybot-bench-") as folder:
        sqlite = await SqliteStorage.open(Path(folder) / "bench.db", synchronous="FULL")
        try:
            sqlite_rates = await measure(sqlite, answers, clients)
        finally:
            await sqlite.close()
    server = PgServer(bin_dir, durable=True).start()
    try:
        postgres = await PostgresStorage.open(server.dsn())
        try:
            postgres_rates = await measure(postgres, answers, clients)
        finally:
            await postgres.close()
    finally:
        server.stop()
    print(f"durable answer ingest, group commit, acknowledged after commit ({answers:,} answers per shape)")
    print(f"{'shape':<28}{'SQLite, 1 process':>20}{'PostgreSQL, 1 process':>24}{'PG / SQLite':>14}")
    shapes = ("burst", f"crowd of {clients} clients")
    for name, lite, pg in zip(shapes, sqlite_rates, postgres_rates, strict=True):
        print(f"{name:<28}{lite:>16,.0f}/s{pg:>20,.0f}/s{pg / lite:>13.2f}x")
    print("PostgreSQL with 2 and 4 processes: python -m benchmarks.scale_ingest")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20000)
    parser.add_argument("--clients", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main_async(args.answers, args.clients))


if __name__ == "__main__":
    main()
