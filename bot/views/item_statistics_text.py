"""The question statistics (bot/domain/item_statistics.py) as people read them, every word from the
catalogs: the pieces of an item's line (its numbers, its options, its flag), the chat's text
for `/bank stats` (the flagged items in full with their open error reports, then the others in
short, within a chat message's length) and the CSV file with every item. The command line's
table (studybot/bank_stats.py) is built from the same pieces.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from bot.domain.item_statistics import (
    MIN_LEARNERS,
    MIN_REST_ITEMS,
    TOP_SHARE,
    BankStatistics,
    Flag,
    ItemStats,
)
from bot.domain.question_types import TYPES
from bot.domain.study_records import Report
from bot.locales.i18n import bank_text, t
from bot.views.quiz_text import numbers

CHAT_BUDGET = 1800  # characters: under Discord's 2,000 for a message, with room for the header


def percent(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.0f}%"


def correlation(value: float | None) -> str:
    return "—" if value is None else f"{value:+.2f}"


def option_label(item: ItemStats, token: str, language: str) -> str:
    """An option as the learner saw it named: its letter, or 对/错 for a true/false item."""
    views = TYPES[item.question.type].option_views(item.question, language)
    return next((view.label for view in views if view.token == token), token)


def options_text(item: ItemStats, language: str, sep: str = " · ") -> str:
    """How often each option was picked, as shares of the item's learners; ✓ marks the key."""
    if not item.options or not item.learners:
        return ""
    parts = []
    for option in item.options:
        mark = "✓" if option.correct else ""
        parts.append(
            f"{option_label(item, option.token, language)} {percent(option.picks / item.learners)}{mark}"
        )
    return sep.join(parts)


def mark(item: ItemStats, language: str) -> str:
    """The short mark of an item's row: its flag, or that it has too few answers."""
    if Flag.KEY in item.flags:
        return t(language, "itemstats.mark.key")
    if Flag.NONE_RIGHT in item.flags:
        return t(language, "itemstats.mark.none_right")
    return "" if item.enough else t(language, "itemstats.mark.too_few")


def flag_sentences(item: ItemStats, language: str) -> list[str]:
    """Why the item is flagged, one sentence a flag."""
    out = []
    if Flag.KEY in item.flags and item.rival is not None:
        least_key = min((o for o in item.options if o.correct), key=lambda o: o.top_picks)
        rival, key = option_label(item, item.rival, language), option_label(item, least_key.token, language)
        out.append(t(language, "itemstats.flag.key", count=item.top_group, rival=rival,
                     rival_picks=item.rival_picks, key=key, key_picks=item.key_picks))  # fmt: skip
    if Flag.NONE_RIGHT in item.flags:
        out.append(t(language, "itemstats.flag.none_right", count=item.learners))
    return out


def item_heading(item: ItemStats, language: str) -> str:
    return t(
        language, "itemstats.item", number=item.question.number,
        type=t(language, f"type.{item.question.type}"),
        learners=t(language, "itemstats.learners", count=item.learners), difficulty=percent(item.difficulty),
        discrimination=correlation(item.discrimination),
    )  # fmt: skip


def report_line(report: Report, language: str) -> str:
    return t(language, "itemstats.report", id=report.id, reporter=report.reporter or str(report.user_id),
             date=report.created_at.date().isoformat(), text=report.text)  # fmt: skip


def by_question(reports: Iterable[Report]) -> dict[str, list[Report]]:
    grouped: dict[str, list[Report]] = {}
    for report in reports:
        grouped.setdefault(report.question_id, []).append(report)
    return grouped


def header_lines(stats: BankStatistics, language: str) -> list[str]:
    """The title, what the numbers rest on and the minimum samples."""
    sep = t(language, "itemstats.source_sep")
    sources = sep.join(t(language, f"itemstats.source.{s}", count=n) for s, n in stats.by_source)
    lines = [
        t(language, "itemstats.title", bank=bank_text(language, stats.bank.title or stats.bank.id)),
        t(
            language,
            "itemstats.summary",
            answers=t(language, "itemstats.answers", count=stats.answers),
            learners=t(language, "itemstats.learner_count", count=stats.learners),
            sources=sources or "—",
        ),
        t(language, "itemstats.rules", minimum=MIN_LEARNERS, rest=MIN_REST_ITEMS, top=round(100 * TOP_SHARE)),
    ]
    if stats.left_out:
        lines.append(t(language, "itemstats.left_out", count=stats.left_out))
    return lines


def flagged_block(stats: BankStatistics, reports: dict[str, list[Report]], language: str) -> list[str]:
    """The flagged items in full: numbers, options, why, and their open reports."""
    flagged = stats.flagged
    if not flagged:
        return [t(language, "itemstats.none_flagged")]
    lines = [t(language, "itemstats.flagged", count=len(flagged))]
    for item in flagged:
        lines.append(item_heading(item, language))
        if options := options_text(item, language):
            lines.append("  " + t(language, "itemstats.options", options=options))
        lines += ["  " + sentence for sentence in flag_sentences(item, language)]
        lines += ["  " + report_line(r, language) for r in reports.get(item.question.id, [])]
    return lines


def chat_text(stats: BankStatistics, reports: Iterable[Report], language: str) -> str:
    """`/bank stats`: the header, the flagged items in full, then the other items one short
    line each while the message has room (the CSV file has them all)."""
    if not stats.answers:
        return "\n".join([header_lines(stats, language)[0], t(language, "itemstats.no_answers")])
    grouped = by_question(reports)
    lines = [*header_lines(stats, language), "", *flagged_block(stats, grouped, language)]
    rest = [item for item in stats.items if not item.flags and item.learners]
    # Items nobody answered yet take one line, not one each.
    unanswered = [item.question.number for item in stats.items if not item.flags and not item.learners]
    if rest:
        lines += ["", t(language, "itemstats.others", count=len(rest))]
        used = sum(len(line) + 1 for line in lines)
        for index, item in enumerate(rest):
            line = t(language, "itemstats.short", number=item.question.number,
                     learners=t(language, "itemstats.learners", count=item.learners),
                     difficulty=percent(item.difficulty), discrimination=correlation(item.discrimination),
                     mark=mark(item, language)).rstrip()  # fmt: skip
            if reports_here := grouped.get(item.question.id):
                line += " " + t(language, "itemstats.reports_count", count=len(reports_here))
            if used + len(line) + 1 > CHAT_BUDGET:
                lines.append(t(language, "itemstats.more", count=len(rest) - index))
                break
            lines.append(line)
            used += len(line) + 1
    if unanswered:
        listed = numbers(unanswered, language)
        lines += ["", t(language, "itemstats.unanswered", count=len(unanswered), numbers=listed)]
    lines += ["", t(language, "itemstats.file_note")]
    return "\n".join(lines)


def csv_bytes(stats: BankStatistics, reports: Iterable[Report], language: str) -> bytes:
    """Every item, flagged first, one row each (UTF-8 with a BOM, so Excel reads the Chinese)."""
    grouped = by_question(reports)
    out = io.StringIO()
    writer = csv.writer(out)
    columns = ("number", "id", "type", "answers", "learners", "difficulty", "discrimination", "rest_learners",
               "top_group", "options", "top_options", "mark", "why", "reports")  # fmt: skip
    writer.writerow([t(language, f"itemstats.col.{c}") for c in columns])
    for item in stats.items:
        top = " · ".join(f"{option_label(item, o.token, language)} {o.top_picks}{'✓' if o.correct else ''}"
                         for o in item.options) if item.top_group else ""  # fmt: skip
        writer.writerow([
            item.question.number, item.question.id, t(language, f"type.{item.question.type}"), item.answers,
            item.learners, "" if item.difficulty is None else f"{item.difficulty:.3f}",
            "" if item.discrimination is None else f"{item.discrimination:.3f}", item.rest_learners,
            item.top_group, options_text(item, language), top, mark(item, language),
            " ".join(flag_sentences(item, language)),
            " | ".join(report_line(r, language) for r in grouped.get(item.question.id, [])),
        ])  # fmt: skip
    return ("\ufeff" + out.getvalue()).encode("utf-8")
