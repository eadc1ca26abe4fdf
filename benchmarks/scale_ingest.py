"""Durable answer ingest across processes: PostgreSQL with 1, 2 and 4 processes against SQLite
with 1, in one run (issue 12: PostgreSQL with 2 processes >= SQLite with 1).

Each process is a child of this script with its own storage backend (its own asyncpg pool, or
its own SQLite connections) and its own GroupCommitter over `record_answers`, as each
`studybot run` process has: every answer is counted only when the transaction holding it has
committed. Durable on both sides: SQLite with synchronous=FULL in WAL mode, PostgreSQL with
fsync and synchronous_commit on (its own server, started here by tests/pg_server.py in a
temporary folder on the same disk). The answers (rounds, users, the work list) are the ones of
benchmarks/pg_ingest.py; the parent prepares a fresh database per row, splits the answers among
the children, starts them together and reports the summed rate: all answers over the time from
the first child's start to the last child's last acknowledgement.

Two shapes, as pg_ingest: a burst (each child submits its share at once) and a steady crowd
(C clients in all, split among the children, each sending its next answer once the last was
acknowledged).

Every row is measured --repeats times, the rows taking turns, and the best round of each is
shown (the machine's other load moves single runs a lot).

    python -m benchmarks.scale_ingest [--answers 20000] [--clients 200] [--processes 1,2,4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.storage.backends import PostgresStorage, SqliteStorage, open_storage
from benchmarks._common import ROOT, cpu_times, environment, environment_lines, stderr
from benchmarks.pg_ingest import burst, crowd, prepare, work
from bot.application.group_commit import GroupCommitter
from bot.domain.records import AnswerOutcome, NewAnswer
from tests.pg_server import PgServer, find_bin_dir

SHAPES = ("burst", "crowd")
TARGET_PROCESSES = 2  # PostgreSQL with this many processes must reach SQLite with one


# ---------------------------------------------------------------- the child (one bot process)


async def child_main(spec: dict[str, Any], index: int, count: int) -> None:
    storage = await open_storage(spec["url"], spec["path"], synchronous="FULL")
    try:
        answers, clients = spec["answers"], spec["clients"]
        every = work(spec["round_ids"], spec["user_ids"], 2 * answers)
        shares = {"burst": every[:answers][index::count], "crowd": every[answers:][index::count]}
        committer: GroupCommitter[NewAnswer, AnswerOutcome] = GroupCommitter(storage.store.record_answers)
        mine = max(1, clients // count)
        for shape in SHAPES:
            await _line("ready")
            batch = shares[shape]
            began, cpu = time.time(), _cpu_seconds()
            if shape == "burst":
                await burst(committer.submit, batch)
            else:
                await crowd(committer.submit, batch, mine)
            ended, cpu = time.time(), _cpu_seconds() - cpu
            result = {"answers": len(batch), "began": began, "ended": ended, "batches": committer.batches,
                      "cpu": cpu}  # fmt: skip
            print("RESULT " + json.dumps(result), flush=True)
        await _line("done")  # the parent reads the server's CPU before the backends exit
    finally:
        await storage.close()


def _cpu_seconds() -> float:
    """CPU time of this process, every thread (aiosqlite's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _line(word: str) -> None:
    """Say `word`, then wait for the parent's go (one line on stdin)."""
    print(word.upper(), flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if line.strip() != "go":
        raise SystemExit("the parent went away")


# ---------------------------------------------------------------- the parent


@dataclass
class Row:
    backend: str
    processes: int
    rates: dict[str, float]  # shape -> answers/s summed over the processes
    transactions: dict[str, int]
    cpu_us: dict[str, float]  # CPU microseconds an answer: the processes and the database server
    others: dict[str, float]  # cores other programs kept busy meanwhile


def server_cpu(server: PgServer) -> Callable[[], float]:
    """CPU seconds used so far by the PostgreSQL server: its postmaster and every backend."""
    tick = os.sysconf("SC_CLK_TCK")

    def seconds() -> float:
        postmaster = (server.data / "postmaster.pid").read_text().split()[0]
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                pid = stat.parent.name
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if pid == postmaster or fields[1] == postmaster:  # fields[1]: the parent's pid
                total += int(fields[11]) + int(fields[12])
        return total / tick

    return seconds


def busy_cores_seconds() -> float:
    """CPU seconds the whole machine has spent busy (every core, every program) since boot."""
    times = cpu_times() or [0] * 8
    return (sum(times[:8]) - times[3] - times[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


async def _expect(proc: asyncio.subprocess.Process, prefix: str) -> str:
    assert proc.stdout is not None
    while True:
        raw = await proc.stdout.readline()
        if not raw:
            raise RuntimeError(f"a child exited (code {await proc.wait()}) before saying {prefix}")
        line = raw.decode().strip()
        if line.startswith(prefix):
            return line[len(prefix) :].strip()


async def run_row(
    backend: str,
    processes: int,
    spec: dict[str, Any],
    folder: Path,
    server: Callable[[], float] | None = None,  # the database server's CPU seconds so far
) -> Row:
    spec_path = folder / f"spec-{backend}-{processes}.json"
    spec_path.write_text(json.dumps(spec))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "benchmarks.scale_ingest", "--child", str(spec_path)]
    pipes = {"stdin": asyncio.subprocess.PIPE, "stdout": asyncio.subprocess.PIPE}
    procs = [
        await asyncio.create_subprocess_exec(*command, str(i), str(processes), env=env, cwd=ROOT, **pipes)
        for i in range(processes)
    ]
    rates: dict[str, float] = {}
    transactions: dict[str, int] = {}
    cpu_us: dict[str, float] = {}
    others: dict[str, float] = {}
    try:
        done_batches = [0] * processes
        for shape in SHAPES:
            await asyncio.gather(*(_expect(p, "READY") for p in procs))
            server_before, busy_before = server() if server else 0.0, busy_cores_seconds()
            for p in procs:
                assert p.stdin is not None
                p.stdin.write(b"go\n")
            results = [json.loads(r) for r in await asyncio.gather(*(_expect(p, "RESULT") for p in procs))]
            database_cpu = (server() if server else 0.0) - server_before
            busy = busy_cores_seconds() - busy_before
            total = sum(r["answers"] for r in results)
            seconds = max(r["ended"] for r in results) - min(r["began"] for r in results)
            ours = sum(r["cpu"] for r in results) + database_cpu
            cpu_us[shape] = ours / total * 1e6
            others[shape] = max(0.0, busy - ours) / seconds
            rates[shape] = total / seconds
            transactions[shape] = sum(r["batches"] for r in results) - sum(done_batches)
            done_batches = [r["batches"] for r in results]
        await asyncio.gather(*(_expect(p, "DONE") for p in procs))
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(b"go\n")
        for p in procs:
            if await p.wait() != 0:
                raise RuntimeError(f"a {backend} child failed")
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
    return Row(backend, processes, rates, transactions, cpu_us, others)


async def fresh_spec(
    storage: SqliteStorage | PostgresStorage, url: str | None, path: str, answers: int, clients: int
) -> dict[str, Any]:
    round_ids, user_ids = await prepare(storage, 2 * answers // 20 + 1)
    return {"url": url, "path": path, "answers": answers, "clients": clients,
            "round_ids": round_ids, "user_ids": user_ids}  # fmt: skip


async def main_async(answers: int, clients: int, counts: list[int], repeats: int) -> None:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL binaries (initdb, pg_ctl) not found")
    best: dict[tuple[str, int], Row] = {}
    with tempfile.TemporaryDirectory(prefix="studybot-scale-") as name:
        folder = Path(name)
        header = environment_lines(environment(folder))
        server = PgServer(bin_dir, durable=True).start()
        try:
            admin = await PostgresStorage.open(server.dsn())
            try:
                # Rounds of every row in turn, so that a busy moment of the machine hits all alike.
                for attempt in range(repeats):
                    stderr(f"round {attempt + 1} of {repeats}: SQLite, 1 process ...")
                    db = folder / f"bench-{attempt}.db"
                    sqlite = await SqliteStorage.open(db, synchronous="FULL")
                    try:
                        spec = await fresh_spec(sqlite, None, str(db), answers, clients)
                    finally:
                        await sqlite.close()
                    keep(best, await run_row("SQLite", 1, spec, folder))
                    for n in counts:
                        stderr(f"round {attempt + 1} of {repeats}: PostgreSQL, {n} processes ...")
                        database = f"bench_{n}_{attempt}"
                        await admin.store.pool.execute(f"CREATE DATABASE {database}")
                        url = server.dsn(database)
                        postgres = await PostgresStorage.open(url)
                        try:
                            spec = await fresh_spec(postgres, url, "", answers, clients)
                        finally:
                            await postgres.close()
                        keep(best, await run_row("PostgreSQL", n, spec, folder, server_cpu(server)))
            finally:
                await admin.close()
        finally:
            server.stop()
    print_table(list(best.values()), answers, clients, header, repeats)


def keep(best: dict[tuple[str, int], Row], row: Row) -> None:
    """The best rate of each shape over the rounds (each with the transactions it took)."""
    known = best.setdefault((row.backend, row.processes), row)
    for shape in SHAPES:
        if row.rates[shape] > known.rates[shape]:
            known.rates[shape] = row.rates[shape]
            known.transactions[shape] = row.transactions[shape]
            known.cpu_us[shape] = row.cpu_us[shape]
            known.others[shape] = row.others[shape]


def print_table(rows: list[Row], answers: int, clients: int, header: list[str], repeats: int) -> None:
    title = f"durable answer ingest by process count, acknowledged after commit ({answers:,} answers a shape)"
    print(title)
    print("=" * len(title))
    for line in header:
        print(line)
    print()
    base = rows[0]
    shapes = {"burst": "burst", "crowd": f"crowd of {clients} clients"}
    columns = f"{'answers/s':>12}{'txns':>8}{'CPU/answer':>12}{'others':>8}{'vs SQLite-1':>13}"
    print(f"  {'backend, processes':<26}{'shape':<24}{columns}   target")
    for row in rows:
        for shape in SHAPES:
            ratio = row.rates[shape] / base.rates[shape]
            target = ""
            if row.backend == "PostgreSQL" and row.processes == TARGET_PROCESSES:
                target = ">= 1.00x  " + ("target met" if ratio >= 1.0 else "MISSED")
            label = f"{row.backend}, {row.processes}"
            cpu = f"{row.cpu_us[shape]:>9.1f} us{row.others[shape]:>8.1f}"
            print(f"  {label:<26}{shapes[shape]:<24}{row.rates[shape]:>12,.0f}{row.transactions[shape]:>8,}"
                  f"{cpu}{math.floor(ratio * 100) / 100:>12.2f}x   {target}".rstrip())  # fmt: skip
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print()
    print(f"notes: best of {repeats} rounds per row, the rows taking turns; every process and the")
    print(f"PostgreSQL server share this machine's {cores} cores; SQLite-1 is measured in the same run,")
    print("through the same child process code, on the same disk. CPU/answer: CPU time of the bot")
    print("processes and the PostgreSQL server over the answers; others: cores other programs kept")
    print("busy meanwhile (a loaded machine gives the extra processes little to run on). Ratios are")
    print("rounded down.")
    busy = [f"{r.backend}-{r.processes} {shape}" for r in rows for shape in SHAPES if r.others[shape] > 0.5]
    if busy:
        print(f"warning: other programs kept over half a core busy during: {', '.join(busy)}; rerun")
        print("on a quieter machine before drawing conclusions from those rows.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20000)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--processes", default="1,2,4", help="PostgreSQL process counts, e.g. 1,2,4")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of every row; the best is shown")
    parser.add_argument("--child", nargs=3, metavar=("SPEC", "INDEX", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        spec, index, count = args.child
        asyncio.run(child_main(json.loads(Path(spec).read_text()), int(index), int(count)))
        return
    counts = [int(n) for n in args.processes.split(",")]
    asyncio.run(main_async(args.answers, args.clients, counts, args.repeats))


if __name__ == "__main__":
    main()
