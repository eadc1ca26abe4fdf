"""The progress chart port: who draws the charts (bot/views/charts.py says what they show)."""

from __future__ import annotations

from typing import Protocol

from bot.views.charts import ChartData, ReadinessChart


class ChartRenderer(Protocol):
    async def render(self, data: ChartData | ReadinessChart) -> bytes:
        """A PNG, drawn off the event loop."""
        ...

    async def close(self) -> None:
        """Stop what draws (the bot is stopping)."""
        ...
