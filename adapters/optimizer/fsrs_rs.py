"""FSRS's parameters fitted with fsrs-rs-python (the Rust optimizer that Anki itself uses,
1.6 MB, no dependencies: docs/fsrs.md compares it with `fsrs[optimizer]`, which pulls torch).

The fit holds the GIL (a thread ticking every millisecond ran 2 ticks during a 40 ms fit), so
it runs in a child process, one worker started on the first fit (spawned: no fork of a process
with threads) and at a lower priority than the bot; the event loop only waits for the result.
The worker is started again if it dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

log = logging.getLogger("studybot.study")

Cards = Sequence[Sequence[tuple[int, int]]]  # per card: (rating 1–4, days since its previous review)


def available() -> bool:
    """Whether fsrs-rs-python is installed (found without importing it)."""
    return importlib.util.find_spec("fsrs_rs_python") is not None


def fit_parameters(cards: Cards) -> tuple[float, ...]:
    """FSRS's parameters fitted on these cards (in the calling process). Each card with n
    reviews gives the optimizer its n - 1 prefixes of two or more reviews: each predicts its last
    review from the ones before it."""
    import fsrs_rs_python as rs  # imported where it runs: the bot's own process never loads it

    items = []
    for reviews in cards:
        days = [max(0, int(d)) for _, d in reviews]
        steps = [rs.FSRSReview(int(r), d) for (r, _), d in zip(reviews, days, strict=True)]
        # The optimizer panics on an item whose reviews all fall on one day (nothing long-term to
        # learn from): only prefixes with a review a day or more after another are given.
        items += [rs.FSRSItem(steps[: k + 1]) for k in range(1, len(steps)) if any(days[1 : k + 1])]
    if not items:
        raise ValueError("no card was reviewed a day or more after an earlier review: nothing to fit")
    try:
        fitted = rs.FSRS(rs.DEFAULT_PARAMETERS).compute_parameters(items)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic is a BaseException (pyo3's PanicException)
        raise ValueError(f"the FSRS optimizer failed: {exc}") from None
    return tuple(float(w) for w in fitted)


def _start_child() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)  # when the CPUs are busy, the bot's event loop goes before a fit


class FsrsRsOptimizer:
    """The Optimizer port on fsrs-rs-python in a child process."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._context = multiprocessing.get_context("spawn")

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=self._context, initializer=_start_child
            )
        return self._pool

    async def fit(self, cards: Cards) -> tuple[float, ...]:
        plain = [[(int(r), int(d)) for r, d in card] for card in cards]
        loop = asyncio.get_running_loop()
        pool = self._executor()
        try:
            return await loop.run_in_executor(pool, fit_parameters, plain)
        except BrokenProcessPool:  # the worker died (killed, out of memory): once more in a new one
            if self._pool is pool:  # not a new worker another fit already started (see ChartProcess)
                self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)  # its queues released; no worker to wait for
            return await loop.run_in_executor(self._executor(), fit_parameters, plain)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)


def load_optimizer() -> FsrsRsOptimizer | None:
    """The optimizer when fsrs-rs-python is installed, else None (every learner keeps FSRS's
    defaults; bot/application/study/memory_fit.py says so once in the log)."""
    return FsrsRsOptimizer() if available() else None
