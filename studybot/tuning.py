"""Process tuning applied once the app is built: garbage-collector settings for bursts of answers."""

from __future__ import annotations

import gc


def tune_gc() -> None:
    """Freeze what start-up built (banks, caches) and collect young objects less often.

    A burst of answers creates many short-lived tasks and futures; with CPython's default
    thresholds the collector runs full generations over all of them and over every long-lived
    object, which the answers benchmark measured at 25-40 % of the CPU of a burst.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
