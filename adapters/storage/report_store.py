"""Error reports (纠错) on either backend: open ones listed for admins and for `studybot bank check`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.study_records import Report

REPORT_SELECT = """
SELECT r.id, r.user_id, r.chat_id, r.bank_id, r.bank_version, r.question_id, r.text, r.created_at, r.state,
       coalesce(r.note, ''), coalesce(u.display_name, ''), r.question_hash, r.message_ref
FROM reports r LEFT JOIN users u ON u.id = r.user_id
"""


def report_from_row(row: Sequence[Any]) -> Report:
    """A REPORT_SELECT row as a Report."""
    created = from_db(row[7])
    assert created is not None
    return Report(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        created,
        row[8],
        row[9],
        row[10],
        row[11],
        row[12],
    )


class SqlReportStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_report(self, report: Report) -> int:
        async with self.db.transaction() as tx:
            row = await tx.one(
                "INSERT INTO reports "
                "(user_id, chat_id, bank_id, bank_version, question_id, text, created_at, question_hash, "
                "message_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                report.user_id, report.chat_id, report.bank_id, report.bank_version, report.question_id,
                report.text, to_db(report.created_at), report.question_hash, report.message_ref,
            )  # fmt: skip
        assert row is not None
        return int(row[0])

    async def open_reports(
        self,
        bank_id: str | None = None,
        chat_id: int | None = None,
        guild: tuple[str, str] | None = None,
        of_banks: Sequence[str] = (),
    ) -> list[Report]:
        where: list[str] = ["r.state = 'open'"]
        params: list[object] = []
        if bank_id is not None:
            where.append("r.bank_id = ?")
            params.append(bank_id)
        scopes: list[str] = []
        if chat_id is not None:
            scope = "r.chat_id = ?"
            params.append(chat_id)
            if guild is not None:
                scope += " OR r.chat_id IN (SELECT id FROM chats WHERE platform = ? AND guild_key = ?)"
                params.extend(guild)
            scopes.append(scope)
        if of_banks:  # the banks the caller looks after: their reports from any chat
            scopes.append(f"r.bank_id IN ({', '.join('?' * len(of_banks))})")
            params.extend(of_banks)
        if scopes:
            where.append("(" + " OR ".join(scopes) + ")")
        rows = await self.db.all(REPORT_SELECT + "WHERE " + " AND ".join(where) + " ORDER BY r.id", *params)
        return [report_from_row(r) for r in rows]

    async def get_report(self, report_id: int) -> Report | None:
        row = await self.db.read_own(REPORT_SELECT + "WHERE r.id = ?", report_id)
        return report_from_row(row) if row else None

    async def close_report(self, report_id: int, state: str, note: str, at: datetime) -> bool:
        async with self.db.transaction() as tx:
            closed = await tx.execute(
                "UPDATE reports SET state = ?, note = ?, closed_at = ? WHERE id = ? AND state = 'open'",
                state, note, to_db(at), report_id,
            )  # fmt: skip
        return closed > 0
