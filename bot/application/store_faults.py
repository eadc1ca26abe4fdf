"""A database fault (StoreUnavailable: a lost server; StoreFull: a full disk) met by background
work — a timer, a sweep, the outbox, a listener — is not a bug of ours and not news.

The store logs one warning when a fault begins and one line when it is over (see
adapters/storage/fault_episodes.py); everything that fails meanwhile is dropped quietly and
taken again later (the sweeps retake due work, the outbox retries what it owes). A full disk
for a minute used to log a traceback from each of them: 31 of them.

`log_failure` is for an `except Exception` block that logs what it caught; `QuietJobs` wraps the
scheduler so a timed job that meets a fault ends with a debug line instead of the scheduler's
traceback (and so does one cancelled because the bot stops).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from datetime import datetime

from bot.domain.records import DailySchedule
from bot.ports.scheduler import Action, Scheduler

# Re-exported: what a front end catches when a request meets a database fault (the web app answers 503).
from bot.ports.storage import StoreFull as StoreFull
from bot.ports.storage import StoreUnavailable as StoreUnavailable


def log_failure(log: logging.Logger, message: str, *args: object) -> None:
    """Log the exception being handled: a database fault at DEBUG (the store warned already),
    anything else at ERROR with its traceback."""
    error = sys.exc_info()[1]
    if isinstance(error, StoreUnavailable):
        log.debug(message + " (%s)", *args, error)
    else:
        log.exception(message, *args)


STOP_WAIT = 5.0  # seconds the jobs running at shutdown get to finish, before they are cancelled


class QuietJobs:
    """A Scheduler whose jobs end quietly on a database fault, and at shutdown: its jobs still
    running (a contest step posting its standings) get a moment to finish before the store is
    closed under them, and are cancelled after it without a traceback (the database says what
    is left to do, and the next start does it). All else is the wrapped scheduler's (its start,
    and anything a test reads, are reached through)."""

    def __init__(self, inner: Scheduler) -> None:
        self.inner = inner
        self._running: set[asyncio.Task[None]] = set()
        self._stopping = False

    def _quiet(self, job_id: str, action: Action) -> Action:
        log = logging.getLogger("studybot.scheduler")

        async def run() -> None:
            task = asyncio.current_task()
            if task is not None:
                self._running.add(task)
            try:
                await action()
            except StoreUnavailable as fault:
                log.debug("job %s not run: %s", job_id, fault)
            except asyncio.CancelledError:
                if not self._stopping:
                    raise
                log.debug("job %s cancelled: the bot is stopping", job_id)
            finally:
                if task is not None:
                    self._running.discard(task)

        return run

    def at(self, job_id: str, when: datetime, action: Action) -> None:
        self.inner.at(job_id, when, self._quiet(job_id, action))

    def daily(self, job_id: str, schedule: DailySchedule, action: Action, grace_seconds: float) -> None:
        self.inner.daily(job_id, schedule, self._quiet(job_id, action), grace_seconds)

    def every(self, job_id: str, seconds: float, action: Action) -> None:
        self.inner.every(job_id, seconds, self._quiet(job_id, action))

    def cancel(self, job_id: str) -> None:
        self.inner.cancel(job_id)

    def next_run(self, job_id: str) -> datetime | None:
        return self.inner.next_run(job_id)

    async def shutdown(self, wait: float = STOP_WAIT) -> None:
        """Stop the wrapped scheduler, let the running jobs finish (`wait` seconds at most),
        then cancel what still runs."""
        self._stopping = True
        shutdown = getattr(self.inner, "shutdown", None)
        if shutdown is not None:
            await shutdown()
        running = [task for task in self._running if task is not asyncio.current_task()]
        if not running:
            return
        _, pending = await asyncio.wait(running, timeout=wait)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)
