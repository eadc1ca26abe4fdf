"""One chart worker for the whole test session, shared by every app the harnesses build.

Each app would otherwise spawn its own worker (a process, matplotlib, the 19 MB CJK font: a
second of CPU, and many seconds at the worker's low priority on a loaded machine) and close it
again. This one is the real ChartProcess, warmed by the first App.start and kept until the
session ends (conftest closes it): the apps' `close` leaves it running.
"""

from __future__ import annotations

import asyncio

from adapters.charts.chart_process import ChartProcess


class SharedCharts(ChartProcess):
    async def close(self) -> None:
        """Left running for the next app; `shut_down` stops it at the end of the session."""

    def shut_down(self) -> None:
        asyncio.run(super().close())


_shared: SharedCharts | None = None


def shared_charts() -> SharedCharts:
    global _shared
    if _shared is None:
        _shared = SharedCharts()
    return _shared


def shut_down_shared_charts() -> None:
    global _shared
    charts, _shared = _shared, None
    if charts is not None:
        charts.shut_down()
