"""The `studybot bank import` command: read a question source (a pasted paper, Aiken, GIFT, CSV,
Excel, Word, PDF or an Anki deck written by `bank export`), write it as a bank YAML file and print the
per-type summary and every warning, in the CLI's language (studybot/cli_language.py). Exit 0 on
success, 1 if refused or no item, 2 if SRC cannot be opened.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from bank.check_text import check_line
from bank.importer import FORMATS, ImportRefused, import_source
from bank.importer.sources import MAX_BYTES, slug
from bot.domain.file_problems import os_error_text
from bot.locales.i18n import t

__all__ = ["add_import_parser", "read_source", "run_import", "slug"]


class UnreadableSource(Exception):
    """SRC cannot be opened; `reason` is the OSError."""

    def __init__(self, path: Path, reason: OSError) -> None:
        super().__init__(f"{path}: {reason.strerror or reason}")
        self.path, self.reason = path, reason

    def line(self, language: str) -> str:
        return t(language, "file.in_file", file=self.path, text=os_error_text(language, self.reason))


def read_source(path: Path) -> bytes:
    """The bytes of `path`, at most one byte over MAX_BYTES (import_source refuses more).
    Raises UnreadableSource for a missing or unreadable file."""
    try:
        with path.open("rb") as source:
            return source.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UnreadableSource(path, exc) from exc


# Up to this size the written YAML is loaded back and compared; larger banks are checked as
# data (the YAML writer is tested to load back as written), which saves the parse.
_LOAD_BACK_LIMIT = 2000


def _check_dump(yaml_text: str, expected, out: TextIO, language: str = "en") -> bool:
    """Check the bank about to be written; a problem is an importer bug, so say so loudly."""
    from bank.loader import check_data, load_bank_text_report
    from bank.yaml_io import bank_to_dict

    if len(expected.questions) > _LOAD_BACK_LIMIT:
        loaded, errors, _ = check_data(bank_to_dict(expected), "<import>")
    else:
        loaded, errors, _ = load_bank_text_report(yaml_text, "<import>")
    for problem in errors:
        print(t(language, "cli.import.dump_error", problem=check_line(language, problem)), file=out)
    from dataclasses import replace

    # The pictures' bytes are written beside the YAML, not in it: the text names them only.
    if loaded is not None and loaded != replace(expected, images=()):
        print(t(language, "cli.import.dump_differs"), file=out)
        return False
    return not errors


_STAGES = ("reading", "building")


class _ProgressBar:
    """A one-line progress bar on a terminal's stderr (used only when stderr is a TTY)."""

    def __init__(self, stream: TextIO, label: str, language: str = "en") -> None:
        self.stream, self.label, self.shown = stream, label, ("", -1)
        self.language = language

    def __call__(self, stage: str, done: int, total: int) -> None:
        percent = 100 * done // total if total else 100
        if (stage, percent) != self.shown:
            self.shown = (stage, percent)
            bar = "#" * (percent // 4)
            name = t(self.language, f"cli.import.stage.{stage}") if stage in _STAGES else stage
            self.stream.write(f"\r{self.label}: {name:<8} [{bar:<25}] {percent:3d}%")
            if stage == "building" and done >= total:
                self.stream.write("\n")
            self.stream.flush()


def run_import(
    src: str,
    output: str | None = None,
    bank_id: str | None = None,
    title: str | None = None,
    source: str | None = None,
    reader: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    language: str | None = None,
) -> int:
    """Import `src`; write YAML to `output` (or stdout). The summary and warnings go to `out`
    when writing a file, to `err` when the YAML itself goes to stdout, in `language` (default:
    the CLI's, from the environment). Exit 0 written, 1 the content was refused (nothing
    written), 2 `src` could not be opened."""
    from studybot.cli_language import cli_language

    language = language or cli_language()
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    path = Path(src)
    try:
        data = read_source(path)
    except UnreadableSource as exc:
        print(t(language, "cli.import.unreadable", problem=exc.line(language)), file=err)
        return 2
    report_to = out if output else err
    progress = _ProgressBar(sys.stderr, path.name, language) if sys.stderr.isatty() else None
    if len(data) > MAX_BYTES:
        size = f"{path.stat().st_size / 2**20:.1f}"
        refused = ImportRefused("import.refused.too_big", path.name, size=size, limit=MAX_BYTES // 2**20)
        print(t(language, "cli.import.refused", problem=refused.line(language)), file=report_to)
        return 1
    try:
        result = import_source(
            data, path.name, format=reader, bank_id=bank_id, title=title,
            source=source if source is not None else path.name, progress=progress,
        )
    except ImportRefused as exc:
        print(t(language, "cli.import.refused", problem=exc.line(language)), file=report_to)
        return 1
    del data
    print(t(language, "file.in_file", file=path, text=result.summary(language)), file=report_to)
    if not result.ok:
        key = "cli.import.refused_content" if result.errors else "cli.import.no_item"
        print(t(language, key, path=path), file=report_to)
        return 1

    from bank.images import write_images
    from bank.yaml_io import dump_bank

    yaml_text = dump_bank(result.bank)
    if not _check_dump(yaml_text, result.bank, report_to, language):
        return 1
    if output:
        target = Path(output)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            folder = write_images(result.bank.images, target)  # before the YAML that names them
            target.write_text(yaml_text, encoding="utf-8")
        except OSError as exc:
            print(t(language, "cli.import.cannot_write", output=output, reason=os_error_text(language, exc)),
                  file=err)
            return 2
        if folder is not None:
            print(t(language, "cli.import.wrote_images", count=len(result.bank.images), folder=folder),
                  file=report_to)
        print(t(language, "cli.import.wrote", output=output), file=report_to)
    else:
        if result.bank.images:  # standard output holds one file: the pictures need -o
            print(t(language, "cli.import.images_need_output", count=len(result.bank.images)), file=err)
            return 1
        out.write(yaml_text)
    return 0


def _command(args: argparse.Namespace) -> int:
    return run_import(args.src, args.output, args.id, args.title, args.source, args.format,
                      language=getattr(args, "language", None))  # fmt: skip


def add_import_parser(
    subparsers: argparse._SubParsersAction, language: str = "en",
) -> argparse.ArgumentParser:
    """Add the `import` sub-command to `subparsers` (help in `language`); the parsed args'
    `func(args)` returns the exit status."""
    from studybot.cli_language import add_command

    parser = add_command(
        subparsers,
        language,
        "import",
        help=t(language, "cli.import.help"),
        description=t(language, "cli.import.description"),
    )
    src = t(language, "cli.metavar.src")
    parser.add_argument("src", metavar=src, help=t(language, "cli.import.src_help"))
    parser.add_argument("-o", "--output", metavar=t(language, "cli.metavar.out_yaml"),
                        help=t(language, "cli.import.output_help"))  # fmt: skip
    parser.add_argument("--id", metavar="ID", help=t(language, "cli.import.id_help", src=src))
    parser.add_argument("--title", metavar=t(language, "cli.metavar.title"),
                        help=t(language, "cli.import.title_help"))  # fmt: skip
    parser.add_argument("--source", metavar=t(language, "cli.metavar.source"),
                        help=t(language, "cli.import.source_help", src=src))  # fmt: skip
    parser.add_argument("--format", choices=FORMATS, default=None, metavar=t(language, "cli.metavar.format"),
                        help=t(language, "cli.import.format_help", formats=", ".join(FORMATS)))  # fmt: skip
    parser.set_defaults(func=_command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """`python -m bank.import_cmd SRC ...`, for use without the studybot command."""
    from studybot.cli_language import run_one_command

    return run_one_command("python -m bank.import_cmd", "import", add_import_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
