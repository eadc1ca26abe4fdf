"""The web app under load: 200 learners sitting the shipped paper's mock at once against one bot
process on SQLite, with the same requests sent to a bare aiohttp handler in the same process and
run as the baseline.

The bot (bootstrap, SQLite in a temporary folder, the real scheduler, the web app mounted on its
HTTP server) runs in this process with a ticker task measuring how late the event loop wakes it.
The learners run in a child process (`--client`), each with its own cookie jar: they sign in
with a Mini App initData signed with the bot's token, wait until all are signed in, then each
starts the mock, answers `--items` items (the first option), flags every fifth, reloads the
page state every fifth, opens the sheet, hands in (asked first, then confirmed) and reads the
report. The baseline phase sends the very same sequence of methods to a handler that reads the
body and answers a fixed JSON: what aiohttp and the client cost without the bot.

    python -m benchmarks.web_load [--learners 200] [--items 10] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks._common import Report, emit, environment, environment_lines, fmt_ms, percentile, stderr

TOKEN = "123456:BENCH-web-load"


# ---------------------------------------------------------------- the learners (child process)


async def learner(number: int, base: str, bare: str | None, items: int, ready: asyncio.Barrier,
                  out: list[tuple[str, float]]) -> None:  # fmt: skip
    import aiohttp

    from bot.application.web_access import sign_init_data

    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        csrf = ""

        async def call(kind: str, method: str, path: str, body: Any = None) -> dict[str, Any]:
            url = f"{bare}" if bare is not None else f"{base}{path}"
            headers = {
                "X-CSRF-Token": csrf,
                "X-Studybot": "1",
                "X-Forwarded-For": f"10.0.{number // 250}.{number % 250}",
            }
            start = time.perf_counter()
            async with session.request(method, url, json=body, headers=headers) as response:
                data = await response.json()
                if response.status >= 400 and bare is None:
                    raise RuntimeError(f"{kind}: {response.status} {data}")
            out.append((kind, time.perf_counter() - start))
            return data

        user = json.dumps({"id": 10_000 + number, "first_name": f"学员{number}", "language_code": "zh-hans"})
        init = sign_init_data({"auth_date": str(int(time.time())), "user": user}, TOKEN)
        await call("sign in", "POST", "/app/api/session", {"init_data": init})
        me = await call("me", "GET", "/app/api/me")
        csrf = me.get("csrf", "")
        await ready.wait()  # everyone starts the mock at once
        view = await call("start mock", "POST", "/app/api/mock/start")
        for step in range(items):
            mock_id, item = view.get("mock_id", 1), view.get("number", step + 1)
            if step % 5 == 4:
                await call("flag", "POST", "/app/api/mock/flag", {"item": item})
                await call("reload", "GET", "/app/api/mock")
            token = (view.get("buttons") or [["A"]])[0][0]
            view = await call("answer", "POST", "/app/api/mock/act",
                              {"act": "pick", "mock_id": mock_id, "item": item, "token": token})  # fmt: skip
        mock_id = view.get("mock_id", 1)
        await call("sheet", "POST", "/app/api/mock/act", {"act": "sheet", "mock_id": mock_id, "item": 1})
        await call("hand in", "POST", "/app/api/mock/act", {"act": "submit", "mock_id": mock_id, "item": 1})
        await call("hand in", "POST", "/app/api/mock/act", {"act": "confirm", "mock_id": mock_id, "item": 1})
        await call("report", "GET", "/app/api/mock/report")


async def client(base: str, bare: str | None, learners: int, items: int) -> None:
    out: list[tuple[str, float]] = []
    ready = asyncio.Barrier(learners)
    start = time.perf_counter()
    await asyncio.gather(*(learner(n, base, bare, items, ready, out) for n in range(learners)))
    print(json.dumps({"latencies": out, "seconds": time.perf_counter() - start}))


# ---------------------------------------------------------------- the bot (this process)


class Ticker:
    """How late the event loop wakes a 10 ms sleep: its lag while requests are served."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append(max(time.perf_counter() - start - 0.01, 0.0))

    def start(self) -> None:
        self.lags = []
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> list[float]:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
        return self.lags


async def bare_server() -> tuple[Any, str]:
    from aiohttp import web

    async def handler(request: web.Request) -> web.Response:
        if request.can_read_body:
            await request.read()
        return web.json_response(
            {"kind": "ok", "csrf": "x", "number": 1, "mock_id": 1, "buttons": [["A", "A"]]}
        )

    app = web.Application()
    app.router.add_route("*", "/bare", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/bare"


async def phase(ticker: Ticker, args: argparse.Namespace, base: str, bare: str | None) -> dict[str, Any]:
    ticker.start()
    command = [sys.executable, "-m", "benchmarks.web_load", "--client", base,
               "--learners", str(args.learners), "--items", str(args.items)]  # fmt: skip
    command += ["--bare", bare] if bare else []
    child = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    stdout, _ = await child.communicate()
    lags = await ticker.stop()
    if child.returncode != 0:
        raise SystemExit(f"the learners' process failed ({child.returncode})")
    result = json.loads(stdout)
    result["lags"] = lags
    return result


async def main_async(args: argparse.Namespace) -> Report:
    from bank.loader import load_bank
    from studybot.bootstrap import PACKAGED_BANKS, bootstrap
    from studybot.config import Config
    from studybot.ops import start_server

    folder = Path(tempfile.mkdtemp(prefix="studybot-web-load-"))
    bank = load_bank(PACKAGED_BANKS / "ai_trainer_2025.yaml")
    config = Config(data_dir=folder, default_bank=bank.id, http_port=0, http_listen="127.0.0.1",
                    web_url="http://127.0.0.1", telegram_token=TOKEN, log_level="WARNING")  # fmt: skip
    app = await bootstrap(config, rng=random.Random(1), banks={bank.id: bank})
    await app.start()
    server = await start_server(app, config, [])
    assert server is not None
    runner, bare = await bare_server()
    ticker = Ticker()
    base = f"http://127.0.0.1:{server.port}"
    try:
        stderr(f"{args.learners} learners sitting the mock ({args.items} items each) ...")
        web_run = await phase(ticker, args, base, None)
        stderr("the same requests to a bare aiohttp handler ...")
        bare_run = await phase(ticker, args, base, bare)
    finally:
        await runner.cleanup()
        await server.stop()
        await app.close()

    report = Report(f"studybot web app: {args.learners} learners in one mock at once, one process, SQLite")
    report.header = environment_lines(environment(folder))
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, seconds in web_run["latencies"]:
        by_kind[kind].append(seconds)
    every = [s for _, s in web_run["latencies"]]
    floor = [s for _, s in bare_run["latencies"]]
    report.section("per request (p50 / p99 / max)")
    for kind, values in by_kind.items():
        report.line(f"{kind} ({len(values)})", _triple(values))
    report.line(f"web app, all ({len(every)})", _triple(every))
    report.line(f"bare aiohttp, same requests ({len(floor)})", _triple(floor))
    ratio = percentile(every, 99) / percentile(floor, 99)
    report.line("p99 ratio web / bare", f"{ratio:.1f}x")
    report.section("event loop lag (a 10 ms ticker; p50 / p99 / max)")
    report.line("while the learners sit the mock", _triple(web_run["lags"]))
    report.line("while the bare handler answers", _triple(bare_run["lags"]))
    report.section("throughput")
    report.line("web app", f"{len(every) / web_run['seconds']:,.0f} requests/s ({web_run['seconds']:.1f} s)")
    report.line(
        "bare aiohttp", f"{len(floor) / bare_run['seconds']:,.0f} requests/s ({bare_run['seconds']:.1f} s)"
    )
    report.notes.append("both phases run the learners in one child process on the same machine: "
                        "its own CPU use is in both, the bot's only in the first")  # fmt: skip
    report.results = {
        name: {"requests": len(run["latencies"]), "seconds": run["seconds"],
               "p50_ms": percentile([s for _, s in run["latencies"]], 50) * 1e3,
               "p99_ms": percentile([s for _, s in run["latencies"]], 99) * 1e3,
               "lag_p99_ms": percentile(run["lags"], 99) * 1e3, "lag_max_ms": max(run["lags"]) * 1e3}
        for name, run in (("web", web_run), ("bare", bare_run))
    }  # fmt: skip
    return report


def _triple(values: list[float]) -> str:
    return " / ".join(fmt_ms(percentile(values, q)) for q in (50, 99, 100))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--json")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--bare", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        asyncio.run(client(args.client, args.bare, args.learners, args.items))
        return
    emit(asyncio.run(main_async(args)), args.json)


if __name__ == "__main__":
    main()
