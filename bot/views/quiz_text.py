"""Text layout of views for text-first chats (console, Telegram), built from the catalog.

A `Markup` says how to escape and emphasise (plain for the console, HTML for Telegram), so the
same words are laid out once for every text platform. Every user-supplied string (names, typed
answers, tags) goes through bot.views.bidi.isolate here, so no platform shows it reordering the line.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.domain.clock import zone
from bot.domain.kinds import AnswerStatus, InputKind, RevealPolicy, RoundKind
from bot.domain.question_types import TYPES
from bot.locales.i18n import format_points, list_separator, t
from bot.views.bidi import isolate
from bot.views.quiz import (
    ContestStatusView,
    DailyView,
    LeaderboardView,
    LeaderRow,
    Notice,
    QuestionView,
    ReceiptView,
    RevealView,
    StandingsView,
    StatsView,
)


@dataclass(frozen=True, slots=True)
class Markup:
    escape: Callable[[str], str]
    bold: Callable[[str], str]
    italic: Callable[[str], str]
    # Whether the chat shows the view's buttons (Telegram) or has none (the console): a hint
    # then says what to type instead of what to press.
    buttons: bool = True
    # Whether the bot reads what people write in the chat. Discord's bot asks for no message
    # content (adapters/discord/adapter.py intents): there a hint names buttons and commands,
    # never a message to send.
    reads_messages: bool = True


PLAIN = Markup(escape=lambda s: s, bold=lambda s: s, italic=lambda s: s)
CONSOLE = Markup(escape=lambda s: s, bold=lambda s: s, italic=lambda s: s, buttons=False)
HTML = Markup(
    escape=lambda s: html.escape(s, quote=False),
    bold=lambda s: f"<b>{s}</b>",
    italic=lambda s: f"<i>{s}</i>",
)


def pressed(key: str, m: Markup, *, typed: bool = True, unread: bool = False) -> str:
    """A hint's catalog key: what to press or send where the chat shows buttons (`key`); only
    what to type where it has none (`key`_typed; without `typed` `key` says it already); only
    what to press or run where the bot reads no messages (`key`_buttons, for an `unread` key:
    one whose hint says to send a message)."""
    if not m.buttons:
        return f"{key}_typed" if typed else key
    return f"{key}_buttons" if unread and not m.reads_messages else key


def pts(value: float) -> str:
    """A mark as written: 1, 2.5 (no trailing .0)."""
    return f"{value:g}"


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
    comma = list_separator(language)
    return comma.join(parts) + (comma + "…" if len(runs) > limit else "")


def local_time(when: datetime, timezone: str) -> str:
    return when.astimezone(zone(timezone)).strftime("%Y-%m-%d %H:%M %Z")


def question_header(view: QuestionView) -> str:
    lang = view.language
    # In bank order the place says the number already ("第 12 / 62 题"): not twice.
    numbered = not (view.place and view.place[0] == view.number)
    header = t(
        lang,
        "question.header" if numbered else "question.header_in_order",
        kind=t(lang, f"kind.{view.kind}"),
        number=view.number,
        qtype=t(lang, f"type.{view.qtype}"),
        points=format_points(view.points),
    )
    if view.contest_position:
        n, total = view.contest_position
        header += " · " + t(lang, "question.contest_position", n=n, total=total)
    if view.place:
        n, total = view.place
        header += " · " + t(lang, "question.place", n=n, total=total)
    return header


def render_question(view: QuestionView, m: Markup = PLAIN, *, how_to: bool = True) -> str:
    lang = view.language
    lines = [m.bold(m.escape(question_header(view))), "", m.escape(view.stem)]
    if view.lead:  # what became of the question before (a skip, a replaced run): above it
        lines = [m.escape(view.lead), "", *lines]
    if TYPES[view.qtype].lists_options:
        lines += [f"{m.bold(o.label)}. {m.escape(o.text)}" for o in view.options]
    if view.kind is RoundKind.CONTEST:
        seconds = round((view.closes_at - view.opened_at).total_seconds())
        lines += ["", m.italic(t(lang, "question.timer", count=seconds))]
    elif view.reveal is RevealPolicy.ROUND:
        when = local_time(view.closes_at, view.timezone)
        lines += ["", m.italic(t(lang, "question.deadline", when=when))]
    if how_to:  # an order tapped on buttons says so; typed, each type says how it is written
        tapped = m.buttons and view.input_kind is InputKind.ORDER
        lines += [m.italic(t(lang, "question.how_order" if tapped else f"question.how_{view.qtype}"))]
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
        return t(lang, "receipt.duplicate", choice=isolate(view.response_label))
    if not view.graded:
        key = "receipt.changed" if status == AnswerStatus.CHANGED else "receipt.recorded"
        return t(lang, key, choice=isolate(view.response_label))
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
            if view.out_of:
                lines += covered_lines(view.covered, view.missed, view.points, view.out_of, lang, m)
            else:
                lines += _key_points(view.key_points, lang, m)
        else:
            lines.append(m.escape(t(lang, "receipt.your_answer", choice=isolate(view.response_label))))
            lines.append(m.bold(m.escape(t(lang, "reveal.correct", answer=view.correct_label))))
        if view.explanation:
            lines.append(m.escape(t(lang, "reveal.explanation", text=view.explanation)))
    return "\n".join(lines)


def covered_lines(
    covered: tuple[str, ...],
    missed: tuple[str, ...],
    points: float,
    out_of: float,
    lang: str,
    m: Markup = PLAIN,
) -> list[str]:
    """A short answer scored by its key points: the score, then the points covered and missed."""
    count = len(covered) + len(missed)
    score = t(lang, "keypoints.score", count=count, covered=len(covered),
              points=format_points(round(points, 1)), out_of=format_points(out_of))  # fmt: skip
    lines = [m.bold(m.escape(score))]
    if covered:
        lines += [m.escape(t(lang, "keypoints.covered"))] + [f"✅ {m.escape(p)}" for p in covered]
    if missed:
        lines += [m.escape(t(lang, "keypoints.missed"))] + [f"❌ {m.escape(p)}" for p in missed]
    lines.append(m.escape(t(lang, "keypoints.disagree")))
    return lines


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
    shown = [isolate(name) for name in view.right[:top_n]]
    names = "、".join(shown) if lang != "en" else ", ".join(shown)
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
        if TYPES[view.qtype].lists_options:
            lines += [f"{o.label}. {m.escape(o.text)}" for o in view.options]
    answer = t(lang, TYPES[view.qtype].reveal_key, answer=view.correct_label)
    lines += ["", m.bold(m.escape(answer))]
    lines += _key_points(view.key_points, lang, m)
    if view.explanation:
        lines.append(m.escape(t(lang, "reveal.explanation", text=view.explanation)))
    lines += ["", m.escape(render_counts(view))]
    if view.total_answers:  # "Nobody answered." already says nobody got it right
        lines.append(m.escape(render_right(view)))
    if view.streaks:
        streaks = ", ".join(f"{isolate(name)} 🔥{n}" for name, n in view.streaks)
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
        name=isolate(row.name),
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
        m.bold(m.escape(t(lang, "stats.title", name=isolate(view.name)))),
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


def render_duration(seconds: int, language: str) -> str:
    if seconds % 3600 == 0:
        return t(language, "duration.hours", n=seconds // 3600)
    if seconds % 60 == 0:
        return t(language, "duration.minutes", n=seconds // 60)
    return t(language, "duration.seconds", n=seconds)


def render_daily(view: DailyView | None, language: str, *, just_set: bool = False, m: Markup = PLAIN) -> str:
    if view is None:
        return m.escape(t(language, "daily.none"))
    if not view.enabled:
        return m.escape(t(language, "daily.disabled", time=view.local_time))
    days = (
        t(language, "daily.every_day")
        if len(view.weekdays) == 7
        else "".join(t(language, f"weekday.{d}") for d in view.weekdays)
    )
    schedule = t(
        language,
        "daily.schedule",
        days=days,
        time=view.local_time,
        timezone=view.timezone,
        deadline=render_duration(view.deadline_seconds, language),
        tag=t(language, "daily.schedule_tag", tag=isolate(view.tag)) if view.tag else "",
    )
    upcoming = local_time(view.next_post, view.timezone) if view.next_post else "—"
    return m.escape(t(language, "daily.set" if just_set else "daily.show", schedule=schedule, next=upcoming))


def render_contest_status(view: ContestStatusView, m: Markup = PLAIN) -> str:
    lang = view.language
    if view.contest_id is None:
        return m.escape(t(lang, "contest.not_running"))
    if view.running:
        text = t(lang, "contest.status", position=view.position, total=view.total, seconds=view.seconds,
                 count=view.players)  # fmt: skip
    else:
        questions = t(lang, "count.questions", count=view.total)
        text = t(lang, "contest.status_done", questions=questions, count=view.players)
    return m.escape(text)


def render_standings(view: StandingsView, m: Markup = PLAIN) -> str:
    lang = view.language
    if view.final:
        title = (
            t(lang, "standings.stopped", position=view.position, count=view.total)
            if view.stopped
            else t(lang, "standings.final")
        )
    else:
        title = t(lang, "standings.title", position=view.position, total=view.total)
    lines = [m.bold(m.escape(title))]
    if not view.rows:
        lines.append(m.escape(t(lang, "standings.empty")))
    medals = ("🥇", "🥈", "🥉")
    for row in view.rows:
        if view.final:
            accuracy = f"{row.correct / max(view.position, 1):.0%}"
            text = t(lang, "standings.final_row", rank=row.rank, name=isolate(row.name), points=row.points,
                     correct=row.correct, total=view.position, accuracy=accuracy)  # fmt: skip
            prefix = medals[row.rank - 1] + " " if row.rank <= 3 else ""
            lines.append(prefix + m.escape(text))
        else:
            text = t(lang, "standings.row", rank=row.rank, name=isolate(row.name), points=row.points)
            if row.moved_up:
                text += " " + t(lang, "standings.moved", n=row.moved_up)
            lines.append(m.escape(text))
    return "\n".join(lines)
