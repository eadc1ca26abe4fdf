"""Benchmark the daily fan-out split over several bot processes on one PostgreSQL database.

Job: N chats whose dailies fall on the same second, posted into one fake platform that enforces
the platform's published limits for the bot as a whole (benchmarks/scale_sink.py: an HTTP server
in this process; every bot process posts to it), in three cases measured in the same run:

1. SQLite, 1 process: the baseline (the embedded default).
2. PostgreSQL, 2 processes: each chat's daily posted once (the firing `daily:<chat>:<date>` is
   claimed once), the platform's rate shared between the processes; target 0 lost, 0 duplicates,
   >= 90 % of the platform's rate.
3. PostgreSQL, 2 processes, one killed with SIGKILL when 30 % of the questions are out: the
   survivor takes over the chats the dead one held (their outbox leases run out) and posts the
   rest; target 0 lost, 0 duplicates; the time from the kill to the first of the dead one's
   chats posted by the survivor is printed.

Each bot process is the real composition root (studybot.bootstrap, ApsScheduler, SystemClock) in
a fresh child process. Dailies are set through the application (Dailies.set_daily) before the
children start; the PostgreSQL server is a throwaway one (tests/pg_server.py, durable: fsync on).

Usage: python benchmarks/scale_fanout.py [--platform telegram|discord] [--chats N | --quick]
                                         [--json [FILE]] [--dir DIR]
The default is 10,000 chats on Telegram's limits (30/s): about 6 minutes a case plus setup;
--quick is 1,000 chats (under a minute a case). No network.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sqlite3
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg

from benchmarks._common import bench_bank, environment, environment_lines, stderr, workdir
from benchmarks.fanout_sink import RULES, PlatformRules
from benchmarks.scale_sink import SharedPost, SharedSink, SinkPort
from bot.domain.clock import SystemClock, zone
from studybot.bootstrap import App, bootstrap
from studybot.config import Config
from tests.pg_server import PgServer, find_bin_dir

FULL_CHATS = 10_000
QUICK_CHATS = 1_000
TZ = "Asia/Shanghai"
KILL_AT = 0.30
SCRIPT = Path(__file__).resolve()
RATE_TARGET = 0.90


# ---------------------------------------------------------------- the bot processes


def config_for(data_dir: Path, dsn: str | None) -> Config:
    if dsn:
        return Config(data_dir=data_dir, database_url=dsn, default_bank="bench", language="en", timezone=TZ)
    return Config(data_dir=data_dir, default_bank="bench", language="en", timezone=TZ,
                  sqlite_synchronous="NORMAL")  # fmt: skip


async def open_app(data_dir: Path, dsn: str | None) -> App:
    bank = bench_bank(200)
    return await bootstrap(config_for(data_dir, dsn), clock=SystemClock(), rng=random.Random(),
                           banks={bank.id: bank})  # fmt: skip


async def child(args: argparse.Namespace) -> int:
    """One bot process: start, say "ready <owner>", run until SIGTERM, write its counts."""
    rules = RULES[args.platform]
    app = await open_app(Path(args.data_dir), args.dsn)
    port = SinkPort(rules, args.sink)
    app.add_port(port)
    await app.start()
    print(f"ready {app.owner}", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    result = {"owner": app.owner, "delivered": app.outbox.delivered, "failures": app.outbox.failures}
    await app.close()
    await port.close()
    write_json(Path(args.out), result)
    return 0


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


# ---------------------------------------------------------------- one case (this process)


async def set_dailies(
    data_dir: Path, dsn: str | None, rules: PlatformRules, chats: int, at: datetime
) -> float:
    app = await open_app(data_dir, dsn)
    local = at.astimezone(zone(TZ)).strftime("%H:%M:%S")
    started = time.perf_counter()
    try:
        for i in range(chats):
            view = await app.dailies.set_daily(rules.chat_ref(i), local)
            if i == 0 and view.next_post != at:
                raise RuntimeError(f"the daily would post at {view.next_post}, not {at}")
            if i and i % 2_000 == 0:
                stderr(f"    {i:,} dailies set")
    finally:
        await app.close()
    return time.perf_counter() - started


class Bot:
    def __init__(self, proc: asyncio.subprocess.Process, out: Path) -> None:
        self.proc = proc
        self.out = out
        self.owner = ""

    async def ready(self, timeout: float) -> None:
        assert self.proc.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                line = (await self.proc.stdout.readline()).decode()
                if not line:
                    raise RuntimeError(f"bot process {self.proc.pid} exited before it was ready")
                if line.startswith("ready "):
                    self.owner = line.split()[1]
                    return

    async def stop(self) -> dict[str, Any]:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(60):
            await self.proc.wait()
        return json.loads(self.out.read_text()) if self.out.exists() else {}


async def outbox_left(dsn: str | None, db: Path) -> int:
    if dsn:
        conn = await asyncpg.connect(dsn)
        try:
            return int(await conn.fetchval("SELECT count(*) FROM outbox"))
        finally:
            await conn.close()
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0])


async def claimed_by(dsn: str, owner: str) -> set[str]:
    """The chat keys whose daily the owner claimed."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT c.chat_key FROM firings f JOIN chats c ON c.id = split_part(f.key, ':', 2)::bigint "
            "WHERE f.owner = $1 AND f.key LIKE 'daily:%'",
            owner,
        )
    finally:
        await conn.close()
    return {r[0] for r in rows}


async def run_case(
    name: str, base: Path, rules: PlatformRules, chats: int, processes: int, dsn: str | None,
    kill: float | None,
) -> dict[str, Any]:  # fmt: skip
    loop = asyncio.get_running_loop()
    case_dir = base / name
    case_dir.mkdir()
    db = case_dir / "studybot.db"
    lead = 15.0 + chats * 0.008  # the setup (a few ms a chat), the processes' start, and room
    fire_at = (datetime.now(UTC) + timedelta(seconds=lead)).replace(microsecond=0)
    stderr(f"[{name}] {chats:,} chats, dailies at {fire_at:%H:%M:%S} UTC; setting them")
    setup_s = await set_dailies(case_dir, dsn, rules, chats, fire_at)
    sink = await SharedSink(rules).start()
    bots: list[Bot] = []
    for n in range(processes):
        out = case_dir / f"bot{n}.json"
        command = [sys.executable, str(SCRIPT), "--child", "--platform", rules.name,
                   "--sink", sink.url, "--out", str(out), "--data-dir", str(case_dir)]  # fmt: skip
        if dsn:
            command += ["--dsn", dsn]
        proc = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
        bots.append(Bot(proc, out))
    try:
        for bot in bots:
            await bot.ready(timeout=120)
        fire_loop = fire_at.timestamp() - (time.time() - loop.time())
        slack = fire_loop - loop.time()
        if slack <= 0.5:
            return {"name": name, "error": f"start-up overran the fire time by {-slack:.1f} s"}
        stderr(f"[{name}] setup {setup_s:.0f} s; {processes} process(es) ready; firing in {slack:.0f} s")
        budget = slack + 2 * chats / rules.per_second + 120
        kill_at, killed_after = None, 0
        if kill is not None:
            # At 30 % of the fan-out's expected time: a moment of its own, not one a post set off
            # (waking on the sink's 300th post would kill the sender mid-reply nearly every time).
            expected = chats / (rules.per_second * 0.95)
            await asyncio.sleep(max(0.0, fire_loop + kill * expected - loop.time()))
            bots[0].proc.send_signal(signal.SIGKILL)
            kill_at, killed_after = loop.time(), sink.questions
            stderr(f"[{name}] SIGKILLed process {bots[0].proc.pid} after {killed_after:,} questions")
        await sink.wait(lambda: sink.questions >= chats, budget)
        # Until nothing is owed any more, so a post sent twice would show.
        for _ in range(240):
            if await outbox_left(dsn, db) == 0:
                break
            await asyncio.sleep(0.5)
        left = await outbox_left(dsn, db)
        results = [await bot.stop() for bot in bots]
    finally:
        for bot in bots:
            if bot.proc.returncode is None:
                bot.proc.kill()
                await bot.proc.wait()
        await sink.close()

    questions = [p for p in sink.posts if p.kind == "question"]
    per_chat = Counter(p.chat_key for p in questions)
    expected = {rules.chat_ref(i).chat_key for i in range(chats)}
    last = max((p.at for p in questions), default=fire_loop)
    duration = last - fire_loop
    out: dict[str, Any] = {
        "name": name, "processes": processes, "chats": chats, "setup_s": setup_s,
        "questions": len(questions), "lost": len(expected - per_chat.keys()),
        "duplicates": sum(n - 1 for n in per_chat.values()), "strangers": len(per_chat.keys() - expected),
        "refusals": sink.refusals, "outbox_left": left, "duration_s": duration,
        "first_s": min((p.at for p in questions), default=fire_loop) - fire_loop,
        "rate_per_s": len(per_chat) / duration if duration > 0 else 0.0,
        "by_process": dict(Counter(p.pid for p in questions)), "bots": results,
    }  # fmt: skip
    out["rate_fraction"] = out["rate_per_s"] / rules.per_second
    if kill_at is not None:
        dead = bots[0].proc.pid
        assert dsn is not None
        held = await claimed_by(dsn, bots[0].owner)
        taken = [p for p in questions if p.chat_key in held and p.pid != dead]
        firsts: dict[str, SharedPost] = {}
        for p in questions:
            firsts.setdefault(p.chat_key, p)
        # A post the dead process had on the wire at the kill: the platform took it, the database
        # never heard, so the survivor sends it again (no platform send is idempotent).
        in_flight = [k for k, n in per_chat.items()
                     if n > 1 and firsts[k].pid == dead and abs(kill_at - firsts[k].at) < 0.5]  # fmt: skip
        out.update(
            killed_after=killed_after,
            duplicates_in_flight_at_kill=len(in_flight),
            dead_posts_after_kill=sum(1 for p in questions if p.pid == dead and p.at > kill_at),
            taken_over=len(taken),
            takeover_s=(min(p.at for p in taken) - kill_at) if taken else None,
            survivor_after_kill=sum(1 for p in questions if p.at > kill_at),
        )
    return out


# ---------------------------------------------------------------- the table


def table(env: dict[str, Any], platform: PlatformRules, cases: list[dict[str, Any]]) -> str:
    lines = [f"# Daily fan-out over several processes ({platform.name} limits: {platform.per_second}/s "
             "overall, one fake platform for the whole bot)", ""]  # fmt: skip
    lines += [f"- {line}" for line in environment_lines(env)]
    lines.append("")
    base = next((c for c in cases if c.get("processes") == 1 and "error" not in c), None)
    lines.append("| case | chats | first post s | last post s | questions/s | of platform rate "
                 "| vs SQLite 1 process | lost | duplicates | 429s | split by process "
                 "| takeover s |")  # fmt: skip
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        if "error" in c:
            lines.append(f"| {c['name']} | ERROR: {c['error']} |")
            continue
        ratio = f"{c['rate_per_s'] / base['rate_per_s']:.2f}x" if base else "–"
        split = " / ".join(f"{n:,}" for n in sorted(c["by_process"].values(), reverse=True))
        takeover = f"{c['takeover_s']:.1f}" if c.get("takeover_s") is not None else "–"
        lines.append(
            f"| {c['name']} | {c['chats']:,} | {c['first_s']:.1f} | {c['duration_s']:.1f} | "
            f"{c['rate_per_s']:.1f} | {c['rate_fraction']:.1%} | {ratio} | {c['lost']} | "
            f"{c['duplicates']} | {c['refusals']} | {split} | {takeover} |"
        )
    lines.append("")
    verdicts = []
    for c in cases:
        if "error" in c:
            verdicts.append(f"- {c['name']}: MISSED ({c['error']})")
            continue
        ok = c["lost"] == 0 and c["duplicates"] == 0 and c["outbox_left"] == 0
        targets = "0 lost, 0 duplicates, nothing left owed"
        if c["processes"] > 1 and "takeover_s" not in c:
            ok = ok and c["rate_fraction"] >= RATE_TARGET
            targets += f", >= {RATE_TARGET:.0%} of the platform rate"
        if "takeover_s" in c:
            ok = ok and c["taken_over"] > 0 and c["dead_posts_after_kill"] == 0
            targets += ", the dead process's chats posted by the survivor"
            if c["duplicates"]:
                lines.append(f"- of the duplicates, {c['duplicates_in_flight_at_kill']} were posts the "
                             "killed process had on the wire at the kill (accepted by the platform, not "
                             "yet committed as delivered)")  # fmt: skip
            lines.append(
                f"- killed after {c['killed_after']:,} questions; the survivor posted the other "
                f"{c['survivor_after_kill']:,}, of them {c['taken_over']:,} of the chats the dead "
                f"process had claimed, the first {c['takeover_s']:.1f} s after the kill"
            )
        verdicts.append(f"- {c['name']}: {targets}: {'target met' if ok else 'MISSED'}")
    return "\n".join(lines + verdicts)


async def run_all(args: argparse.Namespace) -> tuple[str, list[dict[str, Any]]]:
    rules = RULES[args.platform]
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL binaries (initdb, pg_ctl) not found")
    with workdir(args.dir) as base:
        env = environment(base)
        server = PgServer(bin_dir, durable=True).start()
        try:
            cases = []
            if "sqlite" in args.cases:
                cases.append(await run_case("SQLite, 1 process", base, rules, args.chats, 1, None, None))
            pg_cases = (("pg", "PostgreSQL, 2 processes", None),
                        ("kill", "PostgreSQL, 2 processes, one SIGKILLed at 30 %", KILL_AT))  # fmt: skip
            for n, (key, label, kill) in enumerate(pg_cases):
                if key not in args.cases:
                    continue
                admin = await asyncpg.connect(server.dsn())
                await admin.execute(f"CREATE DATABASE scale{n}")
                await admin.close()
                cases.append(await run_case(label, base, rules, args.chats, 2, server.dsn(f"scale{n}"), kill))
        finally:
            server.stop()
    return table(env, rules, cases), cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", choices=sorted(RULES), default="telegram")
    parser.add_argument("--chats", type=int, default=None, help=f"chats (default {FULL_CHATS:,})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_CHATS:,} chats")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE")
    parser.add_argument("--dir", default=None, help="where to create the temporary directory")
    parser.add_argument("--cases", default="sqlite,pg,kill",
                        help="which of sqlite,pg,kill to run (default all three)")  # fmt: skip
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sink", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--dsn", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        import logging

        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        return asyncio.run(child(args))
    args.chats = args.chats or (QUICK_CHATS if args.quick else FULL_CHATS)
    text, cases = asyncio.run(run_all(args))
    print(text)
    if args.json:
        data = json.dumps(cases, indent=2, default=str)
        if args.json == "-":
            print(data)
        else:
            Path(args.json).write_text(data, encoding="utf-8")
    return 0 if "MISSED" not in text else 1


if __name__ == "__main__":
    sys.exit(main())
