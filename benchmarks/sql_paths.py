"""The hand path (adapters/storage/database.py StoreDatabase, the per-backend answer ingest)
against SQLAlchemy Core 2.x async, statement for statement, on SQLite and PostgreSQL (issue 21).

Three operations, each the same SQL text through both paths (SQLAlchemy's as `text()` with
named binds, built once so its compiled cache serves every call):

- ingest: a batch of answers stored as the real ingest stores it (SQLite: the temporary table
  filled by executemany, then INSERT OR IGNORE … SELECT, in one BEGIN IMMEDIATE transaction;
  PostgreSQL: the one-statement array insert of `postgres/answers.py`, no transaction around it).
  Hand: `store.record_answers(batch)` itself.
- read: one round by primary key (a committed read outside a transaction).
- upsert: a user registered or renamed, `INSERT … ON CONFLICT … DO UPDATE … RETURNING id`, one
  write transaction each.

SQLite runs with synchronous=NORMAL and PostgreSQL without fsync (tests/pg_server.py), so the
commit's flush, the same for both paths, does not hide what each path costs. Operations run one
after another; each round times both paths, the order alternating; the table shows the medians
of wall and client-process CPU time (every thread) per operation. Needs SQLAlchemy (the `bench`
extra) and, for PostgreSQL, asyncpg and initdb.

    python -m benchmarks.sql_paths [--rounds 7] [--batch 100] [--no-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from adapters.storage import sql as shared
from adapters.storage.backends import PostgresStorage, SqliteStorage
from adapters.storage.database import numbered
from adapters.storage.postgres import answers as pg_answers
from adapters.storage.sqlite import answers as lite_answers
from benchmarks.pg_ingest import ROUNDS, T0, prepare
from bot.domain.kinds import AnswerPolicy
from bot.domain.records import NewAnswer
from tests.pg_server import PgServer, find_bin_dir

READ = f"SELECT {shared.ROUND_COLUMNS} FROM rounds WHERE id = ?"
UPSERT = (
    "INSERT INTO users (platform, user_key, display_name) VALUES (?, ?, ?) "
    "ON CONFLICT (platform, user_key) DO UPDATE SET display_name = excluded.display_name RETURNING id"
)
LITE_FILL = "INSERT INTO incoming VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
LITE_INSERT = lite_answers._INSERT.format(verb="OR IGNORE", policy=AnswerPolicy.FIRST)


def named(sql: str) -> Any:
    """`?` / `$n` text as SQLAlchemy's text() with binds :p1…:pn (`$n::type` as a CAST)."""
    sql = numbered(sql) if "?" in sql else sql
    sql = re.sub(r"\$(\d+)::([\w\[\]]+)", r"CAST(:p\1 AS \2)", sql)
    return text(re.sub(r"\$(\d+)", r":p\1", sql))


def binds(*values: Any) -> dict[str, Any]:
    return {f"p{i}": v for i, v in enumerate(values, 1)}


def answers(round_ids: list[int], user_ids: list[int], start: int, count: int) -> list[NewAnswer]:
    """`count` answers never given before (each user answers each round once)."""
    at = T0 + timedelta(minutes=1)
    return [
        NewAnswer(round_ids[i % ROUNDS], user_ids[i // ROUNDS], "B", at, "correct", 1.0, 1.0, "2026-W49",
                  "2026-12")
        for i in range(start, start + count)
    ]  # fmt: skip


def sqlite_engine(path: Path, *, autocommit: bool) -> AsyncEngine:
    """An engine set up as the SQLite store's connections are (WAL, PRAGMAs, BEGIN IMMEDIATE
    for writes: SQLAlchemy's documented recipe), with the ingest's temporary table."""
    options: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}", pool_reset_on_return=None, **options)

    @event.listens_for(engine.sync_engine, "connect")
    def connect(dbapi: Any, _record: Any) -> None:
        dbapi.isolation_level = None  # SQLAlchemy emits BEGIN itself, below
        for pragma in ("foreign_keys = ON", "busy_timeout = 5000", "synchronous = NORMAL"):
            dbapi.execute(f"PRAGMA {pragma}")
        dbapi.execute(lite_answers.CREATE_INCOMING)

    if not autocommit:

        @event.listens_for(engine.sync_engine, "begin")
        def begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class Paths:
    """One backend's three operations through both paths."""

    def __init__(
        self, name: str, hand: SqliteStorage | PostgresStorage, engine: AsyncEngine, reads: AsyncEngine
    ) -> None:
        self.name, self.hand, self.engine, self.reads = name, hand, engine, reads
        self.read_text, self.upsert_text = named(READ), named(UPSERT)
        self.fill_text, self.insert_text = named(LITE_FILL), named(LITE_INSERT)
        self.accept_text = named(pg_answers._ACCEPT_ALL)

    async def ingest_hand(self, batch: list[NewAnswer]) -> None:
        await self.hand.store.record_answers(batch)

    async def ingest_sa(self, batch: list[NewAnswer]) -> None:
        if self.name == "SQLite":
            rows = [
                binds(seq, a.round_id, a.user_id, a.response, shared.to_db(a.answered_at), a.verdict,
                      a.fraction, a.points, a.week_key, a.month_key)
                for seq, a in enumerate(batch)
            ]  # fmt: skip
            async with self.engine.begin() as conn:
                await conn.execute(text("DELETE FROM incoming"))
                await conn.execute(self.fill_text, rows)
                inserted = (await conn.execute(self.insert_text)).rowcount
        else:  # one statement, outside a transaction, as the hand path sends it
            async with self.reads.connect() as conn:
                inserted = (
                    await conn.execute(self.accept_text, binds(*pg_answers.batch_columns(batch)))
                ).rowcount
        assert inserted == len(batch)

    async def read_hand(self, round_id: int) -> None:
        assert await self.hand.db.one(READ, round_id) is not None

    async def read_sa(self, round_id: int) -> None:
        async with self.reads.connect() as conn:
            assert (await conn.execute(self.read_text, {"p1": round_id})).first() is not None

    async def upsert_hand(self, key: str, name: str) -> None:
        async with self.hand.db.transaction() as tx:
            assert await tx.one(UPSERT, "discord", key, name) is not None

    async def upsert_sa(self, key: str, name: str) -> None:
        async with self.engine.begin() as conn:
            assert (await conn.execute(self.upsert_text, binds("discord", key, name))).first() is not None


async def timed(calls: Sequence[Callable[[], Awaitable[None]]]) -> tuple[float, float]:
    """Wall and CPU microseconds per call, the calls run one after another."""
    wall, cpu = time.perf_counter(), time.process_time()
    for call in calls:
        await call()
    return (time.perf_counter() - wall) / len(calls) * 1e6, (time.process_time() - cpu) / len(calls) * 1e6


async def measure(
    paths: Paths, round_ids: list[int], user_ids: list[int], rounds: int, batch: int
) -> list[list[str]]:
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    used = {"hand": 0, "sa": 0}  # answers stored so far through each path (each to its own database)
    for r in range(-1, rounds):  # round -1 warms both paths up (connections, prepared statements)
        for side in ("hand", "sa") if r % 2 == 0 else ("sa", "hand"):
            ingest, read, upsert = (getattr(paths, f"{op}_{side}") for op in ("ingest", "read", "upsert"))
            batches = []
            for _ in range(20):
                batches.append(answers(round_ids, user_ids, used[side], batch))
                used[side] += batch
            ops = {
                "ingest": [partial(ingest, b) for b in batches],
                "read": [partial(read, round_ids[i % ROUNDS]) for i in range(1000)],
                "upsert": [partial(upsert, f"u{i % 200}", f"name {r}.{i}") for i in range(300)],
            }
            for op, calls in ops.items():
                took = await timed(calls)
                if r >= 0:
                    results.setdefault((op, side), []).append(took)
    rows = []
    for op in ("ingest", "read", "upsert"):
        hand, sa = (
            [statistics.median(x[k] for x in results[(op, side)]) for k in (0, 1)] for side in ("hand", "sa")
        )
        label = f"{op} ({batch} answers)" if op == "ingest" else op
        rows.append([label, paths.name, f"{hand[0]:,.0f}", f"{sa[0]:,.0f}", f"{sa[0] / hand[0]:.2f}x",
                     f"{hand[1]:,.0f}", f"{sa[1]:,.0f}", f"{sa[1] / hand[1]:.2f}x"])  # fmt: skip
    return rows


async def sqlite_rows(folder: Path, rounds: int, batch: int) -> list[list[str]]:
    users = (rounds + 1) * 20 * batch // ROUNDS + 1
    hand = await SqliteStorage.open(folder / "hand.db", synchronous="NORMAL")
    side = await SqliteStorage.open(folder / "sa.db", synchronous="NORMAL")
    try:
        round_ids, user_ids = await prepare(hand, users)
        assert (round_ids, user_ids) == await prepare(side, users)  # the same ids in both files
    finally:
        await side.close()
    engine, reads = (
        sqlite_engine(folder / "sa.db", autocommit=False),
        sqlite_engine(folder / "sa.db", autocommit=True),
    )
    try:
        return await measure(Paths("SQLite", hand, engine, reads), round_ids, user_ids, rounds, batch)
    finally:
        await engine.dispose()
        await reads.dispose()
        await hand.close()


async def postgres_rows(rounds: int, batch: int) -> list[list[str]]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL binaries (initdb, pg_ctl) not found (or pass --no-postgres)")
    users = (rounds + 1) * 20 * batch // ROUNDS + 1
    server = PgServer(bin_dir).start()
    try:
        admin = await PostgresStorage.open(server.dsn())
        for name in ("hand", "sa"):
            await admin.store.pool.execute(f"CREATE DATABASE {name}")
        await admin.close()
        hand, side = (
            await PostgresStorage.open(server.dsn("hand")),
            await PostgresStorage.open(server.dsn("sa")),
        )
        try:
            round_ids, user_ids = await prepare(hand, users)
            assert (round_ids, user_ids) == await prepare(side, users)
        finally:
            await side.close()
        url = server.dsn("sa").replace("postgresql://", "postgresql+asyncpg://")
        same = {"pool_reset_on_return": None, "connect_args": {"server_settings": {"jit": "off"}}}
        engine = create_async_engine(url, **same)  # jit off, as the store's pool has it
        reads = create_async_engine(url, isolation_level="AUTOCOMMIT", **same)
        try:
            return await measure(Paths("PostgreSQL", hand, engine, reads), round_ids, user_ids, rounds, batch)
        finally:
            await engine.dispose()
            await reads.dispose()
            await hand.close()
    finally:
        server.stop()


def installed_size(distribution: str) -> str:
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return f"{distribution}: not installed"
    files = [Path(str(dist.locate_file(f))) for f in dist.files or []]
    size = sum(f.stat().st_size for f in files if f.is_file())
    return f"{distribution} {dist.version}: {size / 1e6:.1f} MB installed"


async def main_async(rounds: int, batch: int, postgres: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="studybot-sql-paths-") as folder:
        rows = await sqlite_rows(Path(folder), rounds, batch)
    if postgres:
        rows += await postgres_rows(rounds, batch)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    title = f"hand path against SQLAlchemy Core (median of {rounds} rounds; µs per operation)"
    print(title)
    print("=" * len(title))
    print(f"Python {sys.version.split()[0]}; load average at the end {load}")
    print("; ".join(installed_size(d) for d in ("SQLAlchemy", "greenlet", "aiosqlite", "asyncpg")))
    print()
    head = ["operation", "backend", "hand wall", "SA wall", "SA/hand", "hand CPU", "SA CPU", "SA/hand"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" for _ in head) + " |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of every operation; medians shown")
    parser.add_argument("--batch", type=int, default=100, help="answers in one ingest batch")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args()
    asyncio.run(main_async(args.rounds, args.batch, not args.no_postgres))


if __name__ == "__main__":
    main()
