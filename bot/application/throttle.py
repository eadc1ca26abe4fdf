"""Per-user request limits (e.g. /quiz in a busy channel), on the injected clock."""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable

from bot.domain.clock import Clock


class Throttle:
    """At most `limit` events per `window` seconds per key; the oldest memory is forgotten."""

    def __init__(self, clock: Clock, limit: int, window: float, *, max_keys: int = 100_000) -> None:
        self.clock = clock
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self._events: dict[Hashable, deque[float]] = {}

    def check(self, key: Hashable) -> float:
        """Record an event for `key` and return 0, or return how many seconds until one is allowed."""
        now = self.clock.now().timestamp()
        events = self._events.get(key)
        if events is None:
            if len(self._events) >= self.max_keys:
                self._events.pop(next(iter(self._events)))
            events = self._events[key] = deque()
        while events and now - events[0] >= self.window:
            events.popleft()
        if len(events) >= self.limit:
            return events[0] + self.window - now
        events.append(now)
        return 0.0
