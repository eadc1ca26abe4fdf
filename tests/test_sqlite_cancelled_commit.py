"""A SQLite COMMIT cancelled while aiosqlite's thread runs it (a task cancelled at shutdown, as
bot/application/outbox.py's release is) still completes there: the transaction's clean-up must not then
fail on a ROLLBACK with nothing to undo, and the store keeps working."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from adapters.storage.sqlite.store import SqliteStore
from tests.waits import HANG


async def test_a_commit_cancelled_in_flight_is_kept_and_raises_only_the_cancellation(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "bot.db")
    try:
        in_commit, release = threading.Event(), threading.Event()

        def hold_the_commit(statement: str) -> None:  # runs in aiosqlite's thread, before the step
            if statement == "COMMIT" and not in_commit.is_set():
                in_commit.set()
                release.wait(10)

        await store.db.set_trace_callback(hold_the_commit)

        async def write() -> None:
            async with store.transaction() as db:
                await db.execute("CREATE TABLE t (x INTEGER)")
                await db.execute("INSERT INTO t VALUES (1)")

        task = asyncio.create_task(write())
        assert await asyncio.to_thread(in_commit.wait, 10)
        task.cancel()
        # Let the cancelled task reach its clean-up (it reads in_transaction, still true, and
        # queues its ROLLBACK behind the COMMIT): loop turns, not a wait for time.
        for _ in range(20):
            await asyncio.sleep(0)
        release.set()
        try:
            await asyncio.wait_for(task, HANG)
        except asyncio.CancelledError:
            pass  # the cancellation, and nothing else, reaches the caller
        assert task.cancelled()
        await store.db.set_trace_callback(None)

        assert await store.read_own("SELECT count(*) FROM t") == (1,)  # the COMMIT went through
        async with store.transaction() as db:  # and the writer is usable
            await db.execute("INSERT INTO t VALUES (2)")
        assert await store.read_own("SELECT count(*) FROM t") == (2,)
    finally:
        await store.close()
