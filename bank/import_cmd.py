"""The `studybot bank import` command: read a question source (a pasted paper, Aiken, GIFT, CSV,
Excel, Word or an Anki deck written by `bank export`), write it as a bank YAML file and print the
per-type summary and every warning. Exit 0 on success, 1 if refused or no item, 2 if SRC cannot
be opened.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from bank.importer import FORMATS, ImportRefused, import_source
from bank.importer.sources import MAX_BYTES, slug

__all__ = ["add_import_parser", "read_source", "run_import", "slug"]


class UnreadableSource(Exception):
    pass


def read_source(path: Path) -> bytes:
    """The bytes of `path`, at most one byte over MAX_BYTES (import_source refuses more).
    Raises UnreadableSource for a missing or unreadable file."""
    try:
        with path.open("rb") as source:
            return source.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UnreadableSource(f"{path}: {exc.strerror or exc}") from exc


# Up to this size the written YAML is loaded back and compared; larger banks are checked as
# data (the YAML writer is tested to load back as written), which saves the parse.
_LOAD_BACK_LIMIT = 2000


def _check_dump(yaml_text: str, expected, out: TextIO) -> bool:
    """Check the bank about to be written; a problem is an importer bug, so say so loudly."""
    from bank.loader import check_data, load_bank_text_report
    from bank.yaml_io import bank_to_dict

    if len(expected.questions) > _LOAD_BACK_LIMIT:
        loaded, errors, _ = check_data(bank_to_dict(expected), "<import>")
    else:
        loaded, errors, _ = load_bank_text_report(yaml_text, "<import>")
    for problem in errors:
        print(f"error: the written bank does not load: {problem}", file=out)
    if loaded is not None and loaded != expected:
        print("error: the written bank does not load back as imported", file=out)
        return False
    return not errors


class _ProgressBar:
    """A one-line progress bar on a terminal's stderr (used only when stderr is a TTY)."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream, self.label, self.shown = stream, label, ("", -1)

    def __call__(self, stage: str, done: int, total: int) -> None:
        percent = 100 * done // total if total else 100
        if (stage, percent) != self.shown:
            self.shown = (stage, percent)
            bar = "#" * (percent // 4)
            self.stream.write(f"\r{self.label}: {stage:<8} [{bar:<25}] {percent:3d}%")
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
) -> int:
    """Import `src`; write YAML to `output` (or stdout). The summary and warnings go to `out`
    when writing a file, to `err` when the YAML itself goes to stdout. Exit 0 written, 1 the
    content was refused (nothing written), 2 `src` could not be opened."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    path = Path(src)
    try:
        data = read_source(path)
    except UnreadableSource as exc:
        print(f"studybot bank import: {exc}", file=err)
        return 2
    report_to = out if output else err
    progress = _ProgressBar(sys.stderr, path.name) if sys.stderr.isatty() else None
    if len(data) > MAX_BYTES:
        print(f"studybot bank import: {path.name}: {path.stat().st_size / 2**20:.1f} MB is over "
              f"the {MAX_BYTES // 2**20} MB limit for one source; nothing written", file=report_to)
        return 1
    try:
        result = import_source(
            data, path.name, format=reader, bank_id=bank_id or slug(path.stem), title=title,
            source=source if source is not None else path.name, progress=progress,
        )
    except ImportRefused as exc:
        print(f"studybot bank import: {exc}; nothing written", file=report_to)
        return 1
    del data
    print(f"{path}: {result.summary()}", file=report_to)
    if not result.ok:
        what = "refused" if result.errors else "no item found"
        print(f"{path}: {what}; nothing written", file=report_to)
        return 1

    from bank.yaml_io import dump_bank

    yaml_text = dump_bank(result.bank)
    if not _check_dump(yaml_text, result.bank, report_to):
        return 1
    if output:
        target = Path(output)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(yaml_text, encoding="utf-8")
        except OSError as exc:
            print(f"studybot bank import: cannot write {output}: {exc.strerror or exc}", file=err)
            return 2
        print(f"wrote {output}; review the warnings, then run `studybot bank check {output}`",
              file=report_to)
    else:
        out.write(yaml_text)
    return 0


def _command(args: argparse.Namespace) -> int:
    return run_import(args.src, args.output, args.id, args.title, args.source, args.format)


def add_import_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the `import` sub-command to `subparsers`; the parsed args' `func(args)` returns the
    exit status."""
    parser = subparsers.add_parser(
        "import",
        help="turn a pasted exam paper into a bank YAML file",
        description="Read a question source -- a pasted paper (answers after each item or in "
        "a key at the end), Aiken, GIFT, CSV, Excel (.xlsx), Word (.docx) or an Anki deck written "
        "by `bank export` -- and write it as a bank (docs/bank-format.md). Pinyin and traditional "
        "characters are cleaned. Prints the items per type and every warning with its place in "
        "SRC. Exit status: 0 done, 1 refused or no item found (nothing written), 2 SRC cannot be "
        "opened or OUT cannot be written.",
    )
    parser.add_argument(
        "src", metavar="SRC", help="the source file (text in UTF-8 or GB18030, .xlsx, .docx, .apkg)"
    )
    parser.add_argument(
        "-o", "--output", metavar="OUT.yaml", help="write the bank here (default: stdout)"
    )
    parser.add_argument("--id", help="bank id; question ids are ID-001... (default: from SRC)")
    parser.add_argument("--title", help="bank title (default: the paper's title line)")
    parser.add_argument("--source", help="the bank's source note (default: SRC's file name)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="source format (default: detected from the content and the file name)",
    )
    parser.set_defaults(func=_command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """`python -m bank.import_cmd SRC ...`, for use without the studybot command."""
    parser = argparse.ArgumentParser(prog="python -m bank.import_cmd")
    add_import_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["import", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
