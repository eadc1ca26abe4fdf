"""The progress chart drawn in a child process: the ChartRenderer the bot runs with.

matplotlib holds the GIL through long stretches of its drawing (text layout, Agg), so a chart
drawn in a thread still stalls the event loop: with 20 charts at once the loop woke up to 100 ms
late (benchmarks/study.py). A separate process has its own interpreter: the loop only waits for
the PNG. One worker, started on the first chart (spawned: no fork of a process with threads),
draws the charts one after another, at a lower priority than the bot; it is started again if it
dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from bot.study.charts import ChartData

if TYPE_CHECKING:
    from adapters.charts.matplotlib_charts import MatplotlibCharts

_drawer: MatplotlibCharts | None = None  # in the child: one renderer, fonts loaded once


def _lower_priority() -> None:
    """In the child: when the CPUs are busy, the bot's event loop goes before a chart."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)


def _draw(data: ChartData) -> bytes:
    global _drawer
    if _drawer is None:
        # Imported here, in the child only: matplotlib costs the bot's start-up 0.4 s otherwise.
        from adapters.charts.matplotlib_charts import MatplotlibCharts

        _drawer = MatplotlibCharts()
    return _drawer.render(data)


class ChartProcess:
    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority
            )
        return self._pool

    async def render(self, data: ChartData) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), _draw, data)
        except BrokenProcessPool:  # the worker died (killed, out of memory): once more in a new one
            self._pool = None
            return await loop.run_in_executor(self._executor(), _draw, data)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
