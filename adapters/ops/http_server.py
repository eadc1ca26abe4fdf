"""The operator's HTTP endpoints, on aiohttp: /healthz (liveness), /readyz (readiness), /metrics.

/healthz answers from the event loop itself, so a reply means the process and its loop run.
/readyz runs the readiness check it is given (database, platforms, scheduler) and answers 200
when every part is ready, else 503, with the details as JSON. /metrics serves what the metrics
source renders (Prometheus text), or 404 when metrics are not installed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

log = logging.getLogger("studybot.ops")

Readiness = Callable[[], Awaitable[tuple[bool, dict[str, Any]]]]
MetricsSource = Callable[[], Awaitable[tuple[bytes, str]]]


class OpsServer:
    def __init__(
        self, readiness: Readiness, metrics: MetricsSource | None, *, host: str = "0.0.0.0", port: int = 8080
    ) -> None:
        self.readiness = readiness
        self.metrics = metrics
        self.host = host
        self.port = port
        self._started = time.monotonic()
        self._runner: web.AppRunner | None = None
        self.subapps: dict[str, web.Application] = {}  # prefix -> app (the web app under /app)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/metrics", self._metrics)
        for prefix, sub in self.subapps.items():
            app.router.add_get(prefix, _to_folder)  # /app, typed without its slash: /app/
            app.add_subapp(prefix, sub)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        sockets = [s for s in (runner.addresses or [])]
        if self.port == 0 and sockets:  # any free port: say which one
            self.port = int(sockets[0][1])
        log.info("health, readiness and metrics on http://%s:%d", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def _healthz(self, request: web.Request) -> web.Response:
        return _json(200, {"status": "ok", "uptime_s": round(time.monotonic() - self._started, 1)})

    async def _readyz(self, request: web.Request) -> web.Response:
        try:
            ready, checks = await self.readiness()
        except Exception as exc:  # a broken check must say so, not hang or 500
            log.exception("readiness check failed")
            ready, checks = False, {"error": type(exc).__name__}
        return _json(200 if ready else 503, {"status": "ready" if ready else "not ready", **checks})

    async def _metrics(self, request: web.Request) -> web.Response:
        if self.metrics is None:
            text = "metrics need the extra: pip install '.[metrics]' in the studybot clone\n"
            return web.Response(status=404, text=text)
        body, content_type = await self.metrics()
        response = web.Response(status=200, body=body)
        response.headers["Content-Type"] = content_type
        return response


def _json(status: int, payload: dict[str, Any]) -> web.Response:
    return web.Response(status=status, text=json.dumps(payload, ensure_ascii=False) + "\n",
                        content_type="application/json")  # fmt: skip


async def _to_folder(request: web.Request) -> web.Response:
    raise web.HTTPPermanentRedirect(request.path + "/")
