"""The `studybot bank export` command: write a bank file as CSV, GIFT, Excel or an Anki deck.
Exit 0 written, 1 the bank has errors (listed), 2 the output cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from bank.exporters import EXPORT_FORMATS, export_bank

__all__ = ["add_export_parser", "run_export"]


def run_export(bank_path: str, fmt: str, output: str | None = None,
               out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Export the bank at `bank_path`. Text formats go to stdout without `output`; Excel and
    Anki go to `<bank id><ext>` in the current directory."""
    from bank.loader import load_bank_report

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    bank, errors, _ = load_bank_report(bank_path)
    if bank is None:
        for problem in errors:
            print(problem, file=err)
        print(f"{bank_path}: refused, nothing exported", file=err)
        return 1
    data = export_bank(bank, fmt)
    if output is None and fmt in ("csv", "gift"):
        out.write(data.decode("utf-8-sig"))
        return 0
    target = Path(output or f"{bank.id}{EXPORT_FORMATS[fmt]}")
    try:
        target.write_bytes(data)
    except OSError as exc:
        print(f"studybot bank export: {target}: {exc.strerror or exc}", file=err)
        return 2
    print(f"wrote {target}: {len(bank.questions)} questions as {fmt}", file=err)
    return 0


def _command(args: argparse.Namespace) -> int:
    return run_export(args.bank, args.format, args.output)


def add_export_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the `export` sub-command to `subparsers`."""
    parser = subparsers.add_parser(
        "export",
        help="write a bank as CSV, GIFT (Moodle), Excel or an Anki deck",
        description="Write a bank as CSV, GIFT (Moodle), Excel (.xlsx) or an Anki deck (.apkg, "
        "needs `pip install studybot[anki]`). `studybot bank import` of the result gives the "
        "same questions back.",
    )
    parser.add_argument("bank", metavar="BANK", help="the bank YAML file")
    parser.add_argument("--format", required=True, choices=list(EXPORT_FORMATS))
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write (default: stdout for csv/gift, BANK-ID.xlsx/.apkg)")
    parser.set_defaults(func=_command)
    return parser
