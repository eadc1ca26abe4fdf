"""The `studybot bank export` command: write a bank file as CSV, GIFT, Excel or an Anki deck.
Exit 0 written, 1 the bank has errors (listed) or the format cannot hold some item (GIFT has no
form for some types: see bot/domain/question_types), 2 the output cannot be written; 1 too when the
format needs an extra that is not installed (genanki for Anki: one sentence naming the command). It speaks the
CLI's language (studybot/cli_language.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from bank.check_text import check_line
from bank.exporters import EXPORT_FORMATS, ExportRefused, export_bank
from bot.domain.file_problems import os_error_text
from bot.locales.i18n import t
from bot.ports.missing_extra import MissingExtra

__all__ = ["add_export_parser", "run_export"]


def run_export(bank_path: str, fmt: str, output: str | None = None,
               out: TextIO | None = None, err: TextIO | None = None, language: str | None = None) -> int:
    """Export the bank at `bank_path`. Text formats go to stdout without `output`; Excel and
    Anki go to `<bank id><ext>` in the current directory. Messages in `language` (default: the
    CLI's, from the environment)."""
    from bank.loader import load_bank_report
    from studybot.cli_language import cli_language

    language = language or cli_language()
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    bank, errors, _ = load_bank_report(bank_path)
    if bank is None:
        for problem in errors:
            print(check_line(language, problem), file=err)
        print(t(language, "cli.export.refused", path=bank_path), file=err)
        return 1
    try:
        data = export_bank(bank, fmt)
    except ExportRefused as refused:  # a format that cannot hold some item as what it is
        sep = t(language, "import.summary.list_sep")
        params = {name: sep.join(map(str, value)) if isinstance(value, tuple) else value
                  for name, value in refused.params.items()}  # fmt: skip
        print(t(language, refused.key, format=fmt, **params), file=err)
        return 1
    except MissingExtra as missing:  # genanki for Anki decks is an extra
        print(missing.text(language), file=err)
        return 1
    if bank.images:  # the formats hold text: said, not lost in silence
        from bank.images import image_dir

        print(t(language, "cli.export.pictures_left", count=len(bank.images), folder=image_dir(bank_path)),
              file=err)  # fmt: skip
    if output is None and fmt in ("csv", "gift"):
        out.write(data.decode("utf-8-sig"))
        return 0
    target = Path(output or f"{bank.id}{EXPORT_FORMATS[fmt]}")
    try:
        target.write_bytes(data)
    except OSError as exc:
        reason = os_error_text(language, exc)
        print(t(language, "cli.export.cannot_write", target=target, reason=reason), file=err)
        return 2
    print(t(language, "cli.export.wrote", target=target, count=len(bank.questions), format=fmt), file=err)
    return 0


def _command(args: argparse.Namespace) -> int:
    return run_export(args.bank, args.format, args.output, language=getattr(args, "language", None))


def add_export_parser(
    subparsers: argparse._SubParsersAction, language: str = "en",
) -> argparse.ArgumentParser:
    """Add the `export` sub-command to `subparsers` (help in `language`)."""
    from studybot.cli_language import add_command

    parser = add_command(
        subparsers,
        language,
        "export",
        help=t(language, "cli.export.help"),
        description=t(language, "cli.export.description"),
    )
    parser.add_argument("bank", metavar=t(language, "cli.metavar.bank"),
                        help=t(language, "cli.export.bank_help"))  # fmt: skip
    parser.add_argument("--format", required=True, choices=list(EXPORT_FORMATS),
                        metavar=t(language, "cli.metavar.format"),
                        help=t(language, "cli.export.format_help", formats=", ".join(EXPORT_FORMATS)))
    parser.add_argument("-o", "--output", metavar=t(language, "cli.metavar.file"),
                        help=t(language, "cli.export.output_help"))
    parser.set_defaults(func=_command)
    return parser
