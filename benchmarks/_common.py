"""Shared helpers for the benchmark scripts: machine facts, percentiles, the result table, pinning.

Every benchmark prints the same header (core count, Python, SQLite, where the files live and how
long an fsync takes there) and the same kind of table: one line per measurement with its value,
the target and "target met" / "MISSED", so results from different machines read alike. The same
results can be dumped as JSON for comparing runs.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import platform
import resource
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from bot.domain.questions import Bank, Question, QuestionType

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- machine facts


def affinity() -> set[int] | None:
    """The CPUs this process may run on (None where the OS cannot say)."""
    getter = getattr(os, "sched_getaffinity", None)
    return set(getter(0)) if getter else None


def filesystem_of(path: str | Path) -> str:
    """The filesystem type holding `path` (from /proc/mounts), '?' where unknown."""
    target = os.path.realpath(path)
    best, kind = "", "?"
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                parts = line.split()
                if len(parts) < 3:
                    continue
                mount_point = parts[1]
                inside = target == mount_point or target.startswith(mount_point.rstrip("/") + "/")
                if inside and len(mount_point) >= len(best):
                    best, kind = mount_point, parts[2]
    except OSError:
        pass
    return kind


def fsync_latency_ms(directory: str | Path, samples: int = 30) -> dict[str, float]:
    """Median and max of append-4KiB-then-fsync on `directory`: what one durable commit costs at least."""
    path = Path(directory) / "fsync-probe"
    times = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for _ in range(samples):
            os.write(fd, b"\0" * 4096)
            start = time.perf_counter()
            os.fsync(fd)
            times.append(time.perf_counter() - start)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return {"p50_ms": percentile(times, 50) * 1e3, "max_ms": max(times) * 1e3}


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def environment(workdir: str | Path) -> dict[str, Any]:
    cpus = affinity()
    return {
        "os_cpu_count": os.cpu_count(),
        "sched_getaffinity": len(cpus) if cpus is not None else None,
        "python": platform.python_version(),
        "python_impl": platform.python_implementation(),
        "sqlite": sqlite3.sqlite_version,
        "aiosqlite": package_version("aiosqlite"),
        "platform": platform.platform(),
        "workdir": str(workdir),
        "filesystem": filesystem_of(workdir),
        "fsync": fsync_latency_ms(workdir),
        "load_average": load_average(),
        "cpu_probe_ms": cpu_probe_ms(),
    }


def environment_lines(env: dict[str, Any]) -> list[str]:
    fsync = env["fsync"]
    return [
        f"cores: os.cpu_count()={env['os_cpu_count']}, "
        f"len(os.sched_getaffinity(0))={env['sched_getaffinity']}",
        f"Python {env['python']} ({env['python_impl']}), SQLite {env['sqlite']}, "
        f"aiosqlite {env['aiosqlite']}, {env['platform']}",
        f"load average at start (1/5/15 min): {env['load_average']}; Python speed probe "
        f"{env['cpu_probe_ms']:.1f} ms (lower is faster; other processes and guests slow every number)",
        f"database files in {env['workdir']} ({env['filesystem']}); "
        f"fsync of 4 KiB there: p50 {fsync['p50_ms']:.2f} ms, max {fsync['max_ms']:.2f} ms",
    ]


@contextlib.contextmanager
def workdir(base: str | None) -> Iterator[Path]:
    """A fresh temporary directory on disk (not :memory:), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="studybot-bench-", dir=base) as name:
        yield Path(name)


@contextlib.contextmanager
def pinned(cpus: int | None) -> Iterator[set[int] | None]:
    """Run the block on the first `cpus` CPUs (None: leave as is).

    Linux affinity is per thread and inherited by threads started later, so pin *before* opening
    connections whose worker threads should share the restriction (aiosqlite starts one per
    connection).
    """
    before = affinity()
    if cpus is None or before is None or cpus >= len(before):
        yield before
        return
    chosen = set(sorted(before)[:cpus])
    os.sched_setaffinity(0, chosen)
    try:
        yield chosen
    finally:
        os.sched_setaffinity(0, before)


def cpu_probe_ms(rounds: int = 5) -> float:
    """Best time of a fixed pure-Python loop: how fast this (virtual) CPU runs Python right now."""
    best = math.inf
    for _ in range(rounds):
        start = time.perf_counter()
        total = 0
        for i in range(300_000):
            total += i * i % 7
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def cpu_times() -> list[int] | None:
    """The aggregate `cpu` line of /proc/stat (user nice system idle iowait irq softirq steal ...)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    return [int(f) for f in fields[1:]] if fields and fields[0] == "cpu" else None


def steal_share(before: list[int] | None, after: list[int] | None) -> float | None:
    """Share of all CPUs' time the hypervisor gave to other guests between two cpu_times()."""
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after[:8]) - sum(before[:8])
    return (after[7] - before[7]) / total if total > 0 else None


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "?"
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


@dataclass
class Usage:
    """What a measured block cost: wall time, CPU time of all threads (user and system), context
    switches (involuntary ones mean another thread or process took the CPU), garbage collections."""

    wall_s: float
    user_s: float
    sys_s: float
    voluntary_switches: int
    involuntary_switches: int
    gc_collections: tuple[int, ...]
    steal: float | None = None  # share of the machine's CPU time stolen by the hypervisor

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s

    @property
    def cpu_share(self) -> float:
        """CPU time over wall time: near 1.0 on one pinned core means the core was ours."""
        return self.cpu_s / self.wall_s if self.wall_s else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cpu_s": self.cpu_s, "cpu_share": self.cpu_share}


class Meter:
    """`with Meter() as m: ...` then m.usage."""

    usage: Usage

    def __enter__(self) -> Meter:
        self._gc = [s["collections"] for s in gc.get_stats()]
        self._ru = resource.getrusage(resource.RUSAGE_SELF)
        self._stat = cpu_times()
        self._wall = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self._wall
        ru = resource.getrusage(resource.RUSAGE_SELF)
        collections = tuple(s["collections"] - b for s, b in zip(gc.get_stats(), self._gc, strict=True))
        self.usage = Usage(
            wall,
            ru.ru_utime - self._ru.ru_utime,
            ru.ru_stime - self._ru.ru_stime,
            ru.ru_nvcsw - self._ru.ru_nvcsw,
            ru.ru_nivcsw - self._ru.ru_nivcsw,
            collections,
            steal_share(self._stat, cpu_times()),
        )


# ---------------------------------------------------------------- statistics


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of unsorted `values`; nan if empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def latency_summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "n": len(ordered),
        "p50_ms": percentile(ordered, 50) * 1e3,
        "p90_ms": percentile(ordered, 90) * 1e3,
        "p99_ms": percentile(ordered, 99) * 1e3,
        "max_ms": (ordered[-1] if ordered else math.nan) * 1e3,
        "mean_ms": (sum(ordered) / len(ordered) if ordered else math.nan) * 1e3,
    }


# ---------------------------------------------------------------- the table


@dataclass
class Row:
    label: str
    value: str = ""
    target: str = ""
    verdict: str = ""
    heading: bool = False


@dataclass
class Report:
    """The printed table plus the raw numbers behind it (for --json)."""

    title: str
    header: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)

    def section(self, title: str) -> None:
        self.rows.append(Row(title, heading=True))

    def line(self, label: str, value: str, target: str = "", verdict: str = "") -> None:
        self.rows.append(Row(label, value, target, verdict))

    def check(self, label: str, value: float, shown: str, *, at_least=None, at_most=None) -> bool:
        """A line with a target; returns whether it was met."""
        if at_least is not None:
            met = value >= at_least
            target = f">= {fmt_number(at_least)}"
        else:
            met = value <= at_most
            target = f"<= {fmt_number(at_most)}"
        self.line(label, shown, target, "target met" if met else "MISSED")
        return met

    def render(self) -> str:
        body = [r for r in self.rows if not r.heading]
        w_label = max([len(r.label) for r in body] + [10]) + 2
        w_value = max([len(r.value) for r in body] + [5])
        w_target = max([len(r.target) for r in body] + [6])
        out = [self.title, "=" * len(self.title), *self.header, ""]
        heading = f"  {'measurement'.ljust(w_label)}{'result'.rjust(w_value)}   {'target'.ljust(w_target)}"
        out.append(heading)
        for row in self.rows:
            if row.heading:
                out += ["", row.label, "-" * len(row.label)]
                continue
            line = f"  {row.label.ljust(w_label)}{row.value.rjust(w_value)}   {row.target.ljust(w_target)}  "
            out.append((line + row.verdict).rstrip())
        if self.notes:
            out += ["", "notes:"]
            out += [f"  - {note}" for note in self.notes]
        return "\n".join(out)

    def to_json(self) -> str:
        return json.dumps(
            {
                "title": self.title,
                "header": self.header,
                "table": [asdict(r) for r in self.rows],
                "notes": self.notes,
                "results": self.results,
            },
            indent=2,
            default=str,
        )


def fmt_number(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}"


def fmt_rate(per_second: float) -> str:
    return f"{per_second:,.0f}/s"


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.2f} ms" if ms < 10 else f"{ms:,.1f} ms" if ms < 1000 else f"{ms:,.0f} ms"


def emit(report: Report, json_target: str | None) -> None:
    """Table to stdout; with --json, JSON to the file (or to stdout, the table then going to stderr)."""
    table = report.render()
    if json_target == "-":
        print(table, file=sys.stderr)
        print(report.to_json())
        return
    print(table)
    if json_target:
        Path(json_target).write_text(report.to_json() + "\n", encoding="utf-8")
        print(f"\nresults written to {json_target}")


def stderr(message: str) -> None:
    """Progress lines (kept off stdout so the table and JSON stay clean)."""
    print(message, file=sys.stderr, flush=True)


LETTERS = "ABCD"


def bench_bank(size: int = 100) -> Bank:
    """Single-choice questions only, built in code, so every answer is graded by letter."""
    questions = tuple(
        Question(
            id=f"q-{n}",
            number=n,
            type=QuestionType.SINGLE,
            stem=f"Question {n}: which option is right?",
            answer=(LETTERS[n % 4],),
            points=1.0,
            options=tuple((letter, f"option {letter} of question {n}") for letter in LETTERS),
            explanation="Because it is.",
            tags=("bench",),
        )
        for n in range(1, size + 1)
    )
    return Bank(id="bench", title="Benchmark bank", language="en", source="benchmarks", questions=questions)
