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

This script parses the options, runs the setup and the child process per platform and prints
the table; step 1 lives in fanout_setup.py, steps 2 and 3 (the child) in fanout_child.py, the
table in fanout_table.py and the fake platform in fanout_sink.py (all in benchmarks/).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import emit as emit_report
from benchmarks._common import environment, stderr, workdir
from benchmarks.fanout_child import child, setup_logging
from benchmarks.fanout_setup import default_lead, set_dailies
from benchmarks.fanout_sink import RULES, PlatformRules
from benchmarks.fanout_table import build_report

FULL_CHATS = 10_000
QUICK_CHATS = 1_000


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
