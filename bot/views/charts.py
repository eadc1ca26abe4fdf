"""The progress chart port: what a chart shows, and who draws it. The renderer the bot runs with
is adapters/charts/chart_process.py (matplotlib in a child process): drawing is CPU work that
must not hold up the event loop.

Everything a reader sees in the picture is decided here, in the reader's language: titles and
legends from the catalogs, every bar's count already written out, dates already formatted for
the chat's locale and time zone. The renderer only places it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TagBar:
    """One tag's accuracy: a bar `right / total` long, with its `label` (e.g. "62% · 5/8")."""

    name: str
    right: int
    total: int
    label: str

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class MockPoint:
    """One handed-in mock exam: when (a tick label), its score as a share of the paper, the
    share needed to pass, and its label (e.g. "72 / 100")."""

    when: str
    share: float
    pass_share: float
    label: str


@dataclass(frozen=True, slots=True)
class ChartData:
    """A progress chart: labels are in the reader's `language` (which also picks the CJK glyph
    forms: simplified for zh-CN, traditional for zh-TW)."""

    language: str
    title: str
    tag_title: str
    tags: tuple[TagBar, ...]  # weakest first
    no_tags: str  # said in place of the bars when no tagged question was answered
    activity_title: str
    days: tuple[str, ...]  # the local days up to today, oldest first, as labelled ("12月3日", "Dec 3")
    answers: tuple[int, ...]  # final answers on each of `days`
    right: tuple[int, ...]  # of which right
    answers_legend: str
    accuracy_legend: str  # the trend line: accuracy over the trailing `trend_days`
    trend_days: int
    forecast_title: str
    forecast_days: tuple[str, ...]  # today ("今天") and the days after it
    forecast: tuple[int, ...]  # cards falling due on each of `forecast_days`
    mock_title: str
    mocks: tuple[MockPoint, ...]  # oldest first
    no_mocks: str
    pass_legend: str

    def trend(self) -> tuple[float | None, ...]:
        """Accuracy over the `trend_days` days up to each day (None where nothing was answered)."""
        out: list[float | None] = []
        for end in range(1, len(self.answers) + 1):
            start = max(0, end - self.trend_days)
            total = sum(self.answers[start:end])
            out.append(sum(self.right[start:end]) / total if total else None)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class ReadinessChart:
    """The `/ready` chart: the paper's expected score by day with its 80 % band, against the pass
    mark, from today (the first of `days`) to the exam date or 30 days on."""

    language: str
    title: str
    subtitle: str  # what it rests on, and that it assumes no further review
    days: tuple[str, ...]
    expected: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    total: float
    pass_mark: float
    expected_legend: str
    band_legend: str
    pass_legend: str
    score_label: str  # the y axis ("分数", "Score")
    first_label: str = ""  # written at today's point ("73.9 分 · 及格 98%")
    last_label: str = ""  # ... and at the last day's


