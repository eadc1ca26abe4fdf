"""`studybot bank check --reports`: after the check, the items with open error reports whose
text in the bank file changed since they were reported (or that left the bank), each with its
reports, so an editor sees which reports a bank edit may have answered.

A report keeps the content hash of its item at report time
(bot/application/study/error_reports.question_hash);
reports from before that was kept compare the whole bank's version instead.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TextIO

from adapters.storage.report_store import SqlReportStore
from adapters.storage.sqlite.database import SqliteDatabase
from adapters.storage.sqlite.store import SqliteStore
from bank.check import default_bank_dir, run_check
from bank.compiled import default_cache_dir, load_bank_report_cached
from bank.loader import bank_files
from bot.application.study.error_reports import bank_version, question_hash
from bot.domain.questions import Bank
from bot.domain.study_records import Report


def add_reports_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reports", action="store_true",
        help="also list changed items that have open error reports (reads the data directory's database)",
    )  # fmt: skip
    parser.add_argument(
        "--database", type=Path, default=None, help="the database file (default: from the config)"
    )
    check = parser.get_default("func")

    def run(args: argparse.Namespace) -> int:
        status: int = check(args)
        if args.reports:
            database = args.database
            if database is None:
                from studybot.config import Config

                database = Config().database_path
            print_changed_reports(args.paths, database)
        return status

    parser.set_defaults(func=run)


def changed_reports(banks: list[Bank], reports: list[Report]) -> list[str]:
    """One line per changed or removed item with open reports, then a line per report."""
    by_id = {b.id: b for b in banks}
    lines: list[str] = []
    grouped: dict[tuple[str, str], list[Report]] = {}
    for report in reports:
        if report.bank_id in by_id:
            grouped.setdefault((report.bank_id, report.question_id), []).append(report)
    for (bank_id, question_id), items in grouped.items():
        bank = by_id[bank_id]
        question = next((q for q in bank.questions if q.id == question_id), None)
        if question is None:
            lines.append(f"{bank_id}: [{question_id}] left the bank; {len(items)} open report(s)")
        else:
            changed = [
                r for r in items
                if (r.question_hash or r.bank_version)
                != (question_hash(question) if r.question_hash else bank_version(bank))
            ]  # fmt: skip
            if not changed:
                continue
            items = changed
            lines.append(f"{bank_id}: [{question_id}] question {question.number} changed since reported; "
                         f"{len(items)} open report(s)")  # fmt: skip
        lines += [
            f"  #{r.id} {r.created_at.date().isoformat()} {r.reporter or r.user_id}: {r.text}" for r in items
        ]
    return lines


def print_changed_reports(paths: list[str], database: Path, out: TextIO | None = None) -> None:
    files = bank_files([str(p) for p in paths] or [str(default_bank_dir())])
    banks = [b for b in (load_bank_report_cached(f, default_cache_dir())[0] for f in files) if b is not None]
    if not database.exists():
        print(f"reports: no database at {database}", file=out)
        return
    reports = asyncio.run(_open_reports(database))
    lines = changed_reports(banks, reports)
    print("\n".join(lines) if lines else "reports: no reported item changed", file=out)


async def _open_reports(database: Path) -> list[Report]:
    store = await SqliteStore.open(database)
    try:
        return await SqlReportStore(SqliteDatabase(store)).open_reports()
    finally:
        await store.close()


__all__ = ["add_reports_option", "changed_reports", "print_changed_reports", "run_check"]
