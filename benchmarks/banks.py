"""Benchmark large question banks: import, start-up and `bank check`, each as a real process.

Job: measure, in one run on this machine, what issue 11 asks of large banks, against the
targets, with every time also given as a ratio to `json.loads` of the same bank's data (the
same questions as JSON, parsed in this process in the same run), so runs on different machines
compare:

1. `studybot bank import` of a generated 10,000-item paper (five sections: single, multi,
   judge, fill, short; answers and explanations after each item).
2. Start-up of the bot with that bank (`python -m studybot run --console` with `/quit` piped,
   a config naming the bank): first start (compiles the bank) and the next one (reads the
   compiled form), wall time and peak RSS.
3. `studybot bank check` of the bank: cached, and in full (`--no-cache`).
4. `studybot bank import` of a 100,000-item paper: wall time and peak RSS (it must not run out
   of memory).

Peak RSS is the child's own (`ru_maxrss` of RUSAGE_CHILDREN, read by a fresh measuring process
per command so an earlier, larger child never shows up in a later number).

Usage: python benchmarks/banks.py [--quick] [--json [FILE]] [--dir TMPDIR]
Full sizes take about a minute on 2 cores; --quick (2,000 and 20,000 items) about 15 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import Report, environment, environment_lines, fmt_ms, stderr, workdir
from benchmarks._common import emit as emit_report

# Runs one command and prints its wall time, exit status and peak RSS as JSON: a fresh process
# per measurement, since RUSAGE_CHILDREN's ru_maxrss is the largest child ever waited for.
_MEASURE = """
import json, resource, subprocess, sys, time
cmd, stdin, env = json.loads(sys.argv[1])
start = time.perf_counter()
done = subprocess.run(cmd, input=stdin.encode(), capture_output=True, env=env)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"wall": wall, "rc": done.returncode, "peak": peak,
                  "out": done.stdout.decode(errors="replace")[-2000:],
                  "err": done.stderr.decode(errors="replace")[-2000:]}))
"""

_KINDS = ("single", "multi", "judge", "fill", "short")
_HEADERS = {"single": "一、单选题（每题1分）", "multi": "二、多选题（每题2分）",
            "judge": "三、判断题（每题1分）", "fill": "四、填空题（每题2分）",
            "short": "五、简答题（每题5分）"}


def make_paper(items: int) -> str:
    """A paper of `items` items in five sections, as teachers paste them."""
    per = items // len(_KINDS)
    out = ["大规模模拟试卷"]
    n = 0
    for kind in _KINDS:
        out.append(_HEADERS[kind])
        count = per if kind != "short" else items - 4 * per
        for _ in range(count):
            n += 1
            if kind in ("single", "multi"):
                answer = "ABCD"[n % 4] if kind == "single" else ("AB", "ACD", "BD")[n % 3]
                out.append(f"{n}. 第{n}题：关于模型训练，下列说法正确的是（ ）\nA. 学习率{n}\n"
                           f"B. 批大小{n}\nC. 正则化{n}\nD. 早停{n}\n答案：{answer}\n"
                           f"解析：第{n}题考查训练超参数。")
            elif kind == "judge":
                out.append(f"{n}. 第{n}题：增大模型容量一定能降低测试误差。\n答案：{'对错'[n % 2]}\n"
                           "解析：可能过拟合。")
            elif kind == "fill":
                out.append(f"{n}. 第{n}题：多分类常用的损失函数是______。\n答案：交叉熵{n}\n解析：无。")
            else:
                out.append(f"{n}. 第{n}题：简述过拟合的处理方法。\n答案：增加数据、正则化、早停{n}。\n"
                           "解析：参考教材。")
    return "\n".join(out) + "\n"


def measure(cmd: list[str], stdin: str = "", env: dict[str, str] | None = None) -> dict:
    args = json.dumps([cmd, stdin, env or dict(os.environ)])
    done = subprocess.run([sys.executable, "-c", _MEASURE, args], capture_output=True, text=True,
                          check=True)
    result = json.loads(done.stdout)
    if result["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {result['rc']}: {result['err']}{result['out']}")
    return result


def json_baseline(bank_yaml: Path) -> float:
    """Best of five `json.loads` of the bank's data as JSON: the floor a bank load compares to."""
    from bank.loader import load_bank
    from bank.yaml_io import bank_to_dict

    text = json.dumps(bank_to_dict(load_bank(bank_yaml)), ensure_ascii=False)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        json.loads(text)
        best = min(best, time.perf_counter() - start)
    return best


def mb(value: int) -> str:
    return f"{value / 2**20:,.0f} MB"


def run(quick: bool, base: str | None) -> Report:
    items, huge = (2_000, 20_000) if quick else (10_000, 100_000)
    report = Report("studybot large-bank benchmark" + (" (quick)" if quick else ""))
    studybot = [sys.executable, "-m", "studybot"]
    with workdir(base) as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN")}
        env["STUDYBOT_DATA_DIR"] = str(tmp / "data")
        report.header = environment_lines(environment(tmp))
        paper = tmp / "paper.txt"
        paper.write_text(make_paper(items), encoding="utf-8")
        bank_yaml = tmp / "big.yaml"

        stderr(f"importing a {items:,}-item paper ...")
        imported = measure([*studybot, "bank", "import", str(paper), "-o", str(bank_yaml),
                            "--id", "big"], env=env)
        baseline = json_baseline(bank_yaml)
        report.header.append(f"baseline: json.loads of the same {items:,}-item bank as JSON "
                             f"({bank_yaml.stat().st_size / 2**20:.1f} MB of YAML): "
                             f"{fmt_ms(baseline)} (best of 5)")

        def timed(label: str, result: dict, target: float | None) -> None:
            shown = f"{result['wall']:.2f} s ({result['wall'] / baseline:,.0f}x json)"
            if target is None:
                report.line(label, shown)
            else:
                report.check(label, result["wall"], shown, at_most=target)

        report.section(f"import ({items:,} items)")
        timed("bank import, wall", imported, 5.0 if not quick else None)
        report.line("bank import, peak RSS", mb(imported["peak"]))

        config = tmp / "studybot.yaml"
        config.write_text(f"bank_paths: [{json.dumps(str(bank_yaml))}]\n", encoding="utf-8")
        run_bot = [*studybot, "run", "--console", "--config", str(config)]
        stderr("starting the bot (first start, then cached) ...")
        first = measure(run_bot, "/quit\n", env)
        cached = [measure(run_bot, "/quit\n", env) for _ in range(3)]
        best = min(cached, key=lambda r: r["wall"])
        report.section(f"start-up with the {items:,}-item bank (python -m studybot, /quit piped)")
        timed("first start (compiles the bank), wall", first, None)
        report.line("first start, peak RSS", mb(first["peak"]))
        timed("cached start, wall (best of 3)", best, 1.0)
        report.check("cached start, peak RSS", best["peak"] / 2**20, mb(best["peak"]), at_most=150)

        stderr("bank check ...")
        check_cached = measure([*studybot, "bank", "check", str(bank_yaml)], env=env)
        check_full = measure([*studybot, "bank", "check", "--no-cache", str(bank_yaml)], env=env)
        report.section(f"bank check of the {items:,}-item bank")
        timed("bank check (compiled form cached), wall", check_cached, 3.0)
        timed("bank check --no-cache (full), wall", check_full, 3.0)
        report.line("bank check --no-cache, peak RSS", mb(check_full["peak"]))

        stderr(f"importing a {huge:,}-item paper ...")
        paper.write_text(make_paper(huge), encoding="utf-8")
        size = paper.stat().st_size
        big = measure([*studybot, "bank", "import", str(paper), "-o", str(tmp / "huge.yaml"),
                       "--id", "huge"], env=env)
        report.section(f"import ({huge:,} items, {size / 2**20:.1f} MB paper)")
        timed("bank import, wall", big, None)
        report.line("bank import, peak RSS", mb(big["peak"]))
        report.results = {"items": items, "huge": huge, "json_loads_s": baseline,
                          "import": imported, "first_start": first, "cached_start": cached,
                          "check_cached": check_cached, "check_full": check_full, "huge_import": big}
        for result in (imported, first, *cached, check_cached, check_full, big):
            result.pop("out", None)
            result.pop("err", None)
    report.notes.append("every command is a fresh process, Python start-up included; peak RSS is "
                        "that process's own")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 and 20,000 items")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="also dump the results as JSON to FILE (no FILE: JSON to stdout)")
    parser.add_argument("--dir", default=None, help="where to put the temporary files")
    args = parser.parse_args(argv)
    emit_report(run(args.quick, args.dir), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
