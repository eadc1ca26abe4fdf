"""The progress chart port: what a chart shows, and who draws it. The matplotlib renderer is
adapters/charts/matplotlib_charts.py; the core calls it off the event loop (it is CPU work)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ChartData:
    """Labels are already in the reader's language (Chinese labels need a CJK font)."""

    title: str
    tag_title: str
    tags: tuple[tuple[str, float], ...]  # tag, accuracy 0..1
    activity_title: str
    activity: tuple[int, ...]  # answers per day, the last 30 days, oldest first
    forecast_title: str
    forecast: tuple[int, ...]  # cards falling due on each of the next 14 days


class ChartRenderer(Protocol):
    def render(self, data: ChartData) -> bytes:
        """A PNG. Blocking: call it through asyncio.to_thread."""
        ...
