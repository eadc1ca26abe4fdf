"""Steps 2 and 3 of the fan-out benchmark, in the fresh child process: rebuild the schedules at
start-up, then time the fan-out into the rate-limited sink and write the results as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import io
import json
import logging
import pstats
import resource
import sys
import time
import traceback
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks._common import (
    percentile,
    stderr,
)
from benchmarks.fanout_outbox import OutboxTimer, crash_windows, cycle_cost
from benchmarks.fanout_setup import SYNCHRONOUS, open_app
from benchmarks.fanout_sink import RULES, LimitedSink
from studybot.bootstrap import App

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
OUTBOX_CYCLES = 500  # posts timed alone through the outbox, and as many bare commits


# ---------------------------------------------------------------- memory


def rss_mb() -> float:
    """Current resident set size (VmRSS) in MB (10^6 bytes)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    return float("nan")


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (ru_maxrss, KiB on Linux) in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


# ---------------------------------------------------------------- steps 2 and 3 (child process)


@dataclass
class Probe:
    """Times, on the loop clock, when each chat's daily started and when its round was in the DB.

    Wraps two bound methods on the app's instances (not the classes): Dailies.post_daily (what
    a daily-time job runs for each of its chats) and Quiz.open_round (returns once the round's
    INSERT has committed and the store has read the round back).
    """

    app: App
    expected: int
    started: list[float] = field(default_factory=list)
    opened: list[float] = field(default_factory=list)
    finished: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)  # exceptions escaping post_daily
    all_finished: asyncio.Event = field(default_factory=asyncio.Event)

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        post_daily = self.app.dailies.post_daily
        open_round = self.app.quiz.open_round

        async def timed_post_daily(chat_id: int, *, late: bool = False):
            self.started.append(loop.time())
            try:
                return await post_daily(chat_id, late=late)
            except Exception as exc:
                where = traceback.extract_tb(exc.__traceback__)[-1]
                self.errors[f"{type(exc).__name__} at {Path(where.filename).name}:{where.lineno}"] += 1
                raise
            finally:
                self.finished.append(loop.time())
                if len(self.finished) >= self.expected:
                    self.all_finished.set()

        async def timed_open_round(*args, **kwargs):
            round_ = await open_round(*args, **kwargs)
            self.opened.append(loop.time())
            return round_

        self.app.dailies.post_daily = timed_post_daily  # type: ignore[method-assign]
        self.app.quiz.open_round = timed_open_round  # type: ignore[method-assign]


async def watch_loop(
    lag: list[tuple[float, float]], rss: list[tuple[float, float]], interval: float = 0.05
) -> None:
    """How late a short sleep wakes up (the event loop's responsiveness), and VmRSS every 0.5 s."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(interval)
        lag.append((before, loop.time() - before - interval))
        if len(lag) % 10 == 0:
            rss.append((loop.time(), rss_mb()))


async def report_progress(sink: LimitedSink, chats: int, every: float = 30.0) -> None:
    while True:
        await asyncio.sleep(every)
        stderr(f"  [{sink.rules.name}] {sink.questions:,}/{chats:,} questions delivered, "
               f"{len(sink.refusals)} x 429")  # fmt: skip


def relative(times: list[float], origin: float) -> dict[str, float]:
    if not times:
        return {"n": 0}
    offsets = [t - origin for t in times]
    return {
        "n": len(offsets),
        "first_s": min(offsets),
        "p50_s": percentile(offsets, 50),
        "last_s": max(offsets),
    }


async def fire_phase(args: argparse.Namespace) -> dict[str, Any]:
    rules = RULES[args.platform]
    chats = args.chats
    fire_at = datetime.fromisoformat(args.fire_at)
    loop = asyncio.get_running_loop()
    out: dict[str, Any] = {"rss_after_imports_mb": rss_mb(), "peak_after_imports_mb": peak_rss_mb()}
    profile_dir = Path(args.profile) if args.profile else None

    app = await open_app(Path(args.db))
    sink = LimitedSink(rules)
    app.add_port(sink)
    probe = Probe(app, chats)
    probe.install()
    outbox_timer = OutboxTimer()
    outbox_timer.install(app)
    gc.collect()
    out["rss_before_start_mb"] = rss_mb()

    # ---- step 2: rebuild the schedules from the database
    profiler = cProfile.Profile() if profile_dir else None
    if args.tracemalloc:
        tracemalloc.start(12)
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    await app.start()
    if profiler:
        profiler.disable()
    out["restore_s"] = time.perf_counter() - started
    out["rss_after_start_mb"] = rss_mb()
    out["peak_after_start_mb"] = peak_rss_mb()
    if args.tracemalloc:
        snapshot = tracemalloc.take_snapshot()
        tracemalloc.stop()
        out["tracemalloc_top"] = [str(s) for s in snapshot.statistics("lineno")[:25]]
        out["tracemalloc_total_mb"] = sum(s.size for s in snapshot.statistics("filename")) / 1e6
    if profiler and profile_dir:
        out["profile_restore"] = dump_profile(profiler, profile_dir / f"{rules.name}-restore.pstats")
    job_ids = app.scheduler.job_ids()  # type: ignore[attr-defined]
    daily_ids = [j for j in job_ids if j.startswith("daily:")]
    out["jobs"] = len(job_ids)
    out["daily_jobs"] = len(daily_ids)  # one per distinct daily time, not per chat
    out["daily_chats"] = app.dailies.scheduled_chats()
    out["wrong_next_run"] = sum(app.scheduler.next_run(j) != fire_at for j in daily_ids)
    fire_loop = fire_at.timestamp() - (time.time() - loop.time())
    out["slack_before_fire_s"] = fire_loop - loop.time()
    if args.restore_only:
        await app.close()
        return out
    if out["slack_before_fire_s"] <= 0.2:
        out["error"] = (
            f"the fire time passed {-out['slack_before_fire_s']:.1f} s before start-up finished; "
            "rerun with a larger --lead"
        )
        await app.close()
        return out
    stderr(f"  [{rules.name}] start() took {out['restore_s']:.2f} s for {out['daily_chats']:,} dailies "
           f"({len(daily_ids):,} scheduler jobs); "
           f"firing in {out['slack_before_fire_s']:.1f} s")  # fmt: skip

    # ---- step 3: the fan-out
    lag: list[tuple[float, float]] = []
    rss: list[tuple[float, float]] = []
    watchers = [asyncio.create_task(watch_loop(lag, rss)), asyncio.create_task(report_progress(sink, chats))]
    expected_s = chats / rules.per_second
    budget = max(60.0, 2 * expected_s + 60.0)
    fire_profiler = cProfile.Profile() if profile_dir else None
    if fire_profiler:
        fire_profiler.enable()
    # Until every chat has its question, or every job has returned or raised (nothing more can
    # come), or the budget runs out; whichever is first.
    delivered = asyncio.create_task(sink.wait_for_questions(chats, timeout=fire_loop - loop.time() + budget))
    jobs_done = asyncio.create_task(probe.all_finished.wait())
    await asyncio.wait({delivered, jobs_done}, return_when=asyncio.FIRST_COMPLETED)
    delivered_all = sink.questions >= chats
    waited_at = loop.time()
    with contextlib.suppress(TimeoutError):  # the last set_message_ref writes, before closing the store
        async with asyncio.timeout(30):
            await probe.all_finished.wait()
    if fire_profiler and profile_dir:
        fire_profiler.disable()
        out["profile_fire"] = dump_profile(fire_profiler, profile_dir / f"{rules.name}-fire.pstats")
    for task in (*watchers, delivered, jobs_done):
        task.cancel()
    out["rss_after_fanout_mb"] = rss_mb()
    out["peak_after_fanout_mb"] = peak_rss_mb()

    questions = [p for p in sink.posts if p.kind == "question"]
    delivered_keys = {p.chat_key for p in questions}
    expected_keys = {rules.chat_ref(i).chat_key for i in range(chats)}
    last = max((p.at for p in questions), default=waited_at)
    duration = last - fire_loop
    out.update(
        delivered_all=delivered_all,
        budget_s=budget,
        questions=len(questions),
        other_posts=len(sink.posts) - len(questions),
        lost=len(expected_keys - delivered_keys),
        duplicates=len(questions) - len(delivered_keys),
        strangers=len(delivered_keys - expected_keys),
        refusals=len(sink.refusals),
        refusals_global=sum(r.scope == "global" for r in sink.refusals),
        refusals_chat=sum(r.scope == "chat" for r in sink.refusals),
        first_refusal_s=(sink.refusals[0].at - fire_loop) if sink.refusals else None,
        last_refusal_s=(sink.refusals[-1].at - fire_loop) if sink.refusals else None,
        outbox_failures=app.outbox.failures,
        job_errors=dict(probe.errors),
        first_delivery_s=min((p.at for p in questions), default=waited_at) - fire_loop,
        duration_s=duration,
        rate_per_s=len(questions) / duration if duration > 0 else 0.0,
        allowed_per_s=rules.per_second,
        max_in_1s=sink.max_in_window(rules.window),
        jobs_started=relative(probe.started, fire_loop),
        rounds_opened=relative(probe.opened, fire_loop),
        jobs_finished=relative(probe.finished, fire_loop),
    )
    out["rate_fraction"] = out["rate_per_s"] / rules.per_second
    during = [d for t, d in lag if fire_loop - 1 <= t <= last]
    out["loop_lag"] = {
        "samples": len(during),
        "p50_ms": percentile(during, 50) * 1e3,
        "p99_ms": percentile(during, 99) * 1e3,
        "max_ms": max(during, default=float("nan")) * 1e3,
        "max_at_s": max(lag, key=lambda s: s[1])[0] - fire_loop if lag else None,
        "over_50ms": sum(d > 0.05 for d in during),
    }
    if rss:
        top = max(rss, key=lambda sample: sample[1])
        out["rss_peak_sampled"] = {"mb": top[1], "at_s": top[0] - fire_loop}
        out["rss_timeline"] = [(round(t - fire_loop, 1), round(mb, 1)) for t, mb in rss[::20]]
    rows = await app.store.reader.execute_fetchall(
        "SELECT count(*), count(message_ref) FROM rounds WHERE kind = 'daily'"
    )
    out["db_daily_rounds"], out["db_message_refs"] = next(iter(rows))
    rows = await app.store.reader.execute_fetchall("SELECT count(*), count(DISTINCT chat_id) FROM outbox")
    out["outbox_left"], out["outbox_left_chats"] = next(iter(rows))
    out["outbox_in_fanout"] = outbox_timer.result()
    ids = dict(await app.store.reader.execute_fetchall("SELECT chat_key, id FROM chats"))
    accepted = [(ids[p.chat_key], p.at) for p in questions if p.chat_key in ids]
    out["crash_window"] = crash_windows(outbox_timer, accepted, duration)
    out["outbox_cost"] = await cycle_cost(
        app, Path(args.db).with_name(f"{rules.name}-baseline.db"), OUTBOX_CYCLES, SYNCHRONOUS
    )
    await app.close()
    return out


def dump_profile(profiler: cProfile.Profile, path: Path) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    profiler.dump_stats(path)
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
    return text.getvalue().splitlines()


class LogTally(logging.Filter):
    """Counts WARNING+ records per logger; lets only the first few of each through to stderr."""

    def __init__(self, show: int = 2) -> None:
        super().__init__()
        self.show = show
        self.counts: Counter[str] = Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        key = f"{record.levelname} {record.name}"
        self.counts[key] += 1
        return self.counts[key] <= self.show


def setup_logging() -> LogTally:
    tally = LogTally()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(tally)
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    return tally


def child(args: argparse.Namespace) -> int:
    tally = setup_logging()
    result = asyncio.run(fire_phase(args))
    result["log_records"] = dict(tally.counts)
    Path(args.out).write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    return 0
