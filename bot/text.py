"""Text layout of views for text-first chats (console, Telegram), built from the catalog.

A `Markup` says how to escape and emphasise (plain for the console, HTML for Telegram), so the
same words are laid out once for every text platform.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.clock import zone
from bot.i18n import format_points, t
from bot.messages import (
    LeaderboardView,
    LeaderRow,
    Notice,
    QuestionView,
    ReceiptView,
    RevealView,
    StatsView,
)
from bot.model import QuestionType
from bot.records import AnswerStatus, RevealPolicy


@dataclass(frozen=True, slots=True)
class Markup:
    escape: Callable[[str], str]
    bold: Callable[[str], str]
    italic: Callable[[str], str]


PLAIN = Markup(escape=lambda s: s, bold=lambda s: s, italic=lambda s: s)
HTML = Markup(
    escape=lambda s: html.escape(s, quote=False),
    bold=lambda s: f"<b>{s}</b>",
    italic=lambda s: f"<i>{s}</i>",
)


def local_time(when: datetime, timezone: str) -> str:
    return when.astimezone(zone(timezone)).strftime("%Y-%m-%d %H:%M %Z")


def question_header(view: QuestionView) -> str:
    lang = view.language
    header = t(
        lang,
        "question.header",
        kind=t(lang, f"kind.{view.kind}"),
        number=view.number,
        qtype=t(lang, f"type.{view.qtype}"),
        points=format_points(view.points),
    )
    if view.contest_position:
        n, total = view.contest_position
        header += " · " + t(lang, "question.contest_position", n=n, total=total)
    return header


def render_question(view: QuestionView, m: Markup = PLAIN, *, how_to: bool = True) -> str:
    lang = view.language
    lines = [m.bold(m.escape(question_header(view))), "", m.escape(view.stem)]
    if view.qtype is not QuestionType.JUDGE:
        lines += [f"{m.bold(o.label)}. {m.escape(o.text)}" for o in view.options]
    if view.reveal is RevealPolicy.ROUND:
        lines += [
            "",
            m.italic(t(lang, "question.deadline", when=local_time(view.closes_at, view.timezone))),
        ]
    if how_to:
        lines += [m.italic(t(lang, f"question.how_{view.qtype}"))]
    return "\n".join(lines)


def receipt_headline(view: ReceiptView) -> str:
    """The one-line answer to a click or a typed answer (fits a toast or an ephemeral reply)."""
    lang = view.language
    status = str(view.status)
    if status == "invalid":
        return t(lang, "receipt.invalid", detail=view.detail)
    if status in (AnswerStatus.CLOSED, AnswerStatus.UNKNOWN_ROUND):
        return t(lang, "receipt.closed")
    if status == "self_graded":
        return t(
            lang,
            "receipt.self_graded",
            verdict=t(lang, f"verdict.{view.verdict}"),
            points=format_points(view.points),
        )
    if status == AnswerStatus.DUPLICATE:
        return t(lang, "receipt.duplicate", choice=view.response_label)
    if not view.graded:
        key = "receipt.changed" if status == AnswerStatus.CHANGED else "receipt.recorded"
        return t(lang, key, choice=view.response_label)
    if view.verdict == "pending":
        return t(lang, "receipt.pending")
    if view.verdict == "correct":
        return t(lang, "receipt.correct", points=format_points(view.points))
    if view.verdict == "partial":
        return t(lang, "receipt.partial", points=format_points(view.points))
    return t(lang, "receipt.wrong")


def render_receipt(view: ReceiptView, m: Markup = PLAIN) -> str:
    lang = view.language
    lines = [m.escape(receipt_headline(view))]
    if view.graded and str(view.status) in (AnswerStatus.ACCEPTED, AnswerStatus.DUPLICATE):
        if view.verdict == "pending":
            lines.append(m.escape(t(lang, "reveal.reference", answer=view.reference)))
            lines += _key_points(view.key_points, lang, m)
        else:
            lines.append(m.escape(t(lang, "receipt.your_answer", choice=view.response_label)))
            lines.append(m.bold(m.escape(t(lang, "reveal.correct", answer=view.correct_label))))
        if view.explanation:
            lines.append(m.escape(t(lang, "reveal.explanation", text=view.explanation)))
    return "\n".join(lines)


def _key_points(points: tuple[str, ...], lang: str, m: Markup) -> list[str]:
    if not points:
        return []
    return [m.escape(t(lang, "reveal.key_points"))] + [f"• {m.escape(p)}" for p in points]


def render_counts(view: RevealView) -> str:
    lang = view.language
    if not view.total_answers:
        return t(lang, "reveal.no_answers")
    parts = [f"{c.label}{'✓' if c.correct else ''} {c.count}" for c in view.counts]
    return t(lang, "reveal.counts", counts=" · ".join(parts), total=view.total_answers)


def render_right(view: RevealView, top_n: int = 10) -> str:
    lang = view.language
    if not view.right:
        return t(lang, "reveal.nobody_right")
    names = "、".join(view.right[:top_n]) if lang != "en" else ", ".join(view.right[:top_n])
    if len(view.right) > top_n:
        names += " " + t(lang, "reveal.right_more", n=len(view.right) - top_n)
    return t(lang, "reveal.right", names=names)


def render_reveal(view: RevealView, m: Markup = PLAIN, *, with_stem: bool = True) -> str:
    lang = view.language
    title = t(lang, "reveal.title")
    if view.late:
        title += " " + t(lang, "reveal.late")
    lines = [m.bold(m.escape(title))]
    if with_stem:
        lines += [m.escape(view.stem)]
        if view.qtype is not QuestionType.JUDGE:
            lines += [f"{o.label}. {m.escape(o.text)}" for o in view.options]
    key = "reveal.reference" if view.qtype is QuestionType.SHORT else "reveal.correct"
    lines += ["", m.bold(m.escape(t(lang, key, answer=view.correct_label)))]
    lines += _key_points(view.key_points, lang, m)
    if view.explanation:
        lines.append(m.escape(t(lang, "reveal.explanation", text=view.explanation)))
    lines += ["", m.escape(render_counts(view)), m.escape(render_right(view))]
    if view.streaks:
        streaks = ", ".join(f"{name} 🔥{n}" for name, n in view.streaks)
        lines.append(m.escape(t(lang, "reveal.streaks", streaks=streaks)))
    return "\n".join(lines)


def leaderboard_title(view: LeaderboardView) -> str:
    title = t(view.language, f"leaderboard.title.{view.window}")
    if view.guild_wide:
        title += " · " + t(view.language, "leaderboard.guild")
    return title


def leaderboard_row(row: LeaderRow, language: str) -> str:
    return t(
        language,
        "leaderboard.row",
        rank=row.rank,
        name=row.name,
        points=format_points(row.points),
        correct=row.correct,
        answers=row.answers,
    )


def render_leaderboard(view: LeaderboardView, m: Markup = PLAIN) -> str:
    lang = view.language
    lines = [m.bold(m.escape(leaderboard_title(view)))]
    if not view.rows:
        lines.append(m.escape(t(lang, "leaderboard.empty")))
    lines += [m.escape(leaderboard_row(row, lang)) for row in view.rows]
    if view.own is not None and all(r.rank != view.own.rank for r in view.rows):
        lines.append(
            m.escape(
                t(
                    lang,
                    "leaderboard.own",
                    rank=view.own.rank,
                    points=format_points(view.own.points),
                )
            )
        )
    return "\n".join(lines)


def render_stats(view: StatsView, m: Markup = PLAIN) -> str:
    lang = view.language
    lines = [
        m.bold(m.escape(t(lang, "stats.title", name=view.name))),
        m.escape(
            t(
                lang,
                "stats.body",
                answers=view.answers,
                correct=view.correct,
                accuracy=f"{view.accuracy:.0%}",
                points=format_points(view.points),
            )
        ),
    ]
    if view.rank is not None:
        lines.append(m.escape(t(lang, "stats.rank", rank=view.rank)))
    lines.append(m.escape(t(lang, "stats.streak", streak=view.streak, best=view.best_streak)))
    return "\n".join(lines)


def render_notice(view: Notice, m: Markup = PLAIN) -> str:
    return m.escape(t(view.language, view.key, **view.param_dict()))
