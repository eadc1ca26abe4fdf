"""What every section of the answers benchmark shares: sizes, targets, and a store and core with
users registered and rounds open (benchmarks/answers.py runs the sections).
"""

from __future__ import annotations

import random
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adapters.storage.sqlite.store import SqliteStore
from benchmarks._common import (
    LETTERS,
    bench_bank,
    fmt_ms,
)
from bot.application.quiz import CoreSettings, Quiz
from bot.domain.clock import ManualClock
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind, UserRef
from studybot.tuning import tune_gc

START = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)  # a Wednesday, 09:00 in Shanghai
TIMEZONE = "Asia/Shanghai"
PLATFORM = Platform.TELEGRAM

# Targets from the brief.
TARGET_INGEST_PER_S = 20_000
TARGET_GROUP_VS_SINGLE = 10.0
TARGET_STEADY_P99_MS = 25.0
TARGET_LEADERBOARD_MEDIAN_MS = 5.0


@dataclass(frozen=True)
class Sizes:
    burst_answers: int
    burst_users: int
    rounds: int
    chats: int
    single_sample_full: int  # commit-per-answer sample at synchronous=FULL
    single_sample_normal: int
    cold_users: int
    steady_rate: int  # answers/s offered
    steady_seconds: float
    steady_tick: float
    board_answers: int
    board_users: int
    board_rounds: int
    board_lookups: int
    naive_repeats: int
    repeats: int  # group-commit bursts per synchronous mode (best one reported, all in JSON)


FULL_SIZES = Sizes(
    burst_answers=100_000, burst_users=10_000, rounds=100, chats=10,
    single_sample_full=5_000, single_sample_normal=5_000, cold_users=1_000,
    steady_rate=5_000, steady_seconds=10.0, steady_tick=0.010,
    board_answers=1_000_000, board_users=100_000, board_rounds=1_000, board_lookups=200,
    naive_repeats=3, repeats=2,
)  # fmt: skip
QUICK_SIZES = Sizes(
    burst_answers=20_000, burst_users=2_000, rounds=100, chats=10,
    single_sample_full=1_000, single_sample_normal=1_000, cold_users=300,
    steady_rate=5_000, steady_seconds=3.0, steady_tick=0.010,
    board_answers=100_000, board_users=10_000, board_rounds=100, board_lookups=50,
    naive_repeats=3, repeats=1,
)  # fmt: skip


# ---------------------------------------------------------------- fixtures


def settings() -> CoreSettings:
    return CoreSettings(default_bank="bench", timezone=TIMEZONE, language="en")


def chat_ref(n: int) -> ChatRef:
    return ChatRef(PLATFORM, f"-100{n}", ChatKind.GROUP, title=f"bench chat {n}")


def user_ref(n: int) -> UserRef:
    return UserRef(PLATFORM, str(n), f"user {n}")


@dataclass
class Ingest:
    """An open store and core with users registered and rounds open, ready to take answers."""

    store: SqliteStore
    quiz: Quiz
    clock: ManualClock
    round_ids: list[int]
    users: list[UserRef]
    transactions: list[float]  # seconds each store.record_answers call took, in order


async def open_ingest(path: Path, sync: str, n_users: int, n_rounds: int, n_chats: int) -> Ingest:
    store = await SqliteStore.open(path, synchronous=sync)
    transactions = time_record_answers(store)
    clock = ManualClock(START)
    bank = bench_bank()
    quiz = Quiz(store, {bank.id: bank}, settings(), clock, random.Random(1))
    users = [user_ref(n) for n in range(1, n_users + 1)]
    await register_users(store, quiz, users)
    round_ids = []
    per_chat = n_rounds // n_chats
    for c in range(n_chats):
        chat = await quiz.chat(chat_ref(c))
        for d in range(per_chat):
            question = bank.questions[(c * per_chat + d) % len(bank.questions)]
            round_ = await quiz.open_round(
                chat,
                question,
                RoundKind.DAILY,
                clock.now(),
                clock.now() + timedelta(hours=12),
                daily_date=(START.date() + timedelta(days=d)).isoformat(),
            )
            round_ids.append(round_.id)
    clock.advance(60)  # answers arrive a minute after the rounds opened
    tune_gc()  # as `studybot run` does once the app is built
    return Ingest(store, quiz, clock, round_ids, users, transactions)


def time_record_answers(store: SqliteStore) -> list[float]:
    """Wrap this store's record_answers (before the Quiz binds it) to time every transaction.

    The time runs from the call to its return: the write lock, the aiosqlite thread hops, the SQL
    and the COMMIT (with its fsync at synchronous=FULL). It tells database stalls apart from
    event-loop stalls when a latency target is missed.
    """
    spans: list[float] = []
    original = store.record_answers

    async def record_answers(batch):
        start = time.perf_counter()
        try:
            return await original(batch)
        finally:
            spans.append(time.perf_counter() - start)

    store.record_answers = record_answers  # type: ignore[method-assign]
    return spans


async def register_users(store: SqliteStore, quiz: Quiz, users: list[UserRef]) -> None:
    """Users the process already knows: rows in `users` and entries in the core's user cache.

    This is the steady state of a running bot (each user's first answer since start-up costs one
    ensure_user transaction of its own; the "cold users" line measures that separately). The rows
    are bulk-inserted and the core's user cache (QuizCache.users) is filled directly, since
    registering 10,000 users one transaction at a time would take longer than the benchmark itself.
    """
    cache = getattr(getattr(quiz, "_cache", None), "users", None)
    if not isinstance(cache, dict):
        raise RuntimeError("the core's user cache is gone: update register_users() in this benchmark")
    conn = sqlite3.connect(store.path, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO users (platform, user_key, display_name) VALUES (?, ?, ?)",
            [(str(u.platform), u.user_key, u.display_name) for u in users],
        )
        conn.execute("COMMIT")
        ids = dict(conn.execute("SELECT user_key, id FROM users WHERE platform = ?", (str(PLATFORM),)))
    finally:
        conn.close()
    for ref in users:
        cache[(str(ref.platform), ref.user_key)] = (ids[ref.user_key], ref.display_name)


Work = tuple[int, int, str]  # (round id, index into the user list, letter answered)


def make_work(round_ids: list[int], n_users: int, total: int, rng: random.Random) -> list[Work]:
    """`total` answers, each user answering total/n_users distinct rounds, in random order.

    Plain tuples (which the garbage collector stops tracking): the SubmitAnswer is built in the task
    that submits it, as an adapter builds it from a platform event, so the benchmark does not keep
    100,000 extra tracked objects alive for the collector to walk.
    """
    per_user = total // n_users
    if per_user > len(round_ids):
        raise ValueError("more answers per user than rounds")
    n_rounds = len(round_ids)
    work = [
        (round_ids[(u * per_user + j) % n_rounds], u, LETTERS[rng.randrange(4)])
        for u in range(n_users)
        for j in range(per_user)
    ]
    rng.shuffle(work)
    return work


def pct(share: float | None) -> str:
    return "?" if share is None else f"{share:.1%}"


def ms(milliseconds: float) -> str:
    return fmt_ms(milliseconds / 1e3)
