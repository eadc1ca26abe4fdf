"""A bank's admin page (bot/application/study/bank_admin.py) as the web client's JSON: the flagged
items and those with open error reports in full (difficulty, discrimination, each option's
picks, why it is flagged, the reports to close), the other items one short row each. Every
sentence from the catalogs, through the same pieces as `/bank stats` (bot/views/item_statistics_text.py).
"""

from __future__ import annotations

from typing import Any

from bot.application.study.bank_admin import BankAdminView, OwnedBank
from bot.locales.i18n import bank_text, t
from bot.views.item_statistics_text import (
    correlation,
    flag_sentences,
    header_lines,
    item_heading,
    mark,
    option_label,
    percent,
    report_line,
)

STEM_SHOWN = 160  # characters of an item's stem on its card


def banks(owned: tuple[OwnedBank, ...], language: str) -> dict[str, Any]:
    return {
        "banks": [{"id": b.bank_id, "title": bank_text(language, b.title), "items": b.items} for b in owned]
    }


def _report(report: Any, language: str) -> dict[str, Any]:
    return {"id": report.id, "line": report_line(report, language)}


def bank_admin(view: BankAdminView) -> dict[str, Any]:
    lang, stats = view.language, view.stats
    cards, others = [], []
    for item in stats.items:
        reports = view.reports.get(item.question.id, ())
        if not item.flags and not reports:
            line = t(lang, "itemstats.short", number=item.question.number,
                     learners=t(lang, "itemstats.learners", count=item.learners),
                     difficulty=percent(item.difficulty), discrimination=correlation(item.discrimination),
                     mark=mark(item, lang)).rstrip()  # fmt: skip
            others.append({"number": item.question.number, "line": line})
            continue
        stem = item.question.stem
        cards.append({
            "number": item.question.number, "question_id": item.question.id, "flagged": bool(item.flags),
            "heading": item_heading(item, lang), "mark": mark(item, lang),
            "stem": stem if len(stem) <= STEM_SHOWN else stem[: STEM_SHOWN - 1] + "…",
            "why": flag_sentences(item, lang),
            "options": [{"label": option_label(item, o.token, lang), "correct": o.correct,
                         "share": percent(o.picks / item.learners) if item.learners else "—",
                         "width": round(100 * o.picks / item.learners) if item.learners else 0,
                         "rival": o.token == item.rival} for o in item.options],
            "reports": [_report(r, lang) for r in reports],
        })  # fmt: skip
    flagged = len(stats.flagged)
    return {
        "kind": "bank_admin", "bank_id": stats.bank.id,
        "header": header_lines(stats, lang) if stats.answers else
                  [header_lines(stats, lang)[0], t(lang, "itemstats.no_answers")],
        "flagged_title": t(lang, "itemstats.flagged", count=flagged) if flagged else
                         t(lang, "itemstats.none_flagged"),
        "cards": cards,
        "others_title": t(lang, "itemstats.others", count=len(others)) if others else "",
        "others": others,
        "orphans": [_report(r, lang) for r in view.orphans],
    }  # fmt: skip
