"""A bank's admin pages (the web app's 题库管理): for the people who look after a bank, the banks
they own, each bank's question statistics beside its open error reports, and closing a report
with a note.

Nothing here decides who owns what: the owners are `BankOwners.banks_of` (the rule `/reports`
and `/bank stats` use), the statistics and their owner check are `owned_statistics`
(bot/application/study/bank_stats.py), and a report is closed by `ErrorReports.close_report`,
the same as `/reports resolve|dismiss` (its scope check, its notice to the reporter). A bank
the caller does not own is refused with `itemstats.not_owner`, whether or not it exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.application.quiz_settings import QuizError
from bot.application.requests import Caller
from bot.application.study.bank_stats import owned_statistics
from bot.application.study.error_reports import ErrorReports
from bot.domain.item_statistics import BankStatistics
from bot.domain.study_records import Report
from bot.ports.study_storage import ItemAnswerStore

STATES = ("resolved", "dismissed")


@dataclass(frozen=True, slots=True)
class OwnedBank:
    bank_id: str
    title: str
    items: int


@dataclass(frozen=True, slots=True)
class BankAdminView:
    """One bank's statistics (flagged items first) and its open reports, by question id; the
    reports on items no longer in the bank apart."""

    language: str
    stats: BankStatistics
    reports: dict[str, tuple[Report, ...]]
    orphans: tuple[Report, ...]


class BankAdmin:
    def __init__(self, reports: ErrorReports, answers: ItemAnswerStore) -> None:
        self.errors = reports
        self.answers = answers

    def owned(self, caller: Caller) -> tuple[OwnedBank, ...]:
        """The banks the caller looks after from this chat (none: they see no admin page)."""
        owners, banks = self.errors.owners, self.errors.quiz.banks
        ids = owners.banks_of(caller) if owners is not None else []
        return tuple(
            OwnedBank(bank_id, banks[bank_id].title or bank_id, len(banks[bank_id].questions))
            for bank_id in ids
            if bank_id in banks
        )

    async def statistics(self, caller: Caller, bank_id: str, language: str) -> BankAdminView:
        bank = self.errors.quiz.banks.get(bank_id)
        if bank is None:  # an unknown id is refused as a foreign one: nothing is said of it
            raise QuizError("itemstats.not_owner")
        stats, found = await owned_statistics(
            self.answers, self.errors.reports, self.errors.owners, caller, bank
        )
        known = {q.id for q in bank.questions}
        grouped: dict[str, list[Report]] = {}
        for report in found:
            if report.question_id in known:
                grouped.setdefault(report.question_id, []).append(report)
        orphans = tuple(r for r in found if r.question_id not in known)
        return BankAdminView(language, stats, {k: tuple(v) for k, v in grouped.items()}, orphans)

    async def close(self, caller: Caller, report_id: int, state: str, note: str, language: str) -> str:
        """Resolve or dismiss a report with a note, as `/reports resolve|dismiss` does; the
        sentence that says so (QuizError `reports.not_open` when the caller may not)."""
        if state not in STATES:
            raise ValueError(state)
        reply = await self.errors.close_report(caller, report_id, state, note, language)
        return getattr(reply.view, "text", "")
