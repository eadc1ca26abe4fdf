"""Benchmark button clicks under a burst: how fast every click in one group gets its answer.

Job: measure, in one run on this machine, the promise that a click is answered at once even when
a whole group clicks together. For Telegram and Discord, the real bot (`python -m studybot run`,
its own process, with python-telegram-bot or discord.py) talks to the fake platform of
tests/fakes/ running in this process. A member asks for a single-choice question in a group,
then N members (default 500) each press one answer button, evenly spread over one second and
sent whether or not earlier clicks were answered (open loop). Prints, per platform:

- p50 / p99 / max click-to-answer: from the fake making the click (Telegram: the update queued
  for getUpdates; Discord: INTERACTION_CREATE sent) to the fake receiving the answer
  (answerCallbackQuery; the interaction callback);
- the clicks answered past 3 s (Discord refuses those; a Telegram toast that late is as good as lost);
- the bot process's CPU time (all threads, /proc) per click;
- that every click was answered exactly once and every answer stored once per user.

Baseline, measured in the same run against the same fake: the bare library (benchmarks/
clicks_floor.py: python-telegram-bot with 256 concurrent updates, or a discord.py Client,
answering every click with a fixed text and doing nothing else). Ratios are studybot / floor,
and Telegram / Discord. Each platform runs on a quiet machine and again beside two CPU-bound
processes (bounded; stopped at the end). Targets (issue 20): Telegram p99 <= 250 ms quiet, <= 1 s
beside the hogs, <= 1 ms of bot CPU per click; Discord 0 clicks past 3 s in both.

Usage: python benchmarks/clicks.py [--quick] [--clicks N] [--seconds S] [--platform telegram|discord|both]
       [--hogs N] [--profile DIR] [--json [FILE]] [--dir DIR]
Full size (500 clicks, both platforms, quiet and with hogs, studybot and floor) takes about a
minute; --quick (200 clicks in 0.4 s, the same rate) about 40 s. No network.
--profile DIR runs studybot under cProfile and writes DIR/<platform>-<hogs>hogs.pstats.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import Report, environment, environment_lines, fmt_ms, load_average, stderr, workdir
from benchmarks._common import emit as emit_report
from benchmarks.clicks_burst import LATE_S, Burst, pooled
from benchmarks.clicks_discord import discord_burst
from benchmarks.clicks_process import FLOOR, STUDYBOT, BotKind, compared
from benchmarks.clicks_telegram import telegram_burst

BURSTS = {"telegram": telegram_burst, "discord": discord_burst}
P99_TARGET_S = {("telegram", False): 0.25, ("telegram", True): 1.0}
CPU_TARGET_S = {"telegram": 0.001}  # bot CPU per click


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 clicks in 0.4 s (default 500 in 1 s)")
    parser.add_argument("--clicks", type=int, default=None, help="clicks in the burst (default 500)")
    parser.add_argument("--seconds", type=float, default=None, help="the burst's length (default 1.0)")
    parser.add_argument("--platform", choices=("telegram", "discord", "both"), default="both")
    parser.add_argument("--hogs", type=int, default=2, help="CPU hogs in the second run (default 2; 0: none)")
    parser.add_argument("--no-floor", action="store_true", help="skip the bare-library baseline")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each setup, pooled (default 1)")
    parser.add_argument("--compare", default=None, metavar="PYTHON",
                        help="also run `PYTHON -m studybot run` (a virtualenv holding another version) "
                        "and show ratios against it")  # fmt: skip
    parser.add_argument("--profile", default=None, metavar="DIR", help="cProfile studybot; .pstats to DIR")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                        help="also write the results as JSON to FILE (or stdout with no FILE)")  # fmt: skip
    parser.add_argument("--dir", default=None, help="where to create the bots' temporary data directories")
    args = parser.parse_args(argv)
    args.clicks = args.clicks or (200 if args.quick else 500)
    args.seconds = args.seconds or (0.4 if args.quick else 1.0)
    if args.clicks < 1 or args.seconds <= 0 or args.repeat < 1:
        parser.error("--clicks and --repeat must be at least 1 and --seconds positive")
    return args


async def run(args: argparse.Namespace) -> Report:
    platforms = ["telegram", "discord"] if args.platform == "both" else [args.platform]
    conditions = [0] + ([args.hogs] if args.hogs > 0 else [])
    kinds: list[BotKind] = [STUDYBOT] if args.no_floor else [FLOOR, STUDYBOT]
    if args.compare:
        kinds.insert(-1, compared(args.compare))
    profile_dir = Path(args.profile) if args.profile else None
    if profile_dir:
        profile_dir.mkdir(parents=True, exist_ok=True)
    report = Report(f"studybot click-burst benchmark ({args.clicks} clicks in {args.seconds:g} s)")
    began = time.perf_counter()
    runs: dict[tuple[str, str, int], list[Burst]] = {}
    with workdir(args.dir) as base:
        env = environment(base)
        report.header += environment_lines(env)
        for run_number in range(args.repeat):  # repeats interleaved, so a busy spell hits all alike
            for platform in platforms:
                for hogs in conditions:
                    for kind in kinds:
                        profile = None
                        if profile_dir and kind is STUDYBOT:
                            name = f"{platform}-{hogs}hogs-{run_number + 1}.pstats"
                            profile = (profile_dir / name).resolve()
                        what = f"[{platform}] {kind.label}, {hogs} CPU hogs, run {run_number + 1}"
                        stderr(f"{what}: {args.clicks} clicks ...")
                        burst = await BURSTS[platform](kind, args.clicks, args.seconds, hogs, base, profile)
                        stderr(f"{what}: " + _brief(burst))
                        runs.setdefault((platform, kind.name, hogs), []).append(burst)
    bursts = [pooled(group) for group in runs.values()]
    report.header.append(f"at the end: load average {load_average()}")
    if args.repeat > 1:
        report.header.append(f"each line pools {args.repeat} runs ({args.repeat * args.clicks} clicks)")
    report.results["environment"] = env
    report.results["bursts"] = [b.as_dict() for b in bursts]
    _table(report, bursts, args)
    report.notes.append(f"wall time {time.perf_counter() - began:.0f} s")
    return report


def _brief(burst: Burst) -> str:
    if burst.error:
        return "FAILED: " + burst.error.splitlines()[0]
    return (f"p50 {_ms(burst.p(50))}, p99 {_ms(burst.p(99))}, max {_ms(burst.max)}, "
            f"{burst.late} past 3 s, CPU {burst.cpu_per_click_s * 1e3:.2f} ms/click")  # fmt: skip


def _ms(seconds: float) -> str:
    return "unanswered" if math.isinf(seconds) else fmt_ms(seconds)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}×" if b > 0 and math.isfinite(a) and math.isfinite(b) else "n/a"


def _find(bursts: list[Burst], platform: str, bot: str, hogs: int) -> Burst | None:
    return next((b for b in bursts if (b.platform, b.bot, b.hogs) == (platform, bot, hogs)), None)


def _table(report: Report, bursts: list[Burst], args: argparse.Namespace) -> None:
    met = True
    for burst in bursts:
        if burst.bot != "studybot":
            continue
        where = f"beside {burst.hogs} CPU hogs" if burst.hogs else "quiet machine"
        report.section(f"{burst.platform.capitalize()}, {where}")
        if burst.error:
            report.line("burst", "FAILED", "", "MISSED")
            report.notes.append(f"{burst.platform}, {burst.hogs} hogs: {burst.error}")
            met = False
            continue
        floor = _find(bursts, burst.platform, "floor", burst.hogs)
        shown = " / ".join(_ms(burst.p(q)) for q in (50, 99)) + " / " + _ms(burst.max)
        target = P99_TARGET_S.get((burst.platform, bool(burst.hogs)))
        if target is not None:
            ok = burst.p(99) <= target
            met &= ok
            report.line("studybot p50 / p99 / max", shown, f"p99 <= {fmt_ms(target)}",
                        "target met" if ok else "MISSED")  # fmt: skip
        else:
            report.line("studybot p50 / p99 / max", shown)
        if floor is not None and not floor.error:
            floor_shown = " / ".join(_ms(floor.p(q)) for q in (50, 99)) + " / " + _ms(floor.max)
            report.line("bare library p50 / p99 / max", floor_shown)
            report.line("studybot / bare library, p99", _ratio(burst.p(99), floor.p(99)))
        other = _find(bursts, burst.platform, "compare", burst.hogs)
        if other is not None and not other.error:
            other_shown = " / ".join(_ms(other.p(q)) for q in (50, 99)) + " / " + _ms(other.max)
            report.line("compared studybot p50 / p99 / max", other_shown)
            report.line("studybot / compared, p99", _ratio(burst.p(99), other.p(99)))
            report.line("compared: past 3 s; CPU per click",
                        f"{other.late} of {other.clicks}; {other.cpu_per_click_s * 1e3:.2f} ms")  # fmt: skip
        late_target = 0 if burst.platform == "discord" else None
        if late_target is not None:
            ok = burst.late <= late_target
            met &= ok
            report.line(f"clicks answered past {LATE_S:g} s", f"{burst.late} of {burst.clicks}", "0",
                        "target met" if ok else "MISSED")  # fmt: skip
        else:
            report.line(f"clicks answered past {LATE_S:g} s", f"{burst.late} of {burst.clicks}")
        cpu = f"{burst.cpu_per_click_s * 1e3:.2f} ms"
        if floor is not None and not floor.error:
            cpu += f" (bare {floor.cpu_per_click_s * 1e3:.2f} ms, {_ratio(burst.bot_cpu_s, floor.bot_cpu_s)})"
        cpu_target = CPU_TARGET_S.get(burst.platform)
        if cpu_target is not None:
            ok = burst.cpu_per_click_s <= cpu_target
            met &= ok
            report.line(
                "bot CPU per click", cpu, f"<= {fmt_ms(cpu_target)}", "target met" if ok else "MISSED"
            )
        else:
            report.line("bot CPU per click", cpu)
        answered_once = burst.unanswered == 0 and burst.refused_answers == 0
        stored_ok = burst.stored == (burst.clicks, burst.clicks)
        met &= answered_once and stored_ok
        stored = f"{burst.stored[0]} by {burst.stored[1]} users" if burst.stored else "?"
        verdict = "target met" if answered_once and stored_ok else "MISSED"
        shown = f"{burst.clicks - burst.unanswered} ({burst.refused_answers} twice) / {stored}"
        report.line("answered / answers stored", shown, f"{burst.clicks} / {burst.clicks}", verdict)
    for hogs in sorted({b.hogs for b in bursts}):
        tg, dc = _find(bursts, "telegram", "studybot", hogs), _find(bursts, "discord", "studybot", hogs)
        if tg and dc and not tg.error and not dc.error:
            report.section(f"Telegram / Discord, {f'{hogs} hogs' if hogs else 'quiet'} (same run)")
            report.line("p99 click-to-answer", _ratio(tg.p(99), dc.p(99)))
            report.line("bot CPU per click", _ratio(tg.bot_cpu_s, dc.bot_cpu_s))
    report.results["all_met"] = met
    report.notes += [
        "click-to-answer: from the fake making the click to the fake receiving the bot's answer, on one "
        "clock; the fake (this process) and the bot (its own process) share the machine's cores.",
        f"open loop: click i is sent at i/{args.clicks} of {args.seconds:g} s whether or not earlier ones "
        "were answered; every click is a different member pressing one of the answer buttons.",
        "bare library = benchmarks/clicks_floor.py: the library answering each click with a fixed text, "
        "nothing else; the same fake, the same machine, the same burst.",
        "bot CPU: user + system time of the bot process, all threads (/proc/PID/stat, 10 ms ticks), from the "
        "first click until every click was answered, divided by the clicks.",
        "CPU hogs: separate `while True` Python processes, started before the burst, stopped after it.",
    ]
    if args.compare:
        report.notes.append(f"compared = `{args.compare} -m studybot run`, the same bursts in the same run.")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    report = asyncio.run(run(args))
    emit_report(report, args.json)
    return 0 if report.results["all_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
