"""The `studybot bank check` command: validate bank files, print a summary per bank or every
problem as `file:line: [question-id] message`, and exit 1 if any bank has an error.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

import bank as bank_package
from bank.compiled import default_cache_dir, load_bank_report_cached
from bank.loader import BankProblem, bank_files
from bot.model import Bank, QuestionType

__all__ = ["add_check_parser", "default_bank_dir", "default_bank_path", "run_check", "summary"]


def default_bank_dir() -> Path:
    """The packaged bank directory (where bank/__init__.py lives)."""
    return Path(bank_package.__file__).resolve().parent


def default_bank_path() -> Path:
    """The shipped bank file."""
    return default_bank_dir() / "ai_trainer_2025.yaml"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def summary(bank: Bank, warnings: int = 0) -> str:
    """One line describing a valid bank."""
    counts = Counter(q.type for q in bank.questions)
    per_type = ", ".join(f"{t} {counts[t]}" for t in QuestionType if counts[t])
    points = sum(q.points for q in bank.questions)
    errata = sum(len(q.errata) for q in bank.questions)
    return (
        f'{bank.id} "{bank.title}": {len(bank.questions)} questions ({per_type}), '
        f"{_number(points)} points, {len(bank.tags)} tags, {errata} errata, {warnings} warnings"
    )


def _files(paths: list[str], out: TextIO) -> tuple[list[Path], bool]:
    """The bank files named by `paths`, and whether some path was unusable (already printed)."""
    files: list[Path] = []
    bad = False
    for name in paths:
        path = Path(name)
        if not path.exists():
            print(f"{name}: no such file or directory", file=out)
            bad = True
        elif not (found := bank_files(path)):
            print(f"{name}: no *.yaml bank files in this directory", file=out)
            bad = True
        else:
            files.extend(found)
    return files, bad


def run_check(paths: list[str], out: TextIO | None = None, cache_dir: Path | None = None) -> int:
    """Check the banks at `paths` (files, or directories meaning their *.yaml files; none means
    the packaged bank directory). Prints to `out` (default sys.stdout). Returns 1 if any error.
    With `cache_dir`, a bank whose bytes were checked before by the same code is not checked
    again (bank/compiled.py).
    """
    out = out if out is not None else sys.stdout
    files, failed = _files([str(p) for p in paths] or [str(default_bank_dir())], out)
    first_file: dict[str, Path] = {}
    for path in files:
        bank, errors, warnings = load_bank_report_cached(path, cache_dir)
        for problem in errors:
            print(problem, file=out)
        for w in warnings:
            print(BankProblem(w.file, w.line, w.question_id, f"warning: {w.message}"), file=out)
        if bank is None:
            failed = True
            print(f"{path}: refused, {len(errors)} error{'s' if len(errors) > 1 else ''}", file=out)
            continue
        if bank.id in first_file:
            failed = True
            print(f"{path}: bank id {bank.id!r} is also used by {first_file[bank.id]}", file=out)
        first_file.setdefault(bank.id, path)
        print(f"{path}: OK {summary(bank, len(warnings))}", file=out)
    return 1 if failed else 0


def _command(args: argparse.Namespace) -> int:
    return run_check(args.paths, cache_dir=None if args.no_cache else default_cache_dir())


def add_check_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the `check` sub-command to `subparsers`; the parsed args' `func(args)` returns the
    exit status."""
    parser = subparsers.add_parser(
        "check",
        help="validate question-bank files",
        description="Validate bank files (docs/bank-format.md) and list every problem.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="bank file or directory of *.yaml banks (default: the packaged bank directory)",
    )
    parser.add_argument(
        "--no-cache", action="store_true",
        help="check every bank in full, even one checked before unchanged",
    )
    parser.set_defaults(func=_command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """`python -m bank.check [PATH...]`, for use without the studybot command."""
    parser = argparse.ArgumentParser(prog="python -m bank.check")
    add_check_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["check", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
