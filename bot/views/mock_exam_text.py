"""The mock exam's views laid out as text (console: plain; Telegram: HTML): the item, the answer
sheet, the hand-in confirmation, the report and the review, through the Markup of
bot/views/quiz_text.py."""

from __future__ import annotations

from bot.domain.kinds import InputKind
from bot.domain.question_types import TYPES
from bot.domain.questions import QuestionType
from bot.locales.i18n import t
from bot.views.quiz_text import PLAIN, Markup, covered_lines, numbers, pressed, pts
from bot.views.study import MockConfirmView, MockQuestionView, MockReportView, MockReviewView, MockSheetView


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
                total=pts(intro.total),
                minutes=intro.minutes,
                pass_mark=pts(intro.pass_mark),
            )
        )
        lines.append(
            " · ".join(
                t(lang, "mock.section", qtype=t(lang, f"type.{qtype}"), count=count, points=pts(points))
                for qtype, count, points in intro.sections
            )
        )
        lines += [t(lang, pressed("mock.how_one_by_one", m, unread=True)), ""]
    if view.saved is not None:  # kept, not graded: no tick
        lines.append(t(lang, "mock.kept", number=view.saved))
    header = t(
        lang,
        "mock.question_header",
        number=view.number,
        count=view.count,
        qtype=t(lang, f"type.{view.qtype}"),
        points=pts(view.points),
        left=clock(view.remaining),
    )
    lines.append(m.bold(header) + (" 🚩" if view.flagged else ""))
    lines.append(m.escape(view.stem))
    lines += [f"{letter}. {m.escape(text)}" for letter, text in view.options]
    if view.input_kind is InputKind.TRUE_FALSE:
        lines.append(t(lang, pressed("mock.type_judge", m, unread=True), number=view.number))
    elif view.input_kind in (InputKind.CHOOSE_ONE, InputKind.CHOOSE_MANY):
        lines.append(t(lang, pressed("mock.type_choice", m, unread=True), number=view.number))
    elif view.input_kind is InputKind.ORDER:
        lines.append(t(lang, pressed("mock.type_order", m, unread=True), number=view.number))
    else:
        lines.append(t(lang, pressed("mock.type_text", m, typed=False, unread=True), number=view.number))
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
            t(lang, pressed("mock.confirm_how", m, unread=True),
              number=view.unanswered[0] if view.unanswered else view.position, left=clock(view.remaining)),
        ]
    )  # fmt: skip


def provisional_mark(view: MockReportView, qtype: QuestionType) -> str:
    """（待自评） after a section's score while some of its answers await their self-grade (the
    score counts them as nothing yet); else ""."""
    if view.pending and TYPES[qtype].input_kind is InputKind.SELF_GRADED:
        return t(view.language, "mock.provisional")
    return ""


def render_mock_report(view: MockReportView, m: Markup = PLAIN) -> str:
    """One screen: score and verdict, time, a line per section, and the numbers of the items to
    go over (each opened with /mock review N)."""
    lang = view.language
    lines = []
    if view.timed_out:
        lines.append(t(lang, "mock.time_up_handed_in"))
    lines.append(m.bold(t(lang, "mock.score", score=pts(view.score), total=pts(view.total))))
    if view.passed is None:
        lines.append(t(lang, "mock.awaiting_grade", count=len(view.pending)))
    else:
        lines.append(t(lang, "mock.passed" if view.passed else "mock.failed", pass_mark=pts(view.pass_mark)))
    minutes, seconds = divmod(view.used_seconds, 60)
    lines.append(t(lang, "mock.time_used", minutes=minutes, seconds=seconds))
    lines.append(
        " · ".join(
            t(lang, "mock.section_score", qtype=t(lang, f"type.{qtype}"), score=pts(score), total=pts(full))
            + provisional_mark(view, qtype)
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
