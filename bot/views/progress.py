"""A learner's progress, as /stats shows it: the text's numbers and the chart's, from one set of
reads, so the two always agree.

Days are the chat's days: "today" starts at local midnight in the chat's time zone (`/tz`), the
activity bars and the due forecast are counted per local day, and every date is written for the
chat's locale. A card counts as due today when it falls due before tomorrow, overdue ones
included, and so does a card reviewed today that comes back later today (a learning step):
/review then says "nothing due now, the next at …" rather than "today's reviews are done",
and /stats counts that card in today and in the next 7 days.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from babel.dates import format_skeleton

from bot.domain.clock import zone
from bot.domain.mock_exam_records import Mock
from bot.domain.questions import Bank, QuestionType
from bot.locales.i18n import bank_text, format_points, locale_name, t
from bot.views.charts import ChartData, MockPoint, TagBar
from bot.views.quiz import StatsView
from bot.views.study import ProgressView

ACTIVITY_DAYS = 30  # the activity bars: today and the 29 days before it
FORECAST_DAYS = 14  # the due forecast: today and the 13 days after it
WEEK_DAYS = 7  # "due this week": today and the six days after it
TREND_DAYS = 7  # the accuracy trend line: right / answered over the last seven days
CHART_TAGS = 10  # the weakest tags in the chart
TEXT_TAGS = 5  # ... and in the text
CHART_MOCKS = 20  # the last handed-in mocks in the chart
TEXT_MOCKS = 5  # ... and in the text


@dataclass(frozen=True, slots=True)
class LocalDays:
    """The calendar of a chat: today in its time zone, and where each day starts."""

    today: date
    tz: ZoneInfo
    # When a day begins (the learner's "day starts at", /settings daystart): a night owl's 01:00
    # still belongs to the day before when their day starts at 04:00.
    day_start: time = time(0)

    @classmethod
    def at(cls, now: datetime, timezone: str, day_start: time = time(0)) -> LocalDays:
        tz = zone(timezone)
        return cls(_shifted(now.astimezone(tz), day_start).date(), tz, day_start)

    def day(self, offset: int) -> date:
        return self.today + timedelta(days=offset)

    def start(self, offset: int) -> datetime:
        """The start of today + `offset` days (local midnight, or the learner's day start), in
        UTC (zoneinfo settles a midnight that a clock change skips or repeats)."""
        day = self.day(offset)
        return datetime.combine(day, self.day_start, tzinfo=self.tz).astimezone(UTC)

    def starts(self, first: int, count: int) -> list[datetime]:
        """The starts of `count` days from today + `first`, and the end of the last one."""
        return [self.start(first + k) for k in range(count + 1)]

    def local_date(self, when: datetime) -> date:
        return _shifted(when.astimezone(self.tz), self.day_start).date()

    def due_by(self) -> datetime:
        """The last moment of today. "Due today" means due by then — overdue cards, and a
        learning step coming back later today, too — in /stats, /weak, the reminder and the
        exam plan alike, and /review says today's reviews are done only past it (a store's
        `due <= due_by()` is `due < start(1)`: its times are microseconds)."""
        return self.start(1) - timedelta(microseconds=1)


def _shifted(local: datetime, day_start: time) -> datetime:
    """The local time moved back by the day's start, so its date is the day it belongs to."""
    return local - timedelta(hours=day_start.hour, minutes=day_start.minute)


def day_label(language: str, day: date) -> str:
    """A day as the chat's locale writes it short: 12月3日, Dec 3."""
    return format_skeleton("MMMd", day, locale=locale_name(language))


def percent(right: int, total: int) -> str:
    return f"{100 * right / total:.0f}%" if total else "—"


def progress_view(
    language: str,
    bank: Bank,
    answered: Mapping[str, tuple[int, int]],
    *,
    group: bool = False,
    notebook: int = 0,
    due: Sequence[int] = (),
    streak: int = 0,
    mocks: Sequence[Mock] = (),
    days: LocalDays | None = None,
    summary: StatsView | None = None,
) -> ProgressView:
    """The text's numbers: coverage and accuracy by type and tag (weakest first), the notebook,
    what is due today and this week (`due`: the forecast per local day), the last mocks."""
    by_type: dict[QuestionType, list[int]] = {q: [0, 0] for q in QuestionType}
    by_tag: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for question in bank.questions:
        right, total = answered.get(question.id, (0, 0))
        by_type[question.type][0] += right
        by_type[question.type][1] += total
        for tag in question.tags:
            by_tag[tag][0] += right
            by_tag[tag][1] += total
    # Each tag by its display name (`tag_names:`), in the chat's script, in the text and the chart.
    tags = sorted(
        ((bank_text(language, bank.tag_name(tag)), r, n) for tag, (r, n) in by_tag.items() if n),
        key=lambda row: (row[1] / row[2], -row[2], row[0]),
    )
    practised = sum(1 for q in bank.questions if answered.get(q.id, (0, 0))[1])
    rows = tuple(
        (
            (days.local_date(m.submitted_at or m.started_at) if days else m.started_at.date()).isoformat(),
            m.score or 0.0,
            m.total,
            (m.score or 0.0) >= m.pass_mark,
        )
        for m in mocks[:TEXT_MOCKS]
    )
    return ProgressView(
        language,
        practised,
        len(bank.questions),
        tuple((q, r, n) for q, (r, n) in by_type.items() if n),
        tuple(tags[:CHART_TAGS]),
        notebook,
        due[0] if due else 0,
        sum(due[:WEEK_DAYS]),
        streak,
        rows,
        group,
        summary,
    )


def chart_data(
    view: ProgressView,
    days: LocalDays,
    per_day: Sequence[tuple[int, int]],
    due: Sequence[int],
    mocks: Sequence[Mock],
) -> ChartData:
    """The chart of the same numbers: `per_day` (answers, right) for the last ACTIVITY_DAYS
    local days, `due` per local day from today, `mocks` newest first."""
    lang = view.language
    bars = tuple(
        TagBar(tag, r, n, t(lang, "progress.chart_bar", pct=percent(r, n), right=r, total=n))
        for tag, r, n in view.by_tag[:CHART_TAGS]
    )
    handed_in = [m for m in mocks[:CHART_MOCKS] if m.score is not None and m.total > 0]
    points = tuple(
        MockPoint(
            day_label(lang, days.local_date(m.submitted_at or m.started_at)),
            (m.score or 0.0) / m.total,
            m.pass_mark / m.total,
            t(
                lang,
                "progress.chart_mock_point",
                score=format_points(m.score or 0.0),
                total=format_points(m.total),
            ),
        )
        for m in reversed(handed_in)
    )
    first = 1 - len(per_day)
    return ChartData(
        language=lang,
        title=t(lang, "progress.chart_title"),
        tag_title=t(lang, "progress.chart_tags"),
        tags=bars,
        no_tags=t(lang, "progress.chart_no_tags"),
        activity_title=t(lang, "progress.chart_activity"),
        days=tuple(day_label(lang, days.day(first + k)) for k in range(len(per_day))),
        answers=tuple(n for n, _ in per_day),
        right=tuple(r for _, r in per_day),
        answers_legend=t(lang, "progress.chart_answers"),
        accuracy_legend=t(lang, "progress.chart_accuracy", days=TREND_DAYS),
        trend_days=TREND_DAYS,
        forecast_title=t(lang, "progress.chart_forecast"),
        forecast_days=tuple(
            day_label(lang, days.day(k)) if k else t(lang, "progress.chart_today") for k in range(len(due))
        ),
        forecast=tuple(due),
        mock_title=t(lang, "progress.chart_mocks"),
        mocks=points,
        no_mocks=t(lang, "progress.chart_no_mocks"),
        pass_legend=t(lang, "progress.chart_pass"),
    )
