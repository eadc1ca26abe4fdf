"""An application Reply laid out as text, for the text platforms (console: plain; Telegram: HTML).

One place decides how each kind of view reads, so the console and Telegram cannot drift.
"""

from __future__ import annotations

from bot.application import DailyReply, HelpView, Reply, TextView, WelcomeView
from bot.i18n import t
from bot.messages import ContestStatusView, LeaderboardView, QuestionView, StandingsView, StatsView
from bot.study.text import render_study
from bot.study.views import (
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
    WeakView,
)
from bot.text import (
    PLAIN,
    Markup,
    render_contest_status,
    render_daily,
    render_leaderboard,
    render_question,
    render_standings,
    render_stats,
)


def render_help(view: HelpView, m: Markup = PLAIN) -> str:
    lines = [m.bold(t(view.language, "help.title"))]
    admin_rows = [row for row in view.rows if row.admin]
    for row in (r for r in view.rows if not r.admin):
        lines.append(f"{m.escape(row.usage)} — {m.escape(row.description)}")
    if admin_rows:
        lines += ["", m.bold(t(view.language, "help.admins"))]
        lines += [f"{m.escape(row.usage)} — {m.escape(row.description)}" for row in admin_rows]
    return "\n".join(lines)


def render_reply(reply: Reply, m: Markup = PLAIN) -> str:
    """The text of any reply but a question (which text platforms post with their own buttons)."""
    view = reply.view
    if isinstance(view, TextView | WelcomeView):
        return m.escape(view.text)
    if isinstance(view, HelpView):
        return render_help(view, m)
    if isinstance(view, QuestionView):
        return render_question(view, m)
    if isinstance(view, LeaderboardView):
        return render_leaderboard(view, m)
    if isinstance(view, StatsView):
        return render_stats(view, m)
    if isinstance(view, StandingsView):
        return render_standings(view, m)
    if isinstance(view, ContestStatusView):
        return render_contest_status(view, m)
    if isinstance(view, MockQuestionView | MockSheetView | MockReportView | MistakesView | FavouritesView
                  | ProgressView | ReportsView | MockConfirmView | MockReviewView
                  | RunSummaryView | WeakView | ReadyView):  # fmt: skip
        return render_study(view, m)
    if isinstance(view, DailyReply):
        return render_daily(view.daily, reply.language, just_set=view.just_set, m=m)
    return ""
