"""The `studybot bank import` command: read a pasted exam paper, write it as a bank YAML file and
print the per-type summary and every warning. Exit 0 on success, 1 if no item, 2 if unreadable.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TextIO

from bank.importer import READERS, import_paper

__all__ = ["add_import_parser", "read_source", "run_import", "slug"]


class UnreadableSource(Exception):
    pass


def read_source(path: Path) -> tuple[str, str]:
    """The text of `path` and the encoding used (UTF-8, else GB18030 as Chinese papers often
    are). Raises UnreadableSource for a missing, unreadable or binary file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableSource(f"{path}: {exc.strerror or exc}") from exc
    if b"\x00" in data:
        raise UnreadableSource(f"{path}: binary file, not a text paper")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030"), "gb18030"
    except UnicodeDecodeError as exc:
        raise UnreadableSource(f"{path}: neither UTF-8 nor GB18030 text") from exc


def slug(name: str) -> str:
    """A bank id (`[a-z0-9][a-z0-9-_]*`) made from a file name."""
    text = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return text or "imported"


def _check_dump(yaml_text: str, out: TextIO) -> bool:
    """Load the written YAML back; an error here is an importer bug, so say so loudly."""
    from bank.loader import load_bank_text_report

    errors = load_bank_text_report(yaml_text, "<import>").errors
    for problem in errors:
        print(f"error: the written bank does not load: {problem}", file=out)
    return not errors


def run_import(
    src: str,
    output: str | None = None,
    bank_id: str | None = None,
    title: str | None = None,
    source: str | None = None,
    reader: str = "paper",
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Import `src`; write YAML to `output` (or stdout). The summary and warnings go to `out`
    when writing a file, to `err` when the YAML itself goes to stdout."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    path = Path(src)
    try:
        text, encoding = read_source(path)
    except UnreadableSource as exc:
        print(f"studybot bank import: {exc}", file=err)
        return 2
    report_to = out if output else err
    result = import_paper(
        text,
        bank_id=bank_id or slug(path.stem),
        title=title,
        source=source if source is not None else path.name,
        reader=reader,
    )
    if encoding != "utf-8":
        print(f"{path}: read as {encoding}", file=report_to)
    print(f"{path}: {result.summary()}", file=report_to)
    if not result.bank.questions:
        print(f"{path}: no item found; nothing written", file=report_to)
        return 1

    from bank.yaml_io import dump_bank

    yaml_text = dump_bank(result.bank)
    if not _check_dump(yaml_text, report_to):
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
        description="Read a pasted exam paper (pinyin and traditional characters are cleaned) "
        "and write it as a bank (docs/bank-format.md). Prints the items per type and every "
        "warning with its line:col in SRC. Exit status: 0 done, 1 no item found, 2 SRC "
        "unreadable or OUT not writable.",
    )
    parser.add_argument("src", metavar="SRC", help="the paper, a UTF-8 (or GB18030) text file")
    parser.add_argument(
        "-o", "--output", metavar="OUT.yaml", help="write the bank here (default: stdout)"
    )
    parser.add_argument("--id", help="bank id; question ids are ID-001... (default: from SRC)")
    parser.add_argument("--title", help="bank title (default: the paper's title line)")
    parser.add_argument("--source", help="the bank's source note (default: SRC's file name)")
    parser.add_argument(
        "--format", choices=sorted(READERS), default="paper", help="source format (default: paper)"
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
