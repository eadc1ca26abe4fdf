"""The fan-out benchmark's table: one section per platform with each measurement against its
target, plus the header and notes.
"""

from __future__ import annotations

from typing import Any

from benchmarks._common import (
    Report,
    environment_lines,
    fmt_number,
    package_version,
)
from benchmarks.fanout_setup import SYNCHRONOUS, ZONES
from benchmarks.fanout_sink import RULES, PlatformRules

# Targets from the brief.
TARGET_RESTORE_S = 2.0
TARGET_RSS_MB = 200.0
TARGET_RATE_FRACTION = 0.90


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
    jobs_due = r["daily_jobs"] - r["wrong_next_run"]
    report.line("  dailies loaded / their scheduler jobs / jobs due at the fire time",
                f"{r['daily_chats']:,} / {r['daily_jobs']:,} / {jobs_due:,}")  # fmt: skip
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
        report.line(f"dailies started ({started['n']:,}): first .. last after fire time",
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
    ok &= report.check("posts still owed in the outbox at the end (chats)", r["outbox_left"],
                       f"{r['outbox_left']:,} ({r['outbox_left_chats']:,})", at_most=0)  # fmt: skip
    errors = r.get("job_errors") or {}
    ok &= report.check("dailies that raised", sum(errors.values()), f"{sum(errors.values()):,}", at_most=0)
    for what, count in sorted(errors.items(), key=lambda e: -e[1]):
        report.line(f"  {what}", f"{count:,}")
    refs = f"{r['db_daily_rounds']:,} / {r['db_message_refs']:,}"
    report.line("  rounds in DB / with message_ref saved", refs)
    report.line("  most accepted posts in any 1 s (sink self-check)", f"{r['max_in_1s']}",
                f"(<= {rules.per_second})")  # fmt: skip
    add_outbox_cost(report, r)
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


def add_outbox_cost(report: Report, r: dict[str, Any]) -> None:
    """The outbox's cost per post: awaited during the fan-out, and alone against a bare commit."""
    fanout, alone = r["outbox_in_fanout"], r["outbox_cost"]
    calls = fanout["calls"]
    counts = f"({calls['add_post']:,} / {calls['next_post']:,} / {calls['post_delivered']:,} calls)"
    report.line("outbox per post in the fan-out: add_post + next_post + post_delivered, awaited",
                f"{fanout['per_post_ms']:.2f} ms", counts)  # fmt: skip
    report.line(f"outbox per post alone ({alone['posts']:,} posts): p50 / mean",
                f"{alone['outbox_p50_ms']:.3f} / {alone['outbox_mean_ms']:.3f} ms")  # fmt: skip
    report.line("  baseline: bare SQLite INSERT + COMMIT: p50 / mean",
                f"{alone['bare_p50_ms']:.3f} / {alone['bare_mean_ms']:.3f} ms")  # fmt: skip
    report.line("  outbox / baseline (p50)", f"{alone['ratio']:.1f}x")
    window = r["crash_window"]
    report.line("crash window per post (accepted -> delivery committed): p50 / p99",
                f"{window['p50_ms']:.2f} / {window['p99_ms']:.2f} ms")  # fmt: skip
    report.line("  posts a SIGKILL at a random moment of the fan-out would send twice",
                f"{window['kill_duplicates']:.3f}")  # fmt: skip


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
        "dailies started = Dailies.post_daily entered (one job per daily time runs it for each of "
        "its chats, 64 at a time); rounds opened = Quiz.open_round returned (committed).",
        "outbox per post in the fan-out = time awaited in the outbox store's add_post (inside the "
        "daily's unit of work), next_post and post_delivered, summed, / posts delivered: latency "
        "under load, including waits for the one SQLite writer. Alone = the three calls for one "
        "post after another with the app idle, against one INSERT of the same JSON + COMMIT on a "
        "connection of its own (same directory and pragmas), in alternating blocks. Crash window = "
        "from the sink accepting a question to its chat's next next_post (asked once the delivery "
        "committed); a crash inside it re-sends that post at the next start "
        "(bot/application/outbox.py); posts "
        "a random SIGKILL would duplicate = sum of the windows / the fan-out's duration.",
        "all targets met" if met else "some targets MISSED: see the analysis",
    ]
    report.results = {"environment": env, "chats": chats, "platforms": results, "all_met": met}
    return report
