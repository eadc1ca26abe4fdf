"""The study views laid out as text (console: plain; Telegram: HTML), through the same Markup
as the rest of bot/views/quiz_text.py."""

from __future__ import annotations

from bot.domain.kinds import InputKind
from bot.domain.mastery import Point
from bot.domain.readiness import DayForecast
from bot.locales.i18n import bank_text, t
from bot.views.exam_text import countdown
from bot.views.progress import TEXT_TAGS
from bot.views.quiz_text import PLAIN, Markup, covered_lines, render_stats
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


def _pts(value: float) -> str:
    return f"{value:g}"


def clock(seconds: int) -> str:
    hours, rest = divmod(max(0, seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def numbers(values: tuple[int, ...] | list[int], language: str = "en", limit: int = 40) -> str:
    """1 2 3 5 7 8 9 as "1–3, 5, 7–9" ("1–3、5、7–9" in Chinese): a run of consecutive numbers as
    one range, so a list of unanswered items stays one line on a phone; past `limit` ranges, "…"."""
    runs: list[list[int]] = []
    for value in sorted(values):
        if runs and value == runs[-1][1] + 1:
            runs[-1][1] = value
        else:
            runs.append([value, value])
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs[:limit]]
    comma = "、" if language.startswith("zh") else ", "
    return comma.join(parts) + (comma + "…" if len(runs) > limit else "")


def pressed(key: str, m: Markup) -> str:
    """A hint's catalog key: what to press where the chat shows buttons, else what to type."""
    return key if m.buttons else f"{key}_typed"


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
        lines.append(
            " · ".join(
                t(lang, "mock.section", qtype=t(lang, f"type.{qtype}"), count=count, points=_pts(points))
                for qtype, count, points in intro.sections
            )
        )
        lines += [t(lang, pressed("mock.how_one_by_one", m)), ""]
    if view.saved is not None:  # kept, not graded: no tick
        lines.append(t(lang, "mock.kept", number=view.saved))
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
        lines.append(t(lang, "mock.type_judge", number=view.number))
    elif view.input_kind in (InputKind.CHOOSE_ONE, InputKind.CHOOSE_MANY):
        lines.append(t(lang, pressed("mock.type_choice", m), number=view.number))
    else:
        lines.append(t(lang, "mock.type_text", number=view.number))
    if view.response is not None:
        lines.append(t(lang, "mock.your_answer", answer=m.escape(view.response)))
    moves = []  # on a text platform the buttons' moves as commands
    if view.number > 1:
        moves.append(t(lang, "mock.nav_back", number=view.number - 1))
    if view.number < view.count:
        moves.append(t(lang, "mock.nav_next", number=view.number + 1))
    lines.append(" · ".join([*moves, t(lang, "mock.nav_rest")]))
    return "\n".join(lines)


def render_mock_sheet(view: MockSheetView, m: Markup = PLAIN) -> str:
    """Per section one line (its numbers and how many are answered), then the unanswered and
    flagged numbers as ranges: a 62-item paper in a handful of lines."""
    lang = view.language
    lines = [
        m.bold(
            t(lang, "mock.sheet_title", answered=view.answered, count=view.count, left=clock(view.remaining))
        )
    ]
    blank: list[int] = []
    flagged: list[int] = []
    for row in view.rows:
        if not row.items:
            continue
        done = sum(1 for _, answered, _ in row.items if answered)
        marks = "".join("●" if answered else "○" for _, answered, _ in row.items)
        lines.append(
            t(
                lang,
                "mock.sheet_section",
                qtype=t(lang, f"type.{row.qtype}"),
                items=numbers([n for n, _, _ in row.items], lang),
                answered=done,
                count=len(row.items),
            )
            + (f" {marks}" if len(marks) <= 10 else "")
        )
        tens = [marks[i : i + 10] for i in range(0, len(marks), 10)]
        if len(marks) > 10:  # in tens, two to a line: narrower than a phone screen
            lines += [" ".join(tens[i : i + 2]) for i in range(0, len(tens), 2)]
        blank += [n for n, answered, _ in row.items if not answered]
        flagged += [n for n, _, flag in row.items if flag]
    if blank:
        lines.append(t(lang, "mock.sheet_blank", numbers=numbers(blank, lang)))
    else:
        lines.append(t(lang, "mock.sheet_full"))
    if flagged:
        lines.append(t(lang, "mock.sheet_flagged", numbers=numbers(flagged, lang)))
    lines.append(t(lang, "mock.sheet_how", number=view.position))
    return "\n".join(lines)


def render_mock_confirm(view: MockConfirmView, m: Markup = PLAIN) -> str:
    lang = view.language
    return "\n".join(
        [
            m.bold(t(lang, "mock.confirm_title", count=len(view.unanswered), total=view.count)),
            t(lang, "mock.sheet_blank", numbers=numbers(view.unanswered, lang)),
            t(lang, pressed("mock.confirm_how", m),
              number=view.unanswered[0] if view.unanswered else view.position, left=clock(view.remaining)),
        ]
    )  # fmt: skip


def render_mock_report(view: MockReportView, m: Markup = PLAIN) -> str:
    """One screen: score and verdict, time, a line per section, and the numbers of the items to
    go over (each opened with /mock review N)."""
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
    lines.append(
        " · ".join(
            t(lang, "mock.section_score", qtype=t(lang, f"type.{qtype}"), score=_pts(score), total=_pts(full))
            for qtype, score, full in view.sections
        )
    )
    answered_wrong = [w.number for w in view.wrong if w.given]
    blank = [w.number for w in view.wrong if not w.given]
    if answered_wrong:
        lines.append(
            t(lang, "mock.wrong_numbers", count=len(answered_wrong), numbers=numbers(answered_wrong, lang))
        )
    if blank:
        lines.append(t(lang, "mock.blank_numbers", count=len(blank), numbers=numbers(blank, lang)))
    if view.pending:
        lines.append(t(lang, "mock.pending_numbers", numbers=numbers([p.number for p in view.pending], lang)))
    if view.wrong or view.pending:
        first = (view.pending or view.wrong)[0].number
        lines.append(t(lang, "mock.review_how", number=first))
    return "\n".join(lines)


def render_mock_review(view: MockReviewView, m: Markup = PLAIN) -> str:
    """One item of a handed-in mock: the options as the person saw them (the right ones marked),
    their answer, the right answer with its text, the explanation."""
    lang = view.language
    lines = [m.bold(t(lang, "mock.review_header", number=view.number, count=view.count,
                      qtype=t(lang, f"type.{view.qtype}")))]  # fmt: skip
    lines.append(m.escape(view.stem))
    right = set(view.right_tokens)
    lines += [
        f"{'✔' if letter in right else '  '} {letter}. {m.escape(text)}" for letter, text in view.options
    ]
    given = m.escape(view.given) if view.given else t(lang, "mock.blank")
    lines.append(t(lang, "mock.your_answer", answer=given))
    texts = [text for letter, text in view.options if letter in right]
    shown_right = (
        t(lang, "mock.answer_with_text", answer=view.right, text=" / ".join(texts)) if texts else view.right
    )
    if view.verdict == "pending":
        lines.append(t(lang, "mock.reference", answer=m.escape(view.reference)))
        if view.out_of:
            lines += covered_lines(view.covered, view.missed, view.points, view.out_of, lang, m)
        else:
            lines += [f"• {m.escape(p)}" for p in view.key_points]
        lines.append(t(lang, "mock.grade_how", number=view.number))
    else:
        lines.append(t(lang, "mock.right_answer", answer=m.escape(shown_right)))
        if view.explanation:
            lines.append(m.italic(m.escape(view.explanation)))
    later = [n for n in view.wrong if n > view.number]
    if later:
        lines.append(t(lang, "mock.review_next", number=later[0]))
    return "\n".join(lines)


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
        lang, "ready.score", expected=f"{day.expected:.1f}", total=_pts(view.total), low=_pts(day.low),
        high=_pts(day.high),
    )))  # fmt: skip
    lines.append(m.escape(t(lang, "ready.pass", chance=_share(day.pass_chance), mark=_pts(view.pass_mark))))
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
            expected=f"{section.expected:.1f}", full=_pts(section.full),
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
