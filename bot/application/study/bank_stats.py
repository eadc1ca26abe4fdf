"""`/bank stats [bank]`: the question statistics of a bank (bot/domain/item_statistics.py) for the
people who look after it (bot/application/study/bank_owners.py, the same owners `/reports` lists for): the
flagged items first beside their open error reports, the rest in short, and every item's
numbers in a CSV file. The chat's own bank when none is named.

The answers are read from storage in one pass and the statistics computed in a worker thread:
a bank with many answers must not hold the event loop.
"""

from __future__ import annotations

import asyncio

from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import FileView, Reply, TextView
from bot.application.requests import Caller
from bot.application.study.bank_owners import BankOwners
from bot.domain.item_statistics import BankStatistics, compute
from bot.domain.questions import Bank
from bot.domain.study_records import Report
from bot.locales.i18n import bank_text, t
from bot.ports.study_storage import ItemAnswerStore, ReportStore
from bot.views.item_statistics_text import chat_text, csv_bytes


def _named(quiz: Quiz, owners: BankOwners | None, caller: Caller, name: str) -> Bank | None:
    """The bank `name` names as `/bank use` reads it: a name `/bank list` shows here (this
    chat's own upload first), else a bank's id, else the name of a bank the caller looks after
    (an uploader in their private chat)."""
    uploads = owners.uploads if owners is not None else None
    if uploads is not None:
        visible = uploads.visible(caller.chat)
        found = [b for n, b in visible if n == name and b.id in uploads.uploaded]
        found = found or [b for n, b in visible if n == name]
        if found:
            return found[0]
    if name in quiz.banks:
        return quiz.banks[name]
    if uploads is not None and owners is not None:
        for bank_id in owners.banks_of(caller):
            stored = uploads.uploaded.get(bank_id)
            if stored is not None and stored.name == name and bank_id in quiz.banks:
                return quiz.banks[bank_id]
    return None


async def owned_statistics(
    answers: ItemAnswerStore, reports: ReportStore, owners: BankOwners | None, caller: Caller, bank: Bank
) -> tuple[BankStatistics, list[Report]]:
    """The statistics of `bank` and its open reports, for one of its owners only (else
    `itemstats.not_owner`): what `/bank stats` shows and the web app's admin page
    (bot/application/study/bank_admin.py)."""
    if owners is None or bank.id not in owners.banks_of(caller):
        raise QuizError("itemstats.not_owner")
    read = await answers.item_answers(bank.id)
    stats = await asyncio.to_thread(compute, bank, read)
    return stats, await reports.open_reports(bank.id)


async def bank_stats(
    quiz: Quiz, answers: ItemAnswerStore, reports: ReportStore, owners: BankOwners | None,
    caller: Caller, named: str | None, language: str,
) -> Reply:  # fmt: skip
    bank = _named(quiz, owners, caller, named) if named else quiz.bank_for(await quiz.chat(caller.chat))
    if bank is None:
        raise QuizError("error.unknown_bank", bank=named, banks=", ".join(sorted(quiz.banks)))
    stats, open_reports = await owned_statistics(answers, reports, owners, caller, bank)
    text = chat_text(stats, open_reports, language)
    data = await asyncio.to_thread(csv_bytes, stats, open_reports, language)
    caption = t(language, "itemstats.file_caption", bank=bank_text(language, bank.title or bank.id))
    return Reply(TextView(text), language, files=(FileView(f"{bank.id}-stats.csv", data, caption),))
