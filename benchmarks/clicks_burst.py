"""What one burst of clicks measured, and the open-loop schedule that sends them.

A click is timed from the moment the fake platform made it (Telegram: the update queued for
getUpdates; Discord: INTERACTION_CREATE sent on the gateway) to the moment the fake received the
bot's answer (answerCallbackQuery; the interaction callback), both on this process's clock.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks._common import percentile

LATE_S = 3.0  # Discord drops an interaction not answered within 3 s; a toast that late is lost too


@dataclass
class Burst:
    platform: str
    bot: str  # studybot | floor
    hogs: int
    clicks: int
    latencies: list[float] = field(default_factory=list)  # seconds, answered clicks only
    unanswered: int = 0  # never answered, or refused by the fake as too late
    refused_answers: int = 0  # second answers to one click (the fake refuses them)
    bot_cpu_s: float = math.nan
    send_span_s: float = math.nan  # first click to last click sent
    stored: tuple[int, int] | None = None  # (answers, distinct users) in the bot's database
    error: str | None = None

    @property
    def late(self) -> int:
        """Clicks not answered within 3 s (unanswered ones included)."""
        return sum(1 for s in self.latencies if s > LATE_S) + self.unanswered

    def p(self, q: float) -> float:
        """Percentile over all clicks, an unanswered one counting as answered never (inf)."""
        return percentile(self.latencies + [math.inf] * self.unanswered, q)

    @property
    def max(self) -> float:
        return math.inf if self.unanswered or not self.latencies else max(self.latencies)

    @property
    def cpu_per_click_s(self) -> float:
        return self.bot_cpu_s / self.clicks

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("latencies")
        ms = sorted(s * 1e3 for s in self.latencies)
        out.update(p50_ms=percentile(ms, 50), p99_ms=percentile(ms, 99), max_ms=ms[-1] if ms else None,
                   late=self.late, cpu_per_click_ms=self.cpu_per_click_s * 1e3)  # fmt: skip
        return out


async def send_open_loop(count: int, seconds: float, send: Callable[[int], Awaitable[None] | None]) -> float:
    """Call send(i) for i in range(count) at evenly spaced times over `seconds`, whether or not
    earlier clicks were answered (a coroutine is started as a task); returns the span taken."""
    start = time.perf_counter()
    tasks = []
    for i in range(count):
        delay = start + i * seconds / count - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        result = send(i)
        if result is not None:
            tasks.append(asyncio.ensure_future(result))
    if tasks:
        await asyncio.gather(*tasks)
    return time.perf_counter() - start


def pooled(bursts: list[Burst]) -> Burst:
    """Repeated runs of one configuration as one: all their clicks, CPU time and checks together."""
    first = bursts[0]
    out = Burst(first.platform, first.bot, first.hogs, sum(b.clicks for b in bursts))
    out.bot_cpu_s = sum(b.bot_cpu_s for b in bursts)
    out.send_span_s = max(b.send_span_s for b in bursts)
    for burst in bursts:
        out.latencies += burst.latencies
        out.unanswered += burst.unanswered
        out.refused_answers += burst.refused_answers
        out.error = out.error or burst.error
    if all(b.stored is not None for b in bursts):
        out.stored = (sum(b.stored[0] for b in bursts), sum(b.stored[1] for b in bursts))  # type: ignore[index]
    return out
