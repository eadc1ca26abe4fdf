"""The study views laid out as text (console: plain; Telegram: HTML), through the same Markup
as the rest of bot/text.py."""

from __future__ import annotations

from bot.i18n import t
from bot.kinds import InputKind
from bot.study.views import (
    FavouritesView,
    MistakesView,
    MockQuestionView,
    MockReportView,
    MockSheetView,
    ProgressView,
    ReportsView,
    RunSummaryView,
    StudyView,
)
from bot.text import PLAIN, Markup, render_stats


def _pts(value: float) -> str:
    return f"{value:g}"


def clock(seconds: int) -> str:
    hours, rest = divmod(max(0, seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def render_mock_question(view: MockQuestionView, m: Markup = PLAIN) -> str:
    lang = view.language
    lines: list[str] = []
    if view.intro is not None:
        intro = view.intro
        key = "mock.resumed" if intro.resumed else "mock.started"
        lines.append(m.bold(t(lang, key, title=intro.title)))
        lines.append(
            t(
                lang,
                "mock.paper",
                count=sum(c for _, c, _ in intro.sections),
                sections=len(intro.sections),
                total=_pts(intro.total),
                minutes=intro.minutes,
                pass_mark=_pts(intro.pass_mark),
            )
        )
        for qtype, count, points in intro.sections:
            lines.append(
                "  "
                + t(lang, "mock.section", qtype=t(lang, f"type.{qtype}"), count=count, points=_pts(points))
            )
        lines += [t(lang, "mock.how"), ""]
    if view.saved is not None:
        lines.append(t(lang, "mock.saved", number=view.saved))
    header = t(
        lang,
        "mock.question_header",
        number=view.number,
        count=view.count,
        qtype=t(lang, f"type.{view.qtype}"),
        points=_pts(view.points),
        left=clock(view.remaining),
    )
    lines.append(m.bold(header) + (" 🚩" if view.flagged else ""))
    lines.append(m.escape(view.stem))
    lines += [f"{letter}. {m.escape(text)}" for letter, text in view.options]
    if view.input_kind is InputKind.TRUE_FALSE:
        lines.append(t(lang, "mock.how_judge", number=view.number))
    elif view.input_kind in (InputKind.CHOOSE_ONE, InputKind.CHOOSE_MANY):
        lines.append(t(lang, "mock.how_choice", number=view.number))
    else:
        lines.append(t(lang, "mock.how_text", number=view.number))
    if view.response is not None:
        lines.append(t(lang, "mock.your_answer", answer=m.escape(view.response)))
    return "\n".join(lines)


def render_mock_sheet(view: MockSheetView, m: Markup = PLAIN) -> str:
    lang = view.language
    lines = [
        m.bold(
            t(lang, "mock.sheet_title", answered=view.answered, count=view.count, left=clock(view.remaining))
        )
    ]
    for row in view.rows:
        cells = [
            f"{n}{'✓' if answered else '·'}{'🚩' if flagged else ''}" for n, answered, flagged in row.items
        ]
        lines.append(f"{t(lang, f'type.{row.qtype}')}: " + " ".join(cells))
    lines.append(t(lang, "mock.sheet_legend"))
    return "\n".join(lines)


def render_mock_report(view: MockReportView, m: Markup = PLAIN) -> str:
    lang = view.language
    lines = []
    if view.timed_out:
        lines.append(t(lang, "mock.time_up_handed_in"))
    lines.append(m.bold(t(lang, "mock.score", score=_pts(view.score), total=_pts(view.total))))
    if view.passed is None:
        lines.append(t(lang, "mock.awaiting_grade", count=len(view.pending)))
    else:
        lines.append(t(lang, "mock.passed" if view.passed else "mock.failed", pass_mark=_pts(view.pass_mark)))
    minutes, seconds = divmod(view.used_seconds, 60)
    lines.append(t(lang, "mock.time_used", minutes=minutes, seconds=seconds))
    for qtype, score, full in view.sections:
        lines.append(
            "  "
            + t(
                lang,
                "mock.section_score",
                qtype=t(lang, f"type.{qtype}"),
                score=_pts(score),
                total=_pts(full),
            )
        )
    if view.wrong:
        lines += ["", m.bold(t(lang, "mock.wrong_title", count=len(view.wrong)))]
        for item in view.wrong:
            given = m.escape(item.given) if item.given else t(lang, "mock.blank")
            lines.append(f"{item.number}. {m.escape(item.stem)}")
            lines.append("   " + t(lang, "mock.wrong_row", given=given, right=m.escape(item.right)))
            if item.explanation:
                lines.append("   " + m.italic(m.escape(item.explanation)))
    if view.pending:
        lines += ["", m.bold(t(lang, "mock.grade_title"))]
        for short in view.pending:
            lines.append(f"{short.number}. {m.escape(short.stem)}")
            lines.append("   " + t(lang, "mock.your_answer", answer=m.escape(short.response)))
            lines.append("   " + t(lang, "mock.reference", answer=m.escape(short.reference)))
            lines += [f"   • {m.escape(p)}" for p in short.key_points]
            lines.append("   " + t(lang, "mock.grade_how", number=short.number))
    return "\n".join(lines)


def render_mistakes(view: MistakesView, m: Markup = PLAIN) -> str:
    lang = view.language
    if not view.size:
        return t(lang, "mistakes.none")
    lines = [m.bold(t(lang, "mistakes.header", count=view.size, graduate=view.graduate_after))]
    for tag, qtype, rows in view.groups:
        lines += ["", m.bold(f"{m.escape(tag)} · {t(lang, f'type.{qtype}')}")]
        for row in rows:
            stem = row.stem if len(row.stem) <= 60 else row.stem[:59] + "…"
            lines.append(f"{row.number}. {m.escape(stem)} " + t(lang, "mistakes.misses", count=row.misses))
    lines += ["", t(lang, "mistakes.how")]
    return "\n".join(lines)


def render_favourites(view: FavouritesView, m: Markup = PLAIN) -> str:
    lang = view.language
    if not view.rows:
        return t(lang, "favorites.none")
    lines = [m.bold(t(lang, "favorites.header", count=len(view.rows)))]
    for number, qtype, stem in view.rows:
        short = stem if len(stem) <= 60 else stem[:59] + "…"
        lines.append(f"{number}. [{t(lang, f'type.{qtype}')}] {m.escape(short)}")
    return "\n".join(lines)


def _pct(right: int, total: int) -> str:
    return f"{100 * right / total:.0f}%" if total else "—"


def render_progress(view: ProgressView, m: Markup = PLAIN) -> str:
    lang = view.language
    if view.group:
        lines = [m.bold(t(lang, "progress.group_title"))]
        if not view.by_tag:
            lines.append(t(lang, "progress.nothing"))
        lines += [f"{m.escape(tag)}: {_pct(r, n)} ({r}/{n})" for tag, r, n in view.by_tag]
        return "\n".join(lines)
    lines = [render_stats(view.summary, m), ""] if view.summary is not None else []
    lines += [
        m.bold(t(lang, "progress.title")),
        t(lang, "progress.coverage", done=view.practised, total=view.bank_size),
    ]
    for qtype, right, total in view.by_type:
        lines.append(
            "  "
            + t(
                lang,
                "progress.accuracy_row",
                label=t(lang, f"type.{qtype}"),
                pct=_pct(right, total),
                right=right,
                total=total,
            )
        )
    if view.by_tag:
        lines.append(t(lang, "progress.weakest"))
        lines += [
            "  " + t(lang, "progress.accuracy_row", label=m.escape(tag), pct=_pct(r, n), right=r, total=n)
            for tag, r, n in view.by_tag[:5]
        ]
    lines.append(t(lang, "progress.notebook", count=view.notebook))
    lines.append(t(lang, "progress.due", today=view.due_today, week=view.due_week))
    if view.summary is None:  # the summary has the streak already
        lines.append(t(lang, "progress.streak", count=view.streak))
    if view.mocks:
        lines.append(t(lang, "progress.mocks"))
        lines += [
            "  "
            + t(
                lang,
                "progress.mock_row",
                date=date,
                score=_pts(score),
                total=_pts(total),
                verdict=t(lang, "mock.pass_word" if passed else "mock.fail_word"),
            )
            for date, score, total, passed in view.mocks
        ]
    return "\n".join(lines)


def render_reports(view: ReportsView, m: Markup = PLAIN) -> str:
    lang = view.language
    if not view.rows:
        return t(lang, "reports.none")
    lines = [m.bold(t(lang, "reports.header", count=len(view.rows)))]
    for row in view.rows:
        lines.append(
            t(
                lang,
                "reports.row",
                id=row.id,
                number=row.question_number,
                reporter=m.escape(row.reporter),
                date=row.created,
                text=m.escape(row.text),
            )
        )
    lines.append(t(lang, "reports.how"))
    return "\n".join(lines)


def run_mode(view: RunSummaryView) -> str:
    """The run's mode as the summary names it: 顺序练习, 题型练习 · 单选题, 标签练习 · ml, …"""
    lang = view.language
    if view.mode == "random" and (view.qtype or view.tags):
        parts = ([t(lang, f"type.{view.qtype}")] if view.qtype else []) + list(view.tags)
        return t(lang, "drill.mode.filtered", filter=" / ".join(parts))
    return t(lang, f"drill.mode.{view.mode}")


def render_run_summary(view: RunSummaryView, m: Markup = PLAIN) -> str:
    lang = view.language
    pct = f"{100 * view.right / view.answered:.0f}%" if view.answered else "—"
    minutes, seconds = divmod(view.seconds, 60)
    lines = [
        m.bold(m.escape(t(lang, "drill.summary_title", mode=run_mode(view)))),
        m.escape(t(lang, "drill.summary_counts", answered=view.answered, right=view.right, pct=pct)),
        m.escape(t(lang, "drill.summary_mistakes", count=view.new_mistakes)),
        m.escape(t(lang, "drill.summary_time", minutes=minutes, seconds=seconds)),
    ]
    if view.finished:
        lines.append(m.escape(t(lang, "drill.finished")))
    if view.detail:
        lines.append(m.escape(view.detail))
    lines.append(m.escape(t(lang, "drill.summary_how")))
    return "\n".join(lines)


def render_study(view: StudyView, m: Markup = PLAIN) -> str:
    if isinstance(view, MockQuestionView):
        return render_mock_question(view, m)
    if isinstance(view, MockSheetView):
        return render_mock_sheet(view, m)
    if isinstance(view, MockReportView):
        return render_mock_report(view, m)
    if isinstance(view, MistakesView):
        return render_mistakes(view, m)
    if isinstance(view, FavouritesView):
        return render_favourites(view, m)
    if isinstance(view, ProgressView):
        return render_progress(view, m)
    if isinstance(view, RunSummaryView):
        return render_run_summary(view, m)
    return render_reports(view, m)
