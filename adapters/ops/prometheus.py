"""The metrics port (bot/ports/metrics.py) on prometheus-client (the `metrics` extra:
`pip install '.[metrics]'` in the clone).

Each instance has its own registry (tests build several in one process); `exposition()` is the
text served at /metrics.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)


class PrometheusMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        self._answers = Counter(
            "studybot_answers", "Answers whose transaction committed, by outcome.", ["status"],
            registry=self.registry,
        )  # fmt: skip
        self._paced = Counter(
            "studybot_posts_paced", "Posts the pacer let through to the platform.", ["platform"],
            registry=self.registry,
        )  # fmt: skip
        self._retry_later = Counter(
            "studybot_retry_later", "Posts the platform said to retry later (429s, outages).", ["platform"],
            registry=self.registry,
        )  # fmt: skip
        self._queues = Gauge(
            "studybot_queue_depth", "Items waiting: answers for the next group commit, posts owed.",
            ["queue"], registry=self.registry,
        )  # fmt: skip
        self._leader = Gauge(
            "studybot_scheduler_leader",
            "1 when this process runs due work (alone, holding a lease, or shared through the database).",
            registry=self.registry,
        )  # fmt: skip
        self._role = Gauge(
            "studybot_scheduler_role", "This process's scheduler role and the lease holder (value 1).",
            ["role", "holder"], registry=self.registry,
        )  # fmt: skip
        # The hot path (an answer each) skips the label lookup.
        self._by_status: dict[str, Counter] = {}

    def answer_recorded(self, status: str) -> None:
        child = self._by_status.get(status)
        if child is None:
            child = self._by_status[status] = self._answers.labels(status=status)
        child.inc()

    def post_paced(self, platform: str) -> None:
        self._paced.labels(platform=platform).inc()

    def retry_later(self, platform: str) -> None:
        self._retry_later.labels(platform=platform).inc()

    def queue_depth(self, queue: str, depth: int) -> None:
        self._queues.labels(queue=queue).set(depth)

    def scheduler_role(self, role: str, holder: str | None) -> None:
        self._role.clear()
        self._role.labels(role=role, holder=holder or "").set(1)
        self._leader.set(1 if role in ("leader", "single", "shared") else 0)

    def exposition(self) -> tuple[bytes, str]:
        """The Prometheus text format and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
