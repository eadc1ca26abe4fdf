"""The progress chart port: what a chart shows, and who draws it. The renderer the bot runs with
is adapters/charts/chart_process.py (matplotlib in a child process): drawing is CPU work that
must not hold up the event loop."""

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
    async def render(self, data: ChartData) -> bytes:
        """A PNG, drawn off the event loop."""
        ...

    async def close(self) -> None:
        """Stop what draws (the bot is stopping)."""
        ...
