"""The study tools' speed targets: the /stats chart and the /review due query.

1. Chart: the progress chart (adapters/charts/matplotlib_charts.py, Chinese labels) rendered one
   after another, p50 against a bare matplotlib `savefig` of an empty figure of the same size
   (the floor any chart pays). Then 20 people send /stats at once through the application layer
   (the real use case, SQLite, the shipped bank, each with practice answers behind their chart)
   while a ticker task measures how late the event loop wakes it: the charts render in a child
   process (adapters/charts/chart_process.py), so the loop must never be held up more than 50 ms.
   The ticker's lateness on an idle loop is the baseline. For comparison, the same 20 charts
   drawn in threads (asyncio.to_thread, as the bot did before): matplotlib holds the GIL.
2. Due query: 100,000 FSRS cards for 1,000 people (100 each, due dates spread over two months),
   then the query /review runs (`due_cards`: the person's cards due now, soonest first) and the
   one it runs when none is due (`next_due`), for random people, on SQLite and on PostgreSQL (a
   throwaway server started by tests/pg_server.py). The baseline is a primary-key lookup of one
   card through the same store (`cards`), measured in the same run.

    python -m benchmarks.study [--renders 30] [--people 20] [--cards 100000] [--users 1000]
                               [--queries 2000] [--no-postgres] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks._common import (
    Report,
    environment,
    environment_lines,
    fmt_ms,
    latency_summary_ms,
    percentile,
    stderr,
    workdir,
)

CHART_P50_MS = 300.0
LOOP_LAG_MS = 50.0
DUE_P50_MS = 5.0
T0 = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)


# ---------------------------------------------------------------- 1. the chart


def chart_data() -> Any:
    """A full chart in Chinese: ten tags, thirty days of activity with its trend line, a
    fortnight's forecast, eight mock exams."""
    from bot.locales.i18n import t
    from bot.views.charts import ChartData, MockPoint, TagBar

    rng = random.Random(1)
    tags = ("机器学习", "深度学习", "注意力机制", "数据标注", "模型评估", "优化算法", "卷积网络",
            "自然语言处理", "强化学习", "数据清洗")  # fmt: skip
    bars = []
    for tag in tags:
        total = rng.randrange(1, 30)
        right = rng.randrange(0, total + 1)
        bars.append(TagBar(tag, right, total, t("zh-CN", "progress.chart_bar", pct=f"{100 * right // total}%",
                                                right=right, total=total)))  # fmt: skip
    answers = tuple(rng.randrange(0, 40) for _ in range(30))
    return ChartData(
        language="zh-CN",
        title=t("zh-CN", "progress.chart_title"),
        tag_title=t("zh-CN", "progress.chart_tags"),
        tags=tuple(sorted(bars, key=lambda bar: bar.share)),
        no_tags=t("zh-CN", "progress.chart_no_tags"),
        activity_title=t("zh-CN", "progress.chart_activity"),
        days=tuple(f"11月{d}日" for d in range(1, 31)),
        answers=answers,
        right=tuple(rng.randrange(0, n + 1) for n in answers),
        answers_legend=t("zh-CN", "progress.chart_answers"),
        accuracy_legend=t("zh-CN", "progress.chart_accuracy", days=7),
        trend_days=7,
        forecast_title=t("zh-CN", "progress.chart_forecast"),
        forecast_days=(t("zh-CN", "progress.chart_today"), *(f"12月{d}日" for d in range(2, 15))),
        forecast=tuple(rng.randrange(0, 25) for _ in range(14)),
        mock_title=t("zh-CN", "progress.chart_mocks"),
        mocks=tuple(
            MockPoint(f"11月{3 * k + 1}日", rng.random(), 0.6, f"{rng.randrange(100)}/100") for k in range(8)
        ),
        no_mocks=t("zh-CN", "progress.chart_no_mocks"),
        pass_legend=t("zh-CN", "progress.chart_pass"),
    )


def bare_savefig() -> None:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 11.2), dpi=100)  # the chart's size with ten tags
    figure.savefig(io.BytesIO(), format="png")


def timed(func: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return times


class Ticker:
    """How late the event loop wakes a task that asks to sleep `period` seconds, over and over."""

    def __init__(self, period: float = 0.002) -> None:
        self.period = period
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.period)
            self.lags.append(time.perf_counter() - start - self.period)

    def __enter__(self) -> Ticker:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def seeded_app(folder: Path, people: int) -> tuple[Any, list[Any]]:
    """The app on SQLite with the shipped bank, and `people` callers who answered 12 practice
    questions each in their private chats (some right, some wrong)."""
    from bank.loader import load_bank
    from bot.application.requests import Caller, SubmitAnswer
    from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
    from bot.views.quiz import QuestionView
    from studybot.bootstrap import PACKAGED_BANKS, bootstrap
    from studybot.config import Config

    bank = load_bank(PACKAGED_BANKS / "ai_trainer_2025.yaml")
    config = Config(data_dir=folder, default_bank=bank.id, language="zh-CN", sqlite_synchronous="NORMAL")
    app = await bootstrap(config, rng=random.Random(5), banks={bank.id: bank})
    callers = []
    for n in range(people):
        chat = ChatRef(Platform.CONSOLE, f"p{n}", ChatKind.PRIVATE, title=f"learner {n}")
        caller = Caller(chat, UserRef(Platform.CONSOLE, f"p{n}", f"learner {n}"))
        callers.append(caller)
        for k in range(12):
            view = (await app.application.run_text("/quiz single", caller)).view
            assert isinstance(view, QuestionView)
            round_ = await app.store.get_round(view.round_id)
            right = bank.question(round_.question_id).answer[0]
            response = right if k % 3 else next(c for c in "ABCD" if c != right)
            await app.quiz.submit(SubmitAnswer(view.round_id, caller.user, response))
        await app.quiz.flush()
    return app, callers


async def concurrent_stats(folder: Path, people: int) -> dict[str, Any]:
    app, callers = await seeded_app(folder, people)
    try:
        with Ticker() as idle:
            await asyncio.sleep(1.0)
        await app.application.run_text("/stats", callers[0])  # fonts and caches warm

        async def one(caller: Any) -> float:
            start = time.perf_counter()
            reply = await app.application.run_text("/stats", caller)
            assert reply.files and reply.files[0].data.startswith(b"\x89PNG"), reply
            return time.perf_counter() - start

        with Ticker() as busy:
            began = time.perf_counter()
            latencies = await asyncio.gather(*(one(c) for c in callers))
            wall = time.perf_counter() - began
        return {"idle_lags": idle.lags, "busy_lags": busy.lags, "latencies": list(latencies), "wall": wall}
    finally:
        await app.close()


async def threaded_lag(charts: Any, data: Any, people: int) -> list[float]:
    """The loop's lateness while `people` charts are drawn in threads of this process."""
    with Ticker() as ticker:
        await asyncio.gather(*(asyncio.to_thread(charts.render, data) for _ in range(people)))
    return ticker.lags


# ---------------------------------------------------------------- 2. the due query


async def seed_cards(storage: Any, users: int, cards: int) -> list[int]:
    from bot.domain.kinds import Platform, UserRef
    from bot.domain.study_records import Card

    store = storage.store
    user_ids: list[int] = []
    for start in range(0, users, 1000):
        chunk = range(start, min(users, start + 1000))
        refs = [UserRef(Platform.CONSOLE, f"u{u}", f"user {u}") for u in chunk]
        user_ids += await store.ensure_users(refs)
    per_user = cards // users
    rng = random.Random(11)
    batch: list[Card] = []
    for user_id in user_ids:
        for q in range(per_user):
            due = T0 + timedelta(minutes=rng.randrange(-30 * 24 * 60, 30 * 24 * 60))
            last = due - timedelta(days=3)
            batch.append(Card(user_id, "bank", f"q-{q}", 2, None, 5.0, 5.0, due, last, 3, 0))
            if len(batch) >= 10_000:
                await storage.study.save_study([], batch, [])
                batch = []
    if batch:
        await storage.study.save_study([], batch, [])
    return user_ids


async def timed_async(
    call: Callable[[int], Awaitable[object]], user_ids: list[int], runs: int
) -> list[float]:
    rng = random.Random(3)
    times = []
    for _ in range(runs):
        user_id = rng.choice(user_ids)
        start = time.perf_counter()
        await call(user_id)
        times.append(time.perf_counter() - start)
    return times


async def due_queries(storage: Any, users: int, cards: int, runs: int) -> dict[str, list[float]]:
    seeded = time.perf_counter()
    user_ids = await seed_cards(storage, users, cards)
    stderr(f"  {cards:,} cards for {users:,} people seeded in {time.perf_counter() - seeded:.1f} s")
    study = storage.study
    calls: dict[str, Callable[[int], Awaitable[object]]] = {
        "baseline": lambda u: study.cards([(u, "bank", "q-7")]),
        "due_cards": lambda u: study.due_cards(u, "bank", T0, 200),
        "next_due": lambda u: study.next_due(u, "bank"),
    }
    for call in calls.values():  # warm: statements prepared, pages cached
        await timed_async(call, user_ids, 200)
    found = await study.due_cards(user_ids[0], "bank", T0, 200)
    assert 0 < len(found) < cards // users, len(found)  # about half of one person's cards are due
    # Interleaved, so that a slow moment of the machine hurts every query alike.
    results: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(10):
        for name, call in calls.items():
            results[name] += await timed_async(call, user_ids, runs // 10)
    return results


async def due_on_sqlite(folder: Path, users: int, cards: int, runs: int) -> dict[str, list[float]]:
    from adapters.storage.backends import SqliteStorage

    storage = await SqliteStorage.open(folder / "due.db", synchronous="NORMAL")
    try:
        return await due_queries(storage, users, cards, runs)
    finally:
        await storage.close()


async def due_on_postgres(users: int, cards: int, runs: int) -> dict[str, list[float]] | None:
    from adapters.storage.backends import PostgresStorage
    from tests.pg_server import PgServer, find_bin_dir

    bin_dir = find_bin_dir()
    if bin_dir is None:
        stderr("PostgreSQL binaries (initdb, pg_ctl) not found: PostgreSQL skipped")
        return None
    server = PgServer(bin_dir).start()
    try:
        storage = await PostgresStorage.open(server.dsn())
        try:
            return await due_queries(storage, users, cards, runs)
        finally:
            await storage.close()
    finally:
        server.stop()


# ---------------------------------------------------------------- the table


def ratio(value: float, base: float) -> str:
    return f"{value / base:,.1f}x" if base > 0 else "-"


async def main_async(args: argparse.Namespace) -> Report:
    report = Report("studybot study tools: /stats chart and /review due query")
    with workdir(args.workdir) as folder:
        env = environment(folder)
        report.header = environment_lines(env)
        report.results["environment"] = env

        stderr(f"chart: {args.renders} renders one after another ...")
        from adapters.charts.fonts import chart_fonts
        from adapters.charts.matplotlib_charts import MatplotlibCharts

        charts, data = MatplotlibCharts(), chart_data()
        charts.render(data)
        bare_savefig()  # warm: fonts loaded, caches filled
        base = timed(bare_savefig, args.renders)
        render = timed(lambda: charts.render(data), args.renders)
        base_p50, render_p50 = percentile(base, 50), percentile(render, 50)
        fonts = " + ".join(chart_fonts("zh-CN").families)
        report.section(f"/stats chart (matplotlib Agg, fonts {fonts}, 800x1120 px, ten tags)")
        report.line("baseline: bare savefig of an empty figure, p50", fmt_ms(base_p50))
        report.check(
            "progress chart render, p50",
            render_p50 * 1e3,
            f"{fmt_ms(render_p50)} ({ratio(render_p50, base_p50)})",
            at_most=CHART_P50_MS,
        )
        report.line("progress chart render, max", fmt_ms(max(render)))

        stderr(f"chart: {args.people} people send /stats at once ...")
        run = await concurrent_stats(folder, args.people)
        idle_max, busy_max = max(run["idle_lags"]), max(run["busy_lags"])
        report.line("baseline: event loop lag, idle loop, max", fmt_ms(idle_max))
        report.check(
            f"event loop lag while {args.people} /stats render, max",
            busy_max * 1e3,
            f"{fmt_ms(busy_max)} ({ratio(busy_max, idle_max)})",
            at_most=LOOP_LAG_MS,
        )
        threaded = await threaded_lag(charts, data, args.people)
        report.line(
            f"  the same {args.people} charts drawn in threads instead, max lag",
            f"{fmt_ms(max(threaded))} ({ratio(max(threaded), idle_max)})",
        )
        latency = latency_summary_ms(run["latencies"])
        report.line(
            f"/stats reply, {args.people} at once: p50 / max",
            f"{latency['p50_ms']:,.0f} / {latency['max_ms']:,.0f} ms",
        )
        report.results["chart"] = {
            "bare_savefig": latency_summary_ms(base),
            "render": latency_summary_ms(render),
            "loop_lag_idle": latency_summary_ms(run["idle_lags"]),
            "loop_lag_busy": latency_summary_ms(run["busy_lags"]),
            "loop_lag_threads": latency_summary_ms(threaded),
            "stats_replies": latency,
        }

        backends: list[tuple[str, Callable[[], Awaitable[dict[str, list[float]] | None]]]] = [
            ("SQLite", lambda: due_on_sqlite(folder, args.users, args.cards, args.queries)),
        ]
        if not args.no_postgres:
            backends.append(("PostgreSQL", lambda: due_on_postgres(args.users, args.cards, args.queries)))
        for name, measure in backends:
            stderr(f"due query on {name} ...")
            results = await measure()
            if results is None:
                report.section(f"/review due query, {name}: not measured (no server binaries)")
                continue
            report.section(f"/review due query, {name}: {args.cards:,} cards, {args.users:,} people")
            base_p50 = percentile(results["baseline"], 50)
            report.line("baseline: one card by primary key, p50", fmt_ms(base_p50))
            queries = (("due_cards", "cards due now (/review)"), ("next_due", "next due (none due)"))
            for query, label in queries:
                p50, p99 = percentile(results[query], 50), percentile(results[query], 99)
                report.check(
                    f"{label}, p50", p50 * 1e3, f"{fmt_ms(p50)} ({ratio(p50, base_p50)})", at_most=DUE_P50_MS
                )
                report.line(f"{label}, p99", fmt_ms(p99))
            report.results[f"due_{name.lower()}"] = {k: latency_summary_ms(v) for k, v in results.items()}
    report.notes += [
        "ratios are against the baseline line above them, measured in the same run",
        f"each query line: {args.queries:,} calls for random people, interleaved with the baseline",
    ]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=30)
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--workdir", default=None, help="where the temporary database goes")
    parser.add_argument("--json", default=None, help="also write the results as JSON ('-': stdout)")
    args = parser.parse_args()
    from benchmarks._common import emit

    emit(asyncio.run(main_async(args)), args.json)


if __name__ == "__main__":
    sys.exit(main())
