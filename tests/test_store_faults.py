"""A database fault as one episode in the log (adapters/storage/fault_episodes.py), and timed
jobs that meet one ending quietly (bot/application/store_faults.py). The real processes on a full disk are
in tests/test_disk_full.py."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import pytest

from adapters.storage.fault_episodes import SETTLE_SECONDS, FaultEpisodes
from bot.application.store_faults import QuietJobs, log_failure
from bot.ports.storage import StoreFull, StoreUnavailable


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def storage_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "studybot.storage"]


def test_a_fault_is_one_warning_and_its_end_one_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    clock = Clock()
    episodes = FaultEpisodes(clock)
    full = StoreFull("database or disk is full [SQLITE_FULL]")
    episodes.succeeded()  # nothing to end
    for _ in range(31):  # every command, click, heartbeat and timer of a minute
        episodes.failed(full)
        clock.now += 2
        episodes.succeeded()  # a small write that still fits: not over yet
    assert episodes.in_fault
    clock.now += SETTLE_SECONDS
    episodes.succeeded()
    episodes.succeeded()
    assert not episodes.in_fault
    lines = storage_lines(caplog)
    assert lines == [
        (logging.WARNING, "database: cannot write (database or disk is full [SQLITE_FULL]); commands and "
                          "answers are refused, and the person told, until space is freed"),
        (logging.INFO, "database: writing again after 72 s (31 operations refused meanwhile)"),
    ]  # fmt: skip
    assert all(r.exc_info is None for r in caplog.records)

    episodes.failed(StoreUnavailable("the PostgreSQL server cannot be reached: ConnectionResetError"))
    assert storage_lines(caplog)[-1] == (
        logging.WARNING,
        "database: the PostgreSQL server cannot be reached: ConnectionResetError; commands and answers "
        "are refused, and the person told, until it is back",
    )


def test_log_failure_keeps_the_traceback_of_a_bug_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger("studybot.test")
    try:
        raise StoreFull("database or disk is full")
    except Exception:
        log_failure(log, "chat %s: daily not posted", 7)
    try:
        raise KeyError("a bug")
    except Exception:
        log_failure(log, "chat %s: daily not posted", 8)
    fault, bug = caplog.records
    assert (fault.levelno, fault.getMessage(), fault.exc_info) == (
        logging.DEBUG, "chat 7: daily not posted (database or disk is full)", None,
    )  # fmt: skip
    assert bug.levelno == logging.ERROR and bug.exc_info is not None


class Jobs:
    """A scheduler that runs its jobs in tasks of their own, as APScheduler does."""

    def __init__(self) -> None:
        self.actions: dict[str, object] = {}
        self.stopped = False

    def at(self, job_id: str, when: datetime, action) -> None:
        self.actions[job_id] = action

    def every(self, job_id: str, seconds: float, action) -> None:
        self.actions[job_id] = action

    def cancel(self, job_id: str) -> None:
        self.actions.pop(job_id, None)

    def next_run(self, job_id: str) -> datetime | None:
        return None

    async def shutdown(self) -> None:
        self.stopped = True

    def run(self, job_id: str) -> asyncio.Task[None]:
        return asyncio.create_task(self.actions[job_id]())  # type: ignore[operator]


async def test_jobs_end_quietly_on_a_fault_and_at_shutdown(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    inner = Jobs()
    jobs = QuietJobs(inner)  # type: ignore[arg-type]
    now = datetime.now(UTC)

    async def full() -> None:
        raise StoreFull("database or disk is full")

    async def bug() -> None:
        raise KeyError("a bug")

    finished = asyncio.Event()
    release = asyncio.Event()

    async def posting() -> None:  # a contest step still posting when the bot stops
        await release.wait()
        finished.set()

    async def stuck() -> None:
        await asyncio.Event().wait()

    jobs.at("contest:1", now, full)
    jobs.every("cluster:beat", 3, bug)
    await inner.run("contest:1")  # no exception: ended quietly
    with pytest.raises(KeyError):
        await inner.run("cluster:beat")
    assert jobs.next_run("x") is None and inner.stopped is False

    jobs.at("contest:2", now, posting)
    jobs.at("contest:3", now, stuck)
    posting_task, stuck_task = inner.run("contest:2"), inner.run("contest:3")
    await asyncio.sleep(0)
    stopping = asyncio.create_task(jobs.shutdown(wait=0.5))
    await asyncio.sleep(0)
    release.set()
    await stopping
    assert inner.stopped and finished.is_set()  # the running job was let finish
    assert posting_task.done() and stuck_task.done() and not stuck_task.cancelled()  # ended quietly
    assert all(r.levelno == logging.DEBUG for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_the_console_log_file_on_a_full_disk_drops_lines_without_a_traceback(capsys) -> None:
    """/dev/full refuses every write with ENOSPC, as a full disk does."""
    from pathlib import Path

    from adapters.console.logs import LogFile

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    handler = LogFile("/dev/full", encoding="utf-8")
    try:
        record = logging.LogRecord("studybot", logging.WARNING, __file__, 1, "a line", None, None)
        for _ in range(31):
            handler.handle(record)
    finally:
        handler.close()
    printed = capsys.readouterr()
    assert "Logging error" not in printed.err and "Traceback" not in printed.err
