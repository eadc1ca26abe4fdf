"""Error reports (纠错) on PostgreSQL: the same records as the SQLite store
(adapters/storage/report_store.py, whose query and row conversion this shares)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from adapters.storage.postgres.store import PostgresStore, affected
from adapters.storage.report_store import REPORT_SELECT, report_from_row
from adapters.storage.sql import to_db
from bot.study.records import Report


class PostgresReportStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def add_report(self, report: Report) -> int:
        async with self.store.transaction() as db:
            report_id = await db.fetchval(
                "INSERT INTO reports "
                "(user_id, chat_id, bank_id, bank_version, question_id, text, created_at, question_hash, "
                "message_ref) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                report.user_id, report.chat_id, report.bank_id, report.bank_version, report.question_id,
                report.text, to_db(report.created_at), report.question_hash, report.message_ref,
            )  # fmt: skip
        return int(report_id)

    async def open_reports(
        self,
        bank_id: str | None = None,
        chat_id: int | None = None,
        guild: tuple[str, str] | None = None,
        of_banks: Sequence[str] = (),
    ) -> list[Report]:
        where: list[str] = ["r.state = 'open'"]
        params: list[object] = []

        def param(value: object) -> str:
            params.append(value)
            return f"${len(params)}"

        if bank_id is not None:
            where.append(f"r.bank_id = {param(bank_id)}")
        scopes: list[str] = []
        if chat_id is not None:
            scope = f"r.chat_id = {param(chat_id)}"
            if guild is not None:
                scope += (
                    f" OR r.chat_id IN (SELECT id FROM chats WHERE platform = {param(guild[0])}"
                    f" AND guild_key = {param(guild[1])})"
                )
            scopes.append(scope)
        if of_banks:  # the banks the caller looks after: their reports from any chat
            scopes.append(f"r.bank_id = ANY({param(list(of_banks))}::text[])")
        if scopes:
            where.append("(" + " OR ".join(scopes) + ")")
        rows = await self.store.all(
            REPORT_SELECT + "WHERE " + " AND ".join(where) + " ORDER BY r.id", *params
        )
        return [report_from_row(r) for r in rows]

    async def get_report(self, report_id: int) -> Report | None:
        row = await self.store.one(REPORT_SELECT + "WHERE r.id = $1", report_id)
        return report_from_row(row) if row else None

    async def close_report(self, report_id: int, state: str, note: str, at: datetime) -> bool:
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE reports SET state = $1, note = $2, closed_at = $3 WHERE id = $4 AND state = 'open'",
                state, note, to_db(at), report_id,
            )  # fmt: skip
        return affected(status) > 0
