"""The study views laid out as text (console: plain; Telegram: HTML), through the same Markup
as the rest of bot/views/quiz_text.py; the mock exam's are in bot/views/mock_exam_text.py."""

from __future__ import annotations

from bot.domain.mastery import Point
from bot.domain.readiness import DayForecast
from bot.locales.i18n import bank_text, t
from bot.views.exam_text import countdown
from bot.views.mock_exam_text import (
    render_mock_confirm,
    render_mock_question,
    render_mock_report,
    render_mock_review,
    render_mock_sheet,
)
from bot.views.progress import TEXT_TAGS
from bot.views.quiz_text import PLAIN, Markup, pressed, pts, render_stats
from bot.views.study import (
    FavouritesView,
    MistakesView,
    MockConfirmView,
    MockQuestionView,
    MockReportView,
    MockReviewView,
    MockSheetView,
    ProgressView,
    ReadyView,
    ReportsView,
    RunSummaryView,
    StudyView,
    WeakView,
)


def render_mistakes(view: MistakesView, m: Markup = PLAIN) -> str:
    lang = view.language
    if not view.size:
        return t(lang, "mistakes.none")
    lines = [m.bold(t(lang, "mistakes.header", count=view.size, graduate=view.graduate_after))]
    if any(cause for cause, _ in view.causes):  # the learner tagged causes: how they add up
        parts = [t(lang, "mistakes.cause_count", cause=cause_name(lang, cause), count=count)
                 for cause, count in view.causes]  # fmt: skip
        lines.append(m.escape(t(lang, "mistakes.by_cause", causes=" · ".join(parts))))
    for tag, qtype, rows in view.groups:
        lines += ["", m.bold(f"{m.escape(tag)} · {t(lang, f'type.{qtype}')}")]
        for row in rows:
            stem = row.stem if len(row.stem) <= 60 else row.stem[:59] + "…"
            cause = f"[{cause_name(lang, row.cause)}] " if row.cause else ""
            misses = t(lang, "mistakes.misses", count=row.misses)
            lines.append(f"{row.number}. {cause}{m.escape(stem)} {misses}")
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


def _tag_rows(view: ProgressView, m: Markup) -> tuple[bool, list[str]]:
    """Whether some tags are weaker than others, and the rows to show: the weak ones, weakest
    first, when there are; else every tag (all at the same accuracy: none is the weakest)."""
    weak = view.weak_tags
    rows = weak or view.by_tag
    return bool(weak), [
        t(view.language, "progress.accuracy_row", label=m.escape(tag), pct=_pct(r, n), right=r, total=n)
        for tag, r, n in rows[:TEXT_TAGS]
    ]


def render_progress(view: ProgressView, m: Markup = PLAIN) -> str:
    lang = view.language
    weak, tag_rows = _tag_rows(view, m)
    if view.group:
        title = "progress.group_title" if weak or not view.by_tag else "progress.group_by_tag"
        lines = [m.bold(t(lang, title))]
        if not view.by_tag:
            lines.append(t(lang, "progress.nothing"))
        return "\n".join(lines + tag_rows)
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
    if tag_rows:
        lines.append(t(lang, "progress.weakest" if weak else "progress.by_tag"))
        lines += ["  " + row for row in tag_rows]
    lines.append(t(lang, "progress.notebook", count=view.notebook))
    lines.append(t(lang, "progress.due_days", today=view.due_today, week=view.due_week))
    if view.summary is None:  # the summary has the streak already
        lines.append(t(lang, "progress.streak", count=view.streak))
    if view.exam_days is not None and view.exam_days >= 0:
        lines.append(countdown(lang, view.exam_days))
    if view.mocks:
        lines.append(t(lang, "progress.mocks"))
        lines += [
            "  "
            + t(
                lang,
                "progress.mock_row",
                date=date,
                score=pts(score),
                total=pts(total),
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


def render_run_summary(view: RunSummaryView, m: Markup = PLAIN, *, how: bool = True) -> str:
    """The summary; `how`: with its last line, how to go on (not above a new run's question)."""
    lang = view.language
    pct = f"{100 * view.right / view.answered:.0f}%" if view.answered else "—"
    minutes, seconds = divmod(view.seconds, 60)
    lines = [m.escape(view.lead), ""] if view.lead else []
    lines.append(m.bold(m.escape(t(lang, "drill.summary_title", mode=run_mode(view)))))
    if view.answered:
        lines += [
            m.escape(t(lang, "drill.summary_counts", answered=view.answered, right=view.right, pct=pct)),
            m.escape(t(lang, "drill.summary_mistakes", count=view.new_mistakes)),
            m.escape(t(lang, "drill.summary_time", minutes=minutes, seconds=seconds)),
        ]
    else:  # no 作答 0 题 · 正确率 — · 用时 0 分 0 秒: nothing was answered
        lines.append(m.escape(t(lang, "drill.summary_none")))
    if view.finished:
        lines.append(m.escape(t(lang, "drill.finished")))
    if view.detail:
        lines.append(m.escape(view.detail))
    if how:
        # A review with nothing more due: "next" would only say so again, so /quiz (and /review
        # once a card is due; the detail says when).
        finished_review = view.finished and view.mode == "review"
        lines.append(m.escape(t(lang, "drill.summary_how_quiz" if finished_review else "drill.summary_how")))
    return "\n".join(lines)


def cause_name(language: str, cause: str) -> str:
    """A mistake cause as the learner picked it (概念不清, 粗心, …); "" is "not tagged"."""
    return t(language, f"cause.{cause or 'none'}")


def point_name(language: str, point: Point) -> str:
    """A point's name: its type's, or its tag's display name in the chat's script (else the slug)."""
    if point.is_type:
        return t(language, f"type.{point.name}")
    return bank_text(language, point.label or point.name)


def _share(share: float) -> str:
    return f"{100 * share:.0f}%"


def _point_line(language: str, point: Point, m: Markup) -> str:
    return m.escape(t(
        language, "weak.row", name=point_name(language, point), recall=_share(point.recall),
        seen=point.seen, items=point.items, due=point.due, notebook=point.in_notebook,
    ))  # fmt: skip


def render_weak(view: WeakView, m: Markup = PLAIN) -> str:
    lang = view.language
    if not view.weakest:
        return m.escape(t(lang, "weak.none"))
    lines = [m.bold(m.escape(t(lang, "weak.title", count=len(view.weakest))))]
    lines += [f"{k}. " + _point_line(lang, p, m) for k, p in enumerate(view.weakest, 1)]
    if view.types:
        lines += ["", m.bold(m.escape(t(lang, "weak.by_type")))]
        lines += ["· " + _point_line(lang, p, m) for p in view.types]
    lines += ["", m.escape(t(lang, "weak.based", count=view.answers))]
    lines.append(m.escape(t(lang, pressed("weak.how", m))))
    return "\n".join(lines)


def _forecast_lines(lang: str, view: ReadyView, day: DayForecast, key: str, m: Markup) -> list[str]:
    lines = [m.bold(m.escape(t(lang, key, day=view.exam_day)))]
    lines.append(m.escape(t(
        lang, "ready.score", expected=f"{day.expected:.1f}", total=pts(view.total), low=pts(day.low),
        high=pts(day.high),
    )))  # fmt: skip
    lines.append(m.escape(t(lang, "ready.pass", chance=_share(day.pass_chance), mark=pts(view.pass_mark))))
    return lines


def render_ready(view: ReadyView, m: Markup = PLAIN) -> str:
    lang = view.language
    if view.needed > 0 or view.today is None:
        too_few = t(lang, "ready.too_few", count=view.answers, minimum=view.minimum, needed=view.needed)
        return m.escape(too_few)
    lines = _forecast_lines(lang, view, view.today, "ready.today", m)
    for section in view.today.sections:
        lines.append("· " + m.escape(t(
            lang, "ready.section", type=t(lang, f"type.{section.question_type}"), count=section.count,
            expected=f"{section.expected:.1f}", full=pts(section.full),
        )))  # fmt: skip
    if view.exam is not None:
        lines += ["", *_forecast_lines(lang, view, view.exam, "ready.exam", m)]
    lines += ["", m.escape(t(lang, "ready.based", count=view.answers)),
              m.escape(t(lang, "ready.unseen", count=view.unseen, prior=_share(view.prior))),
              m.escape(t(lang, "ready.how"))]  # fmt: skip
    return "\n".join(lines)


def render_study(view: StudyView, m: Markup = PLAIN) -> str:
    if isinstance(view, MockQuestionView):
        return render_mock_question(view, m)
    if isinstance(view, MockSheetView):
        return render_mock_sheet(view, m)
    if isinstance(view, MockReportView):
        return render_mock_report(view, m)
    if isinstance(view, MockConfirmView):
        return render_mock_confirm(view, m)
    if isinstance(view, MockReviewView):
        return render_mock_review(view, m)
    if isinstance(view, MistakesView):
        return render_mistakes(view, m)
    if isinstance(view, FavouritesView):
        return render_favourites(view, m)
    if isinstance(view, ProgressView):
        return render_progress(view, m)
    if isinstance(view, RunSummaryView):
        return render_run_summary(view, m)
    if isinstance(view, WeakView):
        return render_weak(view, m)
    if isinstance(view, ReadyView):
        return render_ready(view, m)
    return render_reports(view, m)
