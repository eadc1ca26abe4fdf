"""An application Reply laid out as text, for the text platforms (console: plain; Telegram: HTML).

One place decides how each kind of view reads, so the console and Telegram cannot drift.
"""

from __future__ import annotations

from bot.application.commands.help import HelpRow, HelpView
from bot.application.replies import DailyReply, Reply, TextView, WelcomeView
from bot.locales.i18n import t
from bot.views.quiz import ContestStatusView, LeaderboardView, QuestionView, StandingsView, StatsView
from bot.views.quiz_text import (
    PLAIN,
    Markup,
    render_contest_status,
    render_daily,
    render_leaderboard,
    render_question,
    render_standings,
    render_stats,
)
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
    WeakView,
)
from bot.views.study_text import render_study


def render_help(view: HelpView, m: Markup = PLAIN) -> str:
    """The command list (admin commands apart), each command's argument lines indented under it
    (one command's help), then the notes (what the arguments take)."""
    if view.topic is not None:
        lines = [m.bold(t(view.language, "help.title_one", command=f"/{view.topic}"))]
        rows: list[HelpRow] = list(view.rows)
        admin_rows: list[HelpRow] = []
    else:
        lines = [m.bold(t(view.language, "help.title"))]
        rows = [row for row in view.rows if not row.admin]
        admin_rows = [row for row in view.rows if row.admin]
    for row in rows:
        lines += _help_row(row, m)
    if admin_rows:
        lines += ["", m.bold(t(view.language, "help.admins"))]
        for row in admin_rows:
            lines += _help_row(row, m)
    if view.notes:
        lines += ["", *(m.escape(note) for note in view.notes)]
    return "\n".join(lines)


def _help_row(row: HelpRow, m: Markup) -> list[str]:
    line = f"{m.escape(row.usage)} — {m.escape(row.description)}"
    return [line, *(f"  {m.escape(detail)}" for detail in row.details)]


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
