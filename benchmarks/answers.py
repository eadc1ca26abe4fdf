"""Benchmark durable answer ingest and leaderboard latency of the quiz core over SQLite.

Job: measure, in one run on this machine, what the README promises about answers: an answer is
acknowledged only after its transaction commits, answers arriving together share a transaction
(bot/application/group_commit.py), and leaderboards are read from materialised scores. Prints a table with
the machine's facts, each measurement, its target and "target met" / "MISSED":

1. Burst ingest through Quiz.submit into SQLite (acknowledged = committed): 100,000 answers from
   10,000 users to 100 open DAILY rounds (reveal deferred, so scoring happens at close), all
   submitted at once with asyncio.gather; answers/s, submit->ack latency, CPU per answer (best of
   two runs). Side by side, each in a fresh database file with the same schema: commit-per-answer
   (the same core path with the GroupCommitter limited to max_batch=1, on a 5,000-answer sample)
   and the floor (stdlib sqlite3 executemany of the same rows in one transaction). Also the first
   answers of users the process has not seen yet, and closing the rounds (deferred scoring).
   For synchronous=FULL and NORMAL.
2. Latency at a steady open-loop offered load of 5,000 answers/s (50 every 10 ms for 10 s),
   measured from each answer's scheduled send time; FULL and NORMAL.
3. Leaderboard (top 10 + own rank) for a chat with 1,000,000 answers from 100,000 users, against
   the naive SUM(points) GROUP BY over the answers table.

Sections 1 and 2 run pinned to one CPU by default (the targets are per core; --cpus all to lift).

This script parses the options, runs the sections and prints the table; the sections live in
answers_ingest.py, answers_steady.py and answers_leaderboard.py, their shared pieces in
answers_fixtures.py (all in benchmarks/).

Usage: python benchmarks/answers.py [--quick] [--json [FILE]] [--sections ingest,steady,leaderboard]
       [--sync FULL,NORMAL] [--steady-sync FULL,NORMAL] [--cpus 1|all] [--dir TMPDIR]
Full sizes are the default (about 2.5 minutes on 2 cores); --quick takes about 20 s. No network.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import (
    Report,
    cpu_probe_ms,
    environment,
    environment_lines,
    fsync_latency_ms,
    load_average,
    workdir,
)
from benchmarks._common import emit as emit_report
from benchmarks.answers_fixtures import FULL_SIZES, QUICK_SIZES
from benchmarks.answers_ingest import ingest_section
from benchmarks.answers_leaderboard import leaderboard_section
from benchmarks.answers_steady import steady_section

# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, about 20 s (default: full sizes)")
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="also dump the results as JSON to FILE (no FILE: JSON to stdout, table to stderr)",
    )
    parser.add_argument(
        "--sync", default="FULL,NORMAL", help="synchronous modes for the ingest section (default FULL,NORMAL)"
    )
    parser.add_argument(
        "--steady-sync", default="FULL,NORMAL", help="synchronous modes for the steady-load section"
    )
    parser.add_argument(
        "--cpus",
        default="1",
        help="pin sections 1 and 2 to this many CPUs ('all' for no pinning; default 1, "
        "the targets are per core)",
    )
    parser.add_argument(
        "--sections",
        default="ingest,steady,leaderboard",
        help="which sections to run (default all: ingest,steady,leaderboard)",
    )
    parser.add_argument("--dir", default=None, help="where to create the temporary database directory")
    return parser.parse_args(argv)


def modes(text: str) -> list[str]:
    out = [m.strip().upper() for m in text.split(",") if m.strip()]
    for m in out:
        if m not in ("FULL", "NORMAL", "EXTRA", "OFF"):
            raise SystemExit(f"unknown synchronous mode {m!r}")
    return out


async def run(args: argparse.Namespace) -> Report:
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    cpus = None if args.cpus == "all" else int(args.cpus)
    sections = {s.strip() for s in args.sections.split(",")}
    report = Report(f"studybot answers benchmark ({'--quick' if args.quick else 'full sizes'})")
    began = time.perf_counter()
    with workdir(args.dir) as base:
        env = environment(base)
        report.header += environment_lines(env)
        pin_note = f"pinned to {cpus} CPU(s)" if cpus else "not pinned"
        report.header.append(
            f"sections 1-2 {pin_note} (the asyncio thread and the aiosqlite threads share them); "
            "section 3 not pinned"
        )
        report.results["environment"] = env
        report.results["sizes"] = sizes.__dict__
        if "ingest" in sections:
            for sync in modes(args.sync):
                await ingest_section(report, base, sync, sizes, cpus)
        if "steady" in sections:
            for sync in modes(args.steady_sync):
                await steady_section(report, base, sync, sizes, cpus)
        if "leaderboard" in sections:
            await leaderboard_section(report, base, sizes)
        fsync_end = fsync_latency_ms(base)
        probe_end = cpu_probe_ms()
    report.header.insert(
        4,
        f"at the end: fsync p50 {fsync_end['p50_ms']:.2f} ms, max {fsync_end['max_ms']:.2f} ms; "
        f"load average {load_average()}; Python speed probe {probe_end:.1f} ms",
    )
    report.results["end"] = {"fsync": fsync_end, "load_average": load_average(), "cpu_probe_ms": probe_end}
    wall = time.perf_counter() - began
    report.results["wall_seconds"] = wall
    report.notes += [
        "acknowledged = Quiz.submit returned, i.e. the transaction holding the answer committed.",
        "commit per answer = the same core path with its GroupCommitter limited to max_batch=1, so only "
        "the batching differs (every answer is its own BEGIN IMMEDIATE ... COMMIT); measured on a sample.",
        "floor = stdlib sqlite3.executemany of the rows group commit stored, one transaction, same schema "
        "and PRAGMAs in a fresh file; row building and grading are not timed there.",
        "burst call->ack is timed inside each task; burst start->ack includes waiting to be scheduled.",
        "users are pre-registered and known to the core (steady state); 'cold users' is the first answer of "
        "users the process has not seen since start-up.",
        "steady-load latency is measured from each answer's scheduled send time (no coordinated omission).",
        "CPU per answer counts all threads of this process (asyncio + aiosqlite); steal is the share of the "
        "machine's CPU time the hypervisor gave to other guests meanwhile (/proc/stat).",
        f"wall time {wall:.0f} s",
    ]
    return report


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = asyncio.run(run(args))
    emit_report(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
