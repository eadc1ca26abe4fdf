"""`studybot bank stats BANK [--csv FILE]`: the question statistics of a bank
(bot/domain/item_statistics.py) from every answer in the configured database (SQLite or PostgreSQL),
printed as a table that fits a terminal 80 columns wide, in the command line's language
(studybot/cli_language.py): what the numbers rest on, the flagged items in full with their open
error reports, then every item one row. `--csv FILE` writes every item's numbers as well.

BANK is a bank's id (a configured bank, the shipped one, or one uploaded in a chat) or a bank
file. Exit 0 shown, 1 no such bank, 2 the CSV file cannot be written or the config is bad.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from wcwidth import wcswidth

from bot.domain.file_problems import os_error_text
from bot.domain.item_statistics import BankStatistics, ItemStats, compute
from bot.domain.questions import Bank
from bot.domain.study_records import ItemAnswer, Report
from bot.locales.i18n import t
from bot.views.item_statistics_text import (
    by_question,
    correlation,
    csv_bytes,
    flagged_block,
    header_lines,
    mark,
    option_label,
    percent,
)

if TYPE_CHECKING:
    from studybot.config import Config

WIDTH = 80
Read = tuple[Bank | None, list[str], list[ItemAnswer], list[Report]]

__all__ = ["add_stats_parser", "table_lines", "wrap"]


def printable(text: str) -> str:
    """Text a learner wrote (a report, a name) made safe for a terminal: control characters
    (an escape sequence, a line break) become spaces and format characters (a right-to-left
    override, a zero-width space) are dropped, so nothing can move the cursor, recolour the
    screen or reorder a line, and every character has a width."""
    out = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cc":
            out.append(" ")
        elif category != "Cf":
            out.append(char)
    return "".join(out)


def width(text: str) -> int:
    return max(0, wcswidth(text))


def pad(text: str, size: int, right: bool = False) -> str:
    space = " " * max(0, size - width(text))
    return space + text if right else text + space


# No line may start with these (Chinese punctuation closes what stands before it).
_NO_START = set("，。、；：？！）》」』%…·")
_CLAUSE_END = set("，；。：")


def wrap(text: str, limit: int = WIDTH, indent: str = "") -> list[str]:
    """`text` in lines of at most `limit` columns (a CJK character is two), broken at a space
    or between CJK characters, after a clause's punctuation where one is near the end of the
    line; continuation lines start with `indent`."""
    lines: list[str] = []
    line, cut, clause = "", -1, -1  # where the current line may break (indices into line)
    for char in text:
        line += char
        if char == " " or (len(line) > 1 and width(char) == 2 and char not in _NO_START):
            cut = len(line) - 1
        if char in _CLAUSE_END:
            clause = len(line)
        if width(line) > limit and cut > len(indent):
            before = width(line[:clause]) if clause > 0 else 0
            at = clause if limit * 2 <= before * 3 and before <= limit else cut
            head, line = line[:at].rstrip(), line[at:].lstrip()
            lines.append(head)
            line = indent + line
            cut = clause = -1
    if line.strip():
        lines.append(line)
    return lines


def _row(item: ItemStats, language: str, widths: list[int]) -> list[str]:
    """One item as table lines: the options column wraps under itself when it is too long."""
    cells = [
        pad(str(item.question.number), widths[0], right=True),
        pad(str(item.learners), widths[1], right=True),
        pad(percent(item.difficulty), widths[2], right=True),
        pad(correlation(item.discrimination), widths[3], right=True),
    ]
    lead = "  ".join(cells) + "  "
    room = WIDTH - width(lead)
    flag = mark(item, language)
    # Each option in a cell of its own width (label, share right-aligned, ✓ or a space): the
    # options line up from row to row.
    parts = [
        f"{option_label(item, o.token, language)} {percent(o.picks / max(1, item.learners)):>4}"
        + ("✓" if o.correct else " ")
        for o in item.options
    ]
    parts = parts or ["—"]
    chunks: list[str] = []  # the options, as many to a line as fit
    for part in parts:
        if chunks and width(chunks[-1] + " " + part) <= room - width(flag) - 1:
            chunks[-1] += " " + part
        else:
            chunks.append(part)
    lines = [lead + chunks[0]] + [" " * width(lead) + chunk for chunk in chunks[1:]]
    if flag:  # at the right edge of the last line (the chunks left it room)
        lines[-1] = pad(lines[-1], WIDTH - width(flag) - 1) + " " + flag
    return [line.rstrip() for line in lines]


def table_lines(stats: BankStatistics, reports: list[Report], language: str) -> list[str]:
    """The whole output: header, flagged items with their reports, then every item's row."""
    grouped = by_question(reports)
    lines: list[str] = []
    for line in header_lines(stats, language):
        lines += wrap(printable(line))
    if not stats.answers:
        return [*lines, t(language, "itemstats.no_answers")]
    lines.append("")
    for line in map(printable, flagged_block(stats, grouped, language)):
        indent = " " * (len(line) - len(line.lstrip()))
        lines += wrap(line, indent=indent + "  " if indent else "  ")
    lines += ["", t(language, "cli.stats.heading")]
    # The type is left to the CSV file: the table keeps its room for the options.
    columns = ("number", "learners", "difficulty", "discrimination", "options")
    heads = [t(language, f"itemstats.col.{c}") for c in columns]
    widths = [
        max(width(heads[0]), *(len(str(i.question.number)) for i in stats.items)),
        max(width(heads[1]), *(len(str(i.learners)) for i in stats.items)),
        max(width(heads[2]), 4),
        max(width(heads[3]), 5),
    ]
    head = "  ".join(pad(h, w, right=True) for h, w in zip(heads, widths, strict=False))
    lines.append((head + "  " + heads[4]).rstrip())
    for item in stats.items:
        lines += _row(item, language, widths)
    return lines


def _configured(config_path: str | None, name: str) -> tuple[Config, dict[str, Bank], Bank | None]:
    """The config, its banks, and the bank named (or read from the file named), if one is."""
    from bank.loader import load_bank_report
    from studybot.bootstrap import load_all_banks
    from studybot.config import load_config

    config = load_config(config_path)
    banks = load_all_banks(config)
    bank = banks.get(name)
    if bank is None and Path(name).is_file():
        bank = load_bank_report(name)[0]
    return config, banks, bank


async def _read(config: Config, known: list[str], bank: Bank | None, name: str) -> Read:
    """The bank (an uploaded one found by id), the banks known, its answers and open reports."""
    from adapters.storage.backends import POSTGRES_SCHEMES, open_storage
    from bank.uploads import UploadCodec

    url = config.database_url.get_secret_value() if config.database_url is not None else None
    postgres = bool(url and url.startswith(POSTGRES_SCHEMES))
    if not postgres and not await asyncio.to_thread(config.database_path.exists):
        return bank, known, [], []  # no database yet: no answers (and none is made)
    storage = await open_storage(url, config.database_path)
    try:
        if bank is None:  # an uploaded bank: by its id, or by its name when one bank has it
            stored_banks = await storage.banks.stored_banks()
            known += [stored.id for stored in stored_banks]
            found = [s for s in stored_banks if s.id == name] or [s for s in stored_banks if s.name == name]
            if len(found) == 1:
                bank = await asyncio.to_thread(UploadCodec().decode, found[0].data)
        if bank is None:
            return None, known, [], []
        answers = await storage.item_answers.item_answers(bank.id)
        return bank, known, answers, await storage.reports.open_reports(bank.id)
    finally:
        await storage.close()


def run_stats(name: str, csv_path: str | None, config_path: str | None, language: str,
              out: TextIO | None = None, err: TextIO | None = None) -> int:  # fmt: skip
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    from studybot.config import ConfigError

    try:
        config, banks, bank = _configured(config_path, name)
    except ConfigError as exc:
        print(f"studybot: {exc}", file=err)
        return 2
    bank, known, answers, reports = asyncio.run(_read(config, sorted(banks), bank, name))
    if bank is None:
        print(t(language, "cli.stats.unknown_bank", bank=name, known=", ".join(known) or "—"), file=err)
        return 1
    stats = compute(bank, answers)
    print("\n".join(table_lines(stats, reports, language)), file=out)
    if csv_path is not None:
        target = Path(csv_path)
        try:
            target.write_bytes(csv_bytes(stats, reports, language))
        except OSError as exc:
            print(
                t(language, "cli.stats.cannot_write", target=target, reason=os_error_text(language, exc)),
                file=err,
            )
            return 2
        print(t(language, "cli.stats.wrote", target=target, count=len(stats.items)), file=err)
    return 0


def _command(args: argparse.Namespace) -> int:
    return run_stats(args.bank, args.csv, getattr(args, "config", None), getattr(args, "language", "zh-CN"))


def add_stats_parser(subparsers: argparse._SubParsersAction, language: str = "en") -> argparse.ArgumentParser:
    """Add the `stats` sub-command to `subparsers` (help in `language`)."""
    from studybot.cli_language import add_command

    parser = add_command(
        subparsers,
        language,
        "stats",
        help=t(language, "cli.stats.help"),
        description=t(language, "cli.stats.description"),
    )
    parser.add_argument(
        "bank", metavar=t(language, "cli.metavar.bank"), help=t(language, "cli.stats.bank_help")
    )
    parser.add_argument(
        "--csv", metavar=t(language, "cli.metavar.file"), help=t(language, "cli.stats.csv_help")
    )
    parser.set_defaults(func=_command)
    return parser
