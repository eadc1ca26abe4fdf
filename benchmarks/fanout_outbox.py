"""What the durable outbox costs per post in the fan-out benchmark, measured in the same run.

Two numbers, both per post:

- in the fan-out: the time awaited in the outbox store's `add_post`, `next_post` and
  `post_delivered` while the dailies go out (`OutboxTimer` wraps those three bound methods on
  the app's store instance). Under load this is latency, not CPU: it includes waiting for the
  single SQLite writer behind other chats' transactions.
- the crash window in the fan-out: from the platform accepting a question (the sink's time) to
  the next `next_post` of that chat, which the outbox asks only once the delivery (and the
  question's message ref) committed. A crash inside it sends the post again at the next start
  (bot/application/outbox.py); the windows' sum over the fan-out's duration is the expected number of posts
  a SIGKILL at a random moment of the fan-out would duplicate.
- alone, after the fan-out, with the app idle: `add_post` + `next_post` + `post_delivered` of a
  daily-sized post, one post after another, against a bare baseline on a connection of its own in
  the same directory with the same pragmas (WAL, the benchmark's synchronous): one INSERT of the
  same JSON text and its COMMIT. Both are run in alternating blocks so that noise from other
  processes falls on both alike; the ratio is outbox / bare.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from adapters.storage.outbox_codec import encode
from benchmarks._common import percentile
from bot.views.quiz import Notice, notice
from studybot.bootstrap import App

TIMED = ("add_post", "next_post", "post_delivered")
BLOCKS = 5  # alternating blocks of outbox cycles and baseline commits


@dataclass
class OutboxTimer:
    """Seconds awaited in each of the outbox store's per-post calls, and how many calls."""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(TIMED, 0.0))
    calls: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TIMED, 0))
    asked: dict[int, list[float]] = field(default_factory=dict)  # chat id -> next_post times (loop)

    def install(self, app: App) -> None:
        store = app.outbox.posts
        for name in TIMED:
            setattr(store, name, self._timed(name, getattr(store, name)))

    def _timed(self, name: str, call: Any) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            if name == "next_post":
                self.asked.setdefault(args[0], []).append(asyncio.get_running_loop().time())
            started = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - started
                self.calls[name] += 1

        return timed

    def result(self) -> dict[str, Any]:
        posts = self.calls["post_delivered"]
        total = sum(self.seconds.values())
        return {
            "calls": dict(self.calls),
            "seconds": dict(self.seconds),
            "per_post_ms": total / posts * 1e3 if posts else float("nan"),
        }


def crash_windows(timer: OutboxTimer, accepted: list[tuple[int, float]], duration: float) -> dict[str, Any]:
    """Per delivered post (chat id, loop time the platform accepted it): the time until its chat's
    next `next_post`, i.e. until the delivery was committed."""
    windows = []
    for chat_id, at in accepted:
        after = [t for t in timer.asked.get(chat_id, ()) if t >= at]
        if after:
            windows.append(min(after) - at)
    return {
        "posts": len(windows),
        "p50_ms": percentile(windows, 50) * 1e3,
        "p99_ms": percentile(windows, 99) * 1e3,
        "mean_ms": sum(windows) / len(windows) * 1e3 if windows else float("nan"),
        "kill_duplicates": sum(windows) / duration if duration > 0 else float("nan"),
    }


def sample_post() -> Notice:
    return notice("contest.started", "en", count=10, seconds=30)


async def cycle_cost(app: App, scratch: Path, posts: int, synchronous: str) -> dict[str, Any]:
    """Per-post time of the outbox's add/next/delivered, alone, against a bare INSERT + COMMIT."""
    store = app.outbox.posts
    rows = await app.store.reader.execute_fetchall("SELECT min(id) FROM chats")
    chat_id = int(next(iter(rows))[0])
    view = sample_post()
    _, payload = encode(view)
    outbox: list[float] = []
    bare: list[float] = []
    per_block = max(1, posts // BLOCKS)
    async with aiosqlite.connect(scratch, isolation_level=None) as db:
        await db.execute("PRAGMA journal_mode = WAL")
        await db.execute(f"PRAGMA synchronous = {synchronous}")
        await db.execute(
            "CREATE TABLE IF NOT EXISTS baseline (id INTEGER PRIMARY KEY, chat_id INTEGER, payload TEXT,"
            " created_at TEXT)"
        )
        for _ in range(BLOCKS):
            for _ in range(per_block):
                started = time.perf_counter()
                await store.add_post(chat_id, view, None, datetime.now(UTC))
                post = await store.next_post(chat_id)
                assert post is not None
                await store.post_delivered(post.id)
                outbox.append(time.perf_counter() - started)
            for _ in range(per_block):
                started = time.perf_counter()
                await db.execute("BEGIN IMMEDIATE")
                await db.execute(
                    "INSERT INTO baseline (chat_id, payload, created_at) VALUES (?, ?, ?)",
                    (chat_id, payload, datetime.now(UTC).isoformat()),
                )
                await db.execute("COMMIT")
                bare.append(time.perf_counter() - started)
    return {
        "posts": len(outbox),
        "outbox_p50_ms": percentile(outbox, 50) * 1e3,
        "outbox_mean_ms": sum(outbox) / len(outbox) * 1e3,
        "bare_p50_ms": percentile(bare, 50) * 1e3,
        "bare_mean_ms": sum(bare) / len(bare) * 1e3,
        "ratio": percentile(outbox, 50) / percentile(bare, 50),
    }
