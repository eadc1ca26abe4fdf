"""The `studybot bank check` command: validate bank files, print a summary per bank or every
problem as `file:line: [question-id] message`, and exit 1 if any bank has an error. It speaks
the CLI's language (studybot/cli_language.py; the checker's sentences through bank/check_text.py).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

import bank as bank_package
from bank.check_text import check_line
from bank.compiled import default_cache_dir, load_bank_report_cached
from bank.loader import BankProblem, bank_files
from bot.domain.questions import Bank, QuestionType
from bot.locales.i18n import bank_text, t

__all__ = ["add_check_parser", "default_bank_dir", "default_bank_path", "run_check", "summary"]


def default_bank_dir() -> Path:
    """The packaged bank directory (where bank/__init__.py lives)."""
    return Path(bank_package.__file__).resolve().parent


def default_bank_path() -> Path:
    """The shipped bank file."""
    return default_bank_dir() / "ai_trainer_2025.yaml"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def summary(bank: Bank, warnings: int = 0, language: str = "en") -> str:
    """One line describing a valid bank."""
    counts = Counter(q.type for q in bank.questions)
    per_type = t(language, "import.summary.list_sep").join(
        t(language, "cli.check.per_type", type=t(language, f"import.type.{k.value}"), count=counts[k])
        for k in QuestionType if counts[k])
    points = sum(q.points for q in bank.questions)
    errata = sum(len(q.errata) for q in bank.questions)
    return t(language, "cli.check.summary", id=bank.id, title=bank.title, count=len(bank.questions),
             per_type=per_type, points=_number(points), tags=len(bank.tags), errata=errata,
             warnings=warnings)  # fmt: skip


def _files(paths: list[str], out: TextIO, language: str = "en") -> tuple[list[Path], bool]:
    """The bank files named by `paths`, and whether some path was unusable (already printed)."""
    files: list[Path] = []
    bad = False
    for name in paths:
        path = Path(name)
        if not path.exists():
            print(t(language, "cli.check.no_such_path", path=name), file=out)
            bad = True
        elif not (found := bank_files(path)):
            print(t(language, "cli.check.no_yaml", path=name), file=out)
            bad = True
        else:
            files.extend(found)
    return files, bad


def run_check(paths: list[str], out: TextIO | None = None, cache_dir: Path | None = None,
              language: str | None = None) -> int:  # fmt: skip
    """Check the banks at `paths` (files, or directories meaning their *.yaml files; none means
    the packaged bank directory). Prints to `out` (default sys.stdout) in `language` (default:
    the CLI's, from the environment). Returns 1 if any error. With `cache_dir`, a bank whose
    bytes were checked before by the same code is not checked again (bank/compiled.py).
    """
    from studybot.cli_language import cli_language

    language = language or cli_language()
    out = out if out is not None else sys.stdout
    files, failed = _files([str(p) for p in paths] or [str(default_bank_dir())], out, language)
    first_file: dict[str, Path] = {}
    for path in files:
        bank, errors, warnings = load_bank_report_cached(path, cache_dir)
        for problem in errors:
            print(check_line(language, problem), file=out)
        for w in warnings:
            print(check_line(language, BankProblem(w.file, w.line, w.question_id, f"warning: {w.message}")),
                  file=out)
        if bank is None:
            failed = True
            print(t(language, "cli.check.refused", path=path, count=len(errors)), file=out)
            continue
        if bank.id in first_file:
            failed = True
            print(t(language, "cli.check.id_twice", path=path, id=repr(bank.id), other=first_file[bank.id]),
                  file=out)
        first_file.setdefault(bank.id, path)
        line = t(language, "cli.check.ok", path=path, summary=summary(bank, len(warnings), language))
        print(line, file=out)
        # Not errors: the items the bank's editors doubt, each with the note learners see.
        for q in bank.questions:
            if q.doubt:
                print(t(language, "cli.check.doubt", path=path, id=q.id, number=q.number,
                        note=bank_text(language, q.doubt)), file=out)
    return 1 if failed else 0


def _command(args: argparse.Namespace) -> int:
    return run_check(args.paths, cache_dir=None if args.no_cache else default_cache_dir(),
                     language=getattr(args, "language", None))  # fmt: skip


def add_check_parser(subparsers: argparse._SubParsersAction, language: str = "en") -> argparse.ArgumentParser:
    """Add the `check` sub-command to `subparsers` (help in `language`); the parsed args'
    `func(args)` returns the exit status."""
    from studybot.cli_language import add_command

    parser = add_command(
        subparsers,
        language,
        "check",
        help=t(language, "cli.check.help"),
        description=t(language, "cli.check.description"),
    )
    parser.add_argument(
        "paths", nargs="*", metavar=t(language, "cli.metavar.path"), help=t(language, "cli.check.paths_help"),
    )
    parser.add_argument("--no-cache", action="store_true", help=t(language, "cli.check.no_cache_help"))
    parser.set_defaults(func=_command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """`python -m bank.check [PATH...]`, for use without the studybot command."""
    from studybot.cli_language import run_one_command

    return run_one_command("python -m bank.check", "check", add_check_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
