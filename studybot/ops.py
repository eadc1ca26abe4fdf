"""What the operator's HTTP endpoints report (adapters/ops/http_server.py), from the running app.

Readiness: the database answers `SELECT 1` within READY_TIMEOUT seconds, every platform adapter
is connected (Discord's gateway ready, Telegram's polling or webhook running), and the scheduler
is ready (the status hook `App.scheduler_status`, filled by whoever decides which process runs
due work; by default this process runs it all: role "single"). Metrics: the gauges read on
demand (queue depths, scheduler role) are refreshed before each scrape.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from bot.application.app import Application
from bot.application.quiz import Quiz
from bot.ports.metrics import NO_METRICS, Metrics, SchedulerStatus
from bot.ports.storage import Storage

if TYPE_CHECKING:
    from adapters.ops.http_server import OpsServer
    from bot.application.study.bank_admin import BankAdmin
    from studybot.config import Config

log = logging.getLogger("studybot.ops")

READY_TIMEOUT = 2.0  # seconds the database has to answer a readiness probe


class App(Protocol):
    """What the endpoints read of the running app (studybot/bootstrap.py's App)."""

    @property
    def storage(self) -> Storage: ...

    @property
    def quiz(self) -> Quiz: ...

    @property
    def application(self) -> Application: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def bank_admin(self) -> BankAdmin | None: ...

    @property
    def scheduler_status(self) -> Callable[[], SchedulerStatus] | None: ...

    @property
    def started(self) -> bool: ...


@runtime_checkable
class Exposition(Protocol):
    def exposition(self) -> tuple[bytes, str]: ...


def metrics_for(config: Config) -> Metrics:
    """Prometheus metrics when the HTTP endpoints are on and prometheus-client is installed."""
    if config.http_port is None:
        return NO_METRICS
    try:
        from adapters.ops.prometheus import PrometheusMetrics
    except ImportError:
        log.warning("metrics off: pip install '.[metrics]' (in the studybot clone) to serve /metrics")
        return NO_METRICS
    return PrometheusMetrics()


class Operations:
    def __init__(self, app: App, adapters: Sequence[object]) -> None:
        self.app = app
        self.adapters = adapters

    def scheduler(self) -> SchedulerStatus:
        hook = self.app.scheduler_status
        if hook is not None:
            return hook()
        return SchedulerStatus("single", None, ready=self.app.started)

    async def readiness(self) -> tuple[bool, dict[str, Any]]:
        database = await self._database()
        platforms = {str(getattr(a, "platform", "?")): _connected(a) for a in self.adapters}
        scheduler = self.scheduler()
        ready = database["ok"] and all(platforms.values()) and scheduler.ready
        return ready, {
            "database": database,
            "platforms": platforms,
            "scheduler": {"role": scheduler.role, "holder": scheduler.holder, "ready": scheduler.ready},
        }

    async def _database(self) -> dict[str, Any]:
        try:
            async with asyncio.timeout(READY_TIMEOUT):
                await self.app.storage.ping()
        except TimeoutError:
            return {"ok": False, "error": f"no answer within {READY_TIMEOUT:.0f} s"}
        except Exception as exc:  # the driver's message may hold the URL: only the kind is shown
            return {"ok": False, "error": type(exc).__name__}
        return {"ok": True}

    async def metrics(self) -> tuple[bytes, str]:
        metrics = self.app.metrics
        metrics.queue_depth("answers", self.app.quiz.answers_waiting)
        try:
            async with asyncio.timeout(READY_TIMEOUT):
                metrics.queue_depth("outbox", await self.app.storage.outbox.pending_count())
        except Exception:  # the database is down: the last depth stays, /readyz says why
            log.debug("outbox depth not read", exc_info=True)
        status = self.scheduler()
        metrics.scheduler_role(status.role, status.holder)
        if not isinstance(metrics, Exposition):
            raise RuntimeError("these metrics have no exposition")
        return metrics.exposition()


def _connected(adapter: object) -> bool:
    connected = getattr(adapter, "connected", None)
    return bool(connected()) if callable(connected) else True  # the console is there while it runs


async def start_server(app: App, config: Config, adapters: Sequence[object]) -> OpsServer | None:
    """Serve /healthz, /readyz and /metrics on config.http_port (None: not at all)."""
    if config.http_port is None:
        return None
    from adapters.ops.http_server import OpsServer

    ops = Operations(app, adapters)
    source = ops.metrics if isinstance(app.metrics, Exposition) else None
    server = OpsServer(ops.readiness, source, host=config.http_listen, port=config.http_port)
    if app.application.web is not None:  # the web app, on the same server (docs/web.md)
        from adapters.web import WebApp

        server.subapps["/app"] = WebApp(app.application, app.application.web, app.bank_admin).build()
    await server.start()
    return server
