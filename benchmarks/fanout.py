"""Benchmark the daily-question fan-out: 10,000 chats whose dailies fall on the same second.

Job: measure, on this machine, what happens when every chat's daily is due at once, through the
real composition root (studybot.bootstrap with the real ApsScheduler, SystemClock and a SQLite
file in a temporary directory, synchronous=NORMAL) posting into an in-process fake platform
(benchmarks/fanout_sink.py) that enforces Telegram's or Discord's published rate limits and
answers 429 (RetryLater) past them. Prints a table with the machine's facts, each measurement,
its target and "target met" / "MISSED":

1. Setup: N chats, each given a daily with `dailies.set_daily(ChatRef, "HH:MM:SS", timezone=...)`,
   all at the same instant a little in the future, spread over four timezones (so the local
   times differ); timed on its own. That app is closed without ever starting its scheduler.
2. Restart: a fresh process (a subprocess of this script, so its memory is only its own) boots a
   new app on the same database and times `await app.start()`, which rebuilds N APScheduler cron
   jobs from the database (target <= 2 s); RSS with the N schedules loaded, both current (VmRSS)
   and peak (ru_maxrss), target <= 200 MB.
3. Fan-out: waits (event-driven, bounded) until the sink has accepted a question in every chat,
   then reports the time from the scheduled instant to the last delivery, the achieved rate as a
   fraction of the platform's overall limit (target >= 90 %), 429s (target 0), chats left
   without a question (must be 0), outbox.failures, and how long the N jobs took to fire and
   to open their rounds in the database.

Usage: python benchmarks/fanout.py [--platform telegram|discord|both] [--chats N | --quick]
                                   [--json [FILE]] [--lead SECONDS] [--dir DIR] [--profile DIR]
The default is both platforms with 10,000 chats each, one after the other: Telegram (30/s)
takes about 6 minutes and Discord (50/s) about 4, plus setup. --quick (1,000 chats) takes under
a minute per platform. No network.
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
import random
import resource
import subprocess
import sys
import time
import traceback
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import (
    Report,
    bench_bank,
    environment,
    environment_lines,
    fmt_number,
    package_version,
    percentile,
    stderr,
    workdir,
)
from benchmarks._common import emit as emit_report
from benchmarks.fanout_sink import RULES, LimitedSink, PlatformRules
from bot.clock import SystemClock, zone
from studybot.bootstrap import App, bootstrap
from studybot.config import Config

FULL_CHATS = 10_000
QUICK_CHATS = 1_000
# Same instant, four local times (one of them a half-hour zone); the first is the config default.
ZONES = ("Asia/Shanghai", "Europe/Berlin", "America/New_York", "Asia/Kolkata")
SYNCHRONOUS = "NORMAL"
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"

# Targets from the brief.
TARGET_RESTORE_S = 2.0
TARGET_RSS_MB = 200.0
TARGET_RATE_FRACTION = 0.90


# ---------------------------------------------------------------- fixtures


def bench_config(db: Path) -> Config:
    return Config(
        data_dir=db.parent,
        database=db,
        default_bank="bench",
        language="en",
        timezone=ZONES[0],
        sqlite_synchronous=SYNCHRONOUS,
    )


async def open_app(db: Path) -> App:
    bank = bench_bank(200)
    return await bootstrap(bench_config(db), clock=SystemClock(), rng=random.Random(7), banks={bank.id: bank})


def default_lead(chats: int) -> float:
    """Seconds from now to the fire time: the setup, a fresh process's start-up, and room.

    The setup grows with the square of the chat count (each timezone change rebuilds the core's
    chat cache: see the notes), about 75 s for 10,000 chats on a busy 2-core machine.
    """
    return 10.0 + chats * 0.005 + 0.6 * (chats / 1000) ** 2


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


# ---------------------------------------------------------------- step 1: setup (parent process)


async def set_dailies(db: Path, rules: PlatformRules, chats: int, fire_at: datetime) -> dict[str, Any]:
    app = await open_app(db)
    local = {tz: fire_at.astimezone(zone(tz)).strftime("%H:%M:%S") for tz in ZONES}
    wrong = 0
    try:
        started = time.perf_counter()
        for i in range(chats):
            tz = ZONES[i % len(ZONES)]
            view = await app.dailies.set_daily(rules.chat_ref(i), local[tz], timezone=tz)
            wrong += view.next_post != fire_at
            if i and i % 2_000 == 0:
                stderr(f"  [{rules.name}] {i:,} dailies set")
        elapsed = time.perf_counter() - started
    finally:
        await app.close()
    return {"seconds": elapsed, "per_second": chats / elapsed, "wrong_next_post": wrong, "local_times": local}


# ---------------------------------------------------------------- steps 2 and 3 (child process)


@dataclass
class Probe:
    """Times, on the loop clock, when each daily job started and when its round was in the DB.

    Wraps two bound methods on the app's instances (not the classes): Dailies.post_daily (what
    each job runs) and Quiz.open_round (returns once the round's INSERT has committed and the
    store has read the round back).
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
    out["daily_jobs"] = len(daily_ids)
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
    stderr(f"  [{rules.name}] start() took {out['restore_s']:.2f} s for {len(daily_ids):,} daily jobs; "
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


# ---------------------------------------------------------------- one platform (parent process)


def run_platform(rules: PlatformRules, chats: int, args: argparse.Namespace, base: Path) -> dict[str, Any]:
    db = base / f"{rules.name}.db"
    lead = args.lead if args.lead is not None else default_lead(chats)
    if args.restore_only:  # nothing will fire: any time safely after the setup will do
        lead = max(lead, 3600.0)
    fire_at = (datetime.now(UTC) + timedelta(seconds=lead)).replace(microsecond=0) + timedelta(seconds=1)
    stderr(f"[{rules.name}] {chats:,} chats, dailies at {fire_at.isoformat()} ({lead:.0f} s ahead)")
    setup = asyncio.run(set_dailies(db, rules, chats, fire_at))
    stderr(f"[{rules.name}] setup took {setup['seconds']:.1f} s; restarting in a fresh process")
    if setup["wrong_next_post"]:
        return {"setup": setup, "error": f"the setup ({setup['seconds']:.0f} s) overran the fire time "
                                         f"({lead:.0f} s ahead): rerun with a larger --lead"}  # fmt: skip
    out_file = base / f"{rules.name}-result.json"
    command = [
        sys.executable, str(Path(__file__).resolve()), "--child",
        "--platform", rules.name, "--chats", str(chats), "--db", str(db),
        "--fire-at", fire_at.isoformat(), "--out", str(out_file),
    ]  # fmt: skip
    if args.profile:
        command += ["--profile", args.profile]
    if args.tracemalloc:
        command.append("--tracemalloc")
    if args.restore_only:
        command.append("--restore-only")
    done = subprocess.run(command, check=False)
    if done.returncode != 0 or not out_file.exists():
        return {"setup": setup, "error": f"the restart process failed (exit {done.returncode})"}
    result = json.loads(out_file.read_text(encoding="utf-8"))
    result["setup"] = setup
    result["fire_at"] = fire_at.isoformat()
    return result


# ---------------------------------------------------------------- the table


def add_platform(report: Report, rules: PlatformRules, chats: int, r: dict[str, Any]) -> bool:
    n = fmt_number(chats)
    report.section(
        f"{rules.name}: {n} chats; limits {rules.per_second}/s overall, "
        f"{rules.per_chat} per {rules.per_chat_window:g} s per chat"
    )
    setup = r["setup"]
    report.line(f"set {n} dailies (sequential set_daily)", f"{setup['seconds']:.1f} s",
                f"({setup['per_second']:,.0f}/s)")  # fmt: skip
    if "error" in r:
        report.line("ERROR", r["error"], "", "MISSED")
        return False
    ok = True
    ok &= report.check(f"rebuild {n} schedules at start-up (app.start), s", r["restore_s"],
                       f"{r['restore_s']:.2f} s", at_most=TARGET_RESTORE_S)  # fmt: skip
    report.line("  daily jobs loaded / due at the fire time", f"{r['daily_jobs']:,} / "
                f"{r['daily_jobs'] - r['wrong_next_run']:,}")  # fmt: skip
    ok &= report.check(f"RSS with {n} schedules loaded (VmRSS), MB", r["rss_after_start_mb"],
                       f"{r['rss_after_start_mb']:.1f} MB", at_most=TARGET_RSS_MB)  # fmt: skip
    ok &= report.check("  peak RSS so far (ru_maxrss), MB", r["peak_after_start_mb"],
                       f"{r['peak_after_start_mb']:.1f} MB", at_most=TARGET_RSS_MB)  # fmt: skip
    report.line(
        "  of which: after imports / after bootstrap",
        f"{r['rss_after_imports_mb']:.1f} / {r['rss_before_start_mb']:.1f} MB",
    )
    report.line(
        "  growth from start() (the schedules)",
        f"{r['rss_after_start_mb'] - r['rss_before_start_mb']:.1f} MB",
    )
    for line in r.get("tracemalloc_top", [])[:12]:
        report.notes.append(f"tracemalloc after start(): {line}")
    if "jobs_started" not in r:  # --restore-only
        return ok
    started, opened = r["jobs_started"], r["rounds_opened"]
    if started.get("n"):
        report.line(f"jobs fired ({started['n']:,}): first .. last after fire time",
                    f"{started['first_s']:.2f} .. {started['last_s']:.2f} s")  # fmt: skip
    if opened.get("n"):
        report.line(f"rounds opened in DB ({opened['n']:,}): p50 / last",
                    f"{opened['p50_s']:.2f} / {opened['last_s']:.2f} s")  # fmt: skip
    report.line("first question delivered, after fire time", f"{r['first_delivery_s']:.2f} s")
    ideal = chats / rules.per_second
    report.line("time to deliver all (fire time -> last delivery)", f"{r['duration_s']:.1f} s",
                f"(>= {ideal:.1f} s at {rules.per_second}/s)")  # fmt: skip
    ok &= report.check(f"achieved rate, % of {rules.per_second}/s allowed", r["rate_fraction"] * 100,
                       f"{r['rate_per_s']:.2f}/s = {r['rate_fraction']:.1%}",
                       at_least=TARGET_RATE_FRACTION * 100)  # fmt: skip
    ok &= report.check("429s from the platform", r["refusals"],
                       f"{r['refusals']:,} ({r['refusals_global']} overall, {r['refusals_chat']} per chat)",
                       at_most=0)  # fmt: skip
    if r["refusals"]:
        report.line("  429s came between (after fire time)",
                    f"{r['first_refusal_s']:.1f} .. {r['last_refusal_s']:.1f} s")  # fmt: skip
    ok &= report.check("lost posts (chats without their question)", r["lost"], f"{r['lost']:,}", at_most=0)
    ok &= report.check("duplicate questions", r["duplicates"], f"{r['duplicates']:,}", at_most=0)
    ok &= report.check("outbox.failures", r["outbox_failures"], f"{r['outbox_failures']:,}", at_most=0)
    errors = r.get("job_errors") or {}
    ok &= report.check("daily jobs that raised", sum(errors.values()), f"{sum(errors.values()):,}", at_most=0)
    for what, count in sorted(errors.items(), key=lambda e: -e[1]):
        report.line(f"  {what}", f"{count:,}")
    refs = f"{r['db_daily_rounds']:,} / {r['db_message_refs']:,}"
    report.line("  rounds in DB / with message_ref saved", refs)
    report.line("  most accepted posts in any 1 s (sink self-check)", f"{r['max_in_1s']}",
                f"(<= {rules.per_second})")  # fmt: skip
    lag = r["loop_lag"]
    report.line("  event-loop lag during fan-out: p99 / max",
                f"{lag['p99_ms']:.1f} / {lag['max_ms']:.0f} ms")  # fmt: skip
    ok &= report.check("peak RSS after the fan-out (ru_maxrss), MB", r["peak_after_fanout_mb"],
                       f"{r['peak_after_fanout_mb']:.1f} MB", at_most=TARGET_RSS_MB)  # fmt: skip
    if "rss_peak_sampled" in r:
        peak = r["rss_peak_sampled"]
        report.line(
            "  highest VmRSS sample, s after fire time", f"{peak['mb']:.1f} MB at {peak['at_s']:.1f} s"
        )
    report.line("  VmRSS when all delivered", f"{r['rss_after_fanout_mb']:.1f} MB")
    return ok


def build_report(env: dict[str, Any], chats: int, results: dict[str, dict[str, Any]]) -> Report:
    report = Report(
        title=f"studybot daily fan-out: {fmt_number(chats)} chats, dailies due at the same second",
        header=[
            *environment_lines(env),
            f"APScheduler {package_version('APScheduler')} (AsyncIOScheduler, in-memory job store), "
            f"aiosqlite {package_version('aiosqlite')}; SQLite WAL, synchronous={SYNCHRONOUS}; "
            "SystemClock; real bootstrap()",
        ],
    )
    met = True
    for name, result in results.items():
        met &= add_platform(report, RULES[name], chats, result)
    report.notes += [
        "setup: one set_daily per chat, sequentially, in the parent process; chats spread over "
        + ", ".join(ZONES)
        + " (same instant, different local times); that app's scheduler never starts.",
        "restart and fan-out run in a fresh child process on the same database file, so RSS counts "
        "only that process: interpreter + imports + app + the schedules (MB = 10^6 bytes).",
        "the sink accepts at most per_second posts in any sliding 1 s and per_chat per chat window, "
        "and raises RetryLater (a 429) otherwise; refused posts do not count against the window.",
        "time to deliver is from the scheduled instant (wall clock mapped onto the loop clock) to the "
        "sink's last accepted question; the rate is deliveries / that time / the platform's per_second.",
        "jobs fired = Dailies.post_daily entered; rounds opened = Quiz.open_round returned (committed).",
        "all targets met" if met else "some targets MISSED: see the analysis",
    ]
    report.results = {"environment": env, "chats": chats, "platforms": results, "all_met": met}
    return report


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", choices=("telegram", "discord", "both"), default="both",
                        help="which platform's limits (default both, one after the other)")  # fmt: skip
    parser.add_argument("--chats", type=int, default=None, help=f"chats (default {FULL_CHATS:,})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_CHATS:,} chats")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                        help="also write the results as JSON to FILE (or stdout with no FILE)")  # fmt: skip
    parser.add_argument("--lead", type=float, default=None,
                        help="seconds from now to the fire time (default: from the chat count)")  # fmt: skip
    parser.add_argument("--dir", default=None, help="where to create the temporary database directory")
    parser.add_argument("--profile", default=None, metavar="DIR",
                        help="cProfile start() and the fan-out in the child; .pstats go to DIR")  # fmt: skip
    parser.add_argument("--restore-only", action="store_true",
                        help="steps 1 and 2 only (dailies an hour ahead; nothing fires)")  # fmt: skip
    parser.add_argument("--tracemalloc", action="store_true",
                        help="trace allocations during start() (slows it down)")  # fmt: skip
    # the child process (steps 2 and 3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--fire-at", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.chats is None:
        args.chats = QUICK_CHATS if args.quick else FULL_CHATS
    if args.chats < 1:
        parser.error("--chats must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child(args)
    setup_logging()
    names = ["telegram", "discord"] if args.platform == "both" else [args.platform]
    with workdir(args.dir) as base:
        env = environment(base)
        results = {name: run_platform(RULES[name], args.chats, args, base) for name in names}
    report = build_report(env, args.chats, results)
    emit_report(report, args.json)
    return 0 if report.results["all_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
