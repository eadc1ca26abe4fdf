"""The metrics port: what the core counts for the operator (answers recorded, posts paced, 429s,
queue depths, the scheduler's role), and a default that counts nothing; and the scheduler's
status as /readyz and the metrics report it.

The core only calls these methods; the exposition (Prometheus, adapters/ops/prometheus.py) is
chosen in the composition root, so `bot/` stays free of any metrics library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class SchedulerStatus:
    """What the scheduler says about itself for /readyz and the metrics.

    `role` is "single" when this process runs every job itself (one process, the default);
    a deployment that shares due work between processes reports its own roles (e.g. "leader",
    "follower") and the lease holder. `ready` false makes the process not ready.
    """

    role: str
    holder: str | None = None
    ready: bool = True


class Metrics(Protocol):
    def answer_recorded(self, status: str) -> None:
        """An answer's transaction committed with this outcome (accepted, changed, duplicate…)."""
        ...

    def post_paced(self, platform: str) -> None:
        """The pacer let a post through to the platform."""
        ...

    def retry_later(self, platform: str) -> None:
        """The platform said to retry later (429, an outage)."""
        ...

    def queue_depth(self, queue: str, depth: int) -> None:
        """How much waits in a queue now (answers awaiting commit, posts owed)."""
        ...

    def scheduler_role(self, role: str, holder: str | None) -> None:
        """This process's scheduler role (e.g. leader, follower, claiming) and who holds the lease."""
        ...


class NoMetrics:
    """Counts nothing: the default when no metrics are exposed."""

    def answer_recorded(self, status: str) -> None:
        pass

    def post_paced(self, platform: str) -> None:
        pass

    def retry_later(self, platform: str) -> None:
        pass

    def queue_depth(self, queue: str, depth: int) -> None:
        pass

    def scheduler_role(self, role: str, holder: str | None) -> None:
        pass


NO_METRICS: Metrics = NoMetrics()
