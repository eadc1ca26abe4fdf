"""The progress chart drawn in a child process: the ChartRenderer the bot runs with.

matplotlib holds the GIL through long stretches of its drawing (text layout, Agg), so a chart
drawn in a thread still stalls the event loop: with 20 charts at once the loop woke up to 100 ms
late (benchmarks/study.py). A separate process has its own interpreter: the loop only waits for
the PNG. One worker (spawned: no fork of a process with threads) draws the charts one after
another, at a lower priority than the bot; it is started again if it dies, and ends with the bot.

The worker is started and warmed when the bot starts (`warm`, called by App.start), not on the
first chart: spawning it, importing matplotlib and loading the 19 MB CJK font take a second of
CPU, and many seconds at the worker's low priority on a busy machine. The first /stats should
not wait for that; the warm-up runs while the bot connects, and a chart asked for meanwhile
simply queues behind it in the one worker.

What the child would say (a Python warning, a matplotlib log line such as "building the font
cache") is not printed on its stderr, which is the console's screen: it goes to the bot's own
log through a queue, where the parent's handlers (a file in console mode) take it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import logging.handlers
import multiprocessing
import multiprocessing.connection
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.queues import Queue
from typing import TYPE_CHECKING

from bot.views.charts import ChartData, ReadinessChart

if TYPE_CHECKING:
    from adapters.charts.matplotlib_charts import MatplotlibCharts

log = logging.getLogger(__name__)
_drawer: MatplotlibCharts | None = None  # in the child: one renderer, fonts loaded once


def _start_child(log_queue: Queue[logging.LogRecord]) -> None:
    """In the child: its log and warnings go to the parent's log; when the CPUs are busy, the
    bot's event loop goes before a chart; it ends when the bot does."""
    _exit_with_parent()
    root = logging.getLogger()
    root.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)


def _exit_with_parent() -> None:
    """End the worker as soon as the bot's process is gone, even killed (SIGKILL, out of
    memory): a pool worker otherwise waits forever on a queue whose other end it holds itself,
    an orphan that keeps the bot's stdout open (whoever reads it never sees it end). Its
    standard input and output are let go of at once: it writes through the log queue."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="chart-parent-watch", daemon=True).start()


class _IntoParentLog(logging.Handler):
    """A record from the child, handled by the parent's logger of the same name."""

    def emit(self, record: logging.LogRecord) -> None:
        record.msg = f"chart process: {record.getMessage()}"
        record.args = None
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def _renderer() -> MatplotlibCharts:
    global _drawer
    if _drawer is None:
        # Imported here, in the child only: matplotlib costs the bot's start-up 0.4 s otherwise.
        from adapters.charts.matplotlib_charts import MatplotlibCharts

        _drawer = MatplotlibCharts()
    return _drawer


def _draw(data: ChartData | ReadinessChart) -> bytes:
    return _renderer().render(data)


def _warm() -> int:
    """In the child: what the first chart would otherwise pay for (matplotlib, every chart font);
    the worker's process id."""
    from adapters.charts.fonts import CJK_FACES, chart_fonts

    _renderer()
    for language in CJK_FACES:
        chart_fonts(language)
    return os.getpid()


def _warmed(future: Future[int]) -> None:
    if future.cancelled() or isinstance(future.exception(), BrokenProcessPool):
        return  # cancelled, or the worker ended by close() (the bot stopping) while it warmed
    if future.exception() is not None:  # the first chart will say more
        log.warning("chart process: warming up failed: %s", future.exception())


class ChartProcess:
    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._context = multiprocessing.get_context("spawn")
        self._log: Queue[logging.LogRecord] | None = None
        self._listener: logging.handlers.QueueListener | None = None
        self._warm: Future[int] | None = None  # the warm-up of the current worker

    def warm(self) -> Future[int]:
        """Start the worker and have it load matplotlib and the fonts, without waiting for it
        (once per worker: a second call returns the same warm-up); it ends in the worker's pid."""
        if self._warm is None:
            self._warm = self._executor().submit(_warm)
            self._warm.add_done_callback(_warmed)
        return self._warm

    def _executor(self) -> ProcessPoolExecutor:
        if self._log is None:
            self._log = self._context.Queue()
            self._listener = logging.handlers.QueueListener(self._log, _IntoParentLog())
            self._listener.start()
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=self._context, initializer=_start_child, initargs=(self._log,)
            )
        return self._pool

    async def render(self, data: ChartData | ReadinessChart) -> bytes:
        loop = asyncio.get_running_loop()
        pool = self._executor()
        try:
            return await loop.run_in_executor(pool, _draw, data)
        except BrokenProcessPool:  # the worker died (killed, out of memory): once more in a new one
            self._discard(pool)
            return await loop.run_in_executor(self._executor(), _draw, data)

    def _discard(self, broken: ProcessPoolExecutor) -> None:
        """Let a broken pool go, its queues and semaphores released. Only if it is still ours: the
        charts in flight when the worker died all fail, and the second to see it would otherwise
        drop the new worker the first one started, leaving that process running unowned."""
        if self._pool is broken:
            self._pool = self._warm = None
        broken.shutdown(wait=False, cancel_futures=True)  # its worker is gone: nothing to wait for

    async def close(self) -> None:
        """End the worker now: a warm-up or a chart still running is not waited for. At the
        worker's low priority on a busy machine the warm-up takes many seconds, and Ctrl-C in
        them kept the console from exiting for as long (shutdown(wait=True) waits for it)."""
        pool, self._pool, self._warm = self._pool, None, None
        if pool is not None:
            # ProcessPoolExecutor has no public way to stop a running task (3.14 adds
            # terminate_workers()): its worker terminated first, then the pool, finding it gone,
            # fails what was pending (BrokenProcessPool) and shuts down without waiting for it.
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
        listener, self._listener = self._listener, None
        if listener is not None:  # after the child: what it said last is still logged
            await asyncio.to_thread(listener.stop)
        if self._log is not None:
            self._log.close()
            self._log = None
