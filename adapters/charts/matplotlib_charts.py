"""The progress chart drawn with matplotlib (Agg, no display), as one PNG of four panels:

1. accuracy by tag, weakest first: a bar per tag on a 0-100 % track (a tag at 0 % still shows
   its track and a stub), each labelled with its share and counts;
2. answers per day over the last 30 days (whole numbers, dated), with the accuracy trend line;
3. the cards due on each of the next 14 days (whole numbers, dated, counts on the bars);
4. the mock exam scores over time, against the pass mark;

and the `/ready` chart (ReadinessChart): the paper's expected score by day with its 80 % band,
against the pass mark.

Every word and date comes from the ChartData (bot/views/charts.py), already in the reader's
language; this module only places it, in the fonts of adapters/charts/fonts.py (the CJK font the
install brings, loaded by path: no font of the machine is needed and no glyph goes missing).
"""

from __future__ import annotations

import contextlib
import io
import math
import threading
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, MaxNLocator, PercentFormatter

from adapters.charts.fonts import ChartFonts, chart_fonts, drawable
from bot.views.charts import ChartData, ReadinessChart

Label = Callable[[str], str]  # text as the chart fonts can draw it (fonts.drawable)
# matplotlib's font cache and text layout are not safe to use from several threads at once.
_LOCK = threading.Lock()
TAG_NAME_WIDTH = 20  # columns (a Han character takes two) of a tag name; longer ones end in "…"
LOW, MIDDLE = 0.6, 0.8  # a tag's bar turns amber below 80 %, red below 60 %
RED, AMBER, GREEN, BLUE, GREY, TRACK = "#c44e52", "#dd8452", "#55a868", "#4c72b0", "#555555", "#ececec"


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _short(name: str, width: int = TAG_NAME_WIDTH) -> str:
    """`name` cut to `width` columns, with "…" where it was cut."""
    if sum(map(_columns, name)) <= width:
        return name
    out, used = [], 1
    for char in name:
        used += _columns(char)
        if used > width:
            break
        out.append(char)
    return "".join(out) + "…"


def _spaced_ticks(count: int, most: int) -> list[int]:
    """At most about `most` evenly spaced positions of `count`, always with the last one (today)."""
    if count <= 0:
        return []
    step = max(1, math.ceil(count / most))
    ticks = list(range(count - 1, -1, -step))
    return sorted(ticks)


def _whole_numbers(ax: Axes, top: int) -> None:
    """A y axis of whole cards or answers: integer ticks, room above the tallest bar's label."""
    ax.set_ylim(0, max(1, top) * 1.2)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=5, min_n_ticks=2))


def _count_labels(ax: Axes, xs: range, values: tuple[int, ...], size: float) -> None:
    for x, value in zip(xs, values, strict=True):
        if value:
            ax.annotate(
                str(value), (x, value), xytext=(0, 2), textcoords="offset points",
                ha="center", va="bottom", fontsize=size, color=GREY,
            )  # fmt: skip


# Legends sit on the panel's title line, at the right: never over a bar or a point.
_LEGEND: dict[str, Any] = {
    "loc": "lower right", "bbox_to_anchor": (1.0, 1.0), "fontsize": 8, "frameon": False, "borderaxespad": 0.2,
}  # fmt: skip


_LABEL_BOX = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85}  # over the band


def _empty(ax: Axes, text: str) -> None:
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color=GREY, fontsize=11)


@contextlib.contextmanager
def _style(fonts: ChartFonts) -> Iterator[ChartFonts]:
    with matplotlib.rc_context(
        {
            "font.family": list(fonts.families),
            "axes.unicode_minus": False,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titlesize": 12,
            "axes.titlelocation": "left",
            "xtick.labelsize": 8,
            "ytick.labelsize": 9,
        }
    ):
        yield fonts


class MatplotlibCharts:
    def __init__(self, dpi: int = 100) -> None:
        self.dpi = dpi

    def render(self, data: ChartData | ReadinessChart) -> bytes:
        out = io.BytesIO()
        with _LOCK, _style(chart_fonts(data.language)) as fonts:
            # Saved inside the style too: matplotlib makes some tick labels only when it draws.
            self._any(data, fonts).savefig(out, format="png")
        return out.getvalue()

    def figure(self, data: ChartData | ReadinessChart) -> Figure:
        """The chart as a matplotlib figure, laid out as `render` draws it (tests read its axes)."""
        with _LOCK, _style(chart_fonts(data.language)) as fonts:
            figure = self._any(data, fonts)
            figure.draw_without_rendering()
        return figure

    def _any(self, data: ChartData | ReadinessChart, fonts: ChartFonts) -> Figure:
        return self._readiness(data, fonts) if isinstance(data, ReadinessChart) else self._draw(data, fonts)

    def _readiness(self, data: ReadinessChart, fonts: ChartFonts) -> Figure:
        def s(text: str) -> str:
            return drawable(text, fonts)

        figure = Figure(figsize=(8, 4.6), dpi=self.dpi)
        figure.suptitle(s(data.title), fontsize=15, x=0.08, ha="left", y=0.97)
        figure.text(0.08, 0.885, s(data.subtitle), fontsize=9, color=GREY, ha="left")
        ax = figure.subplots(1, 1, gridspec_kw={"left": 0.09, "right": 0.97, "top": 0.78, "bottom": 0.13})
        xs = list(range(len(data.days)))
        band = ax.fill_between(xs, data.low, data.high, color=BLUE, alpha=0.18, linewidth=0,
                               label=s(data.band_legend))  # fmt: skip
        (line,) = ax.plot(xs, data.expected, color=BLUE, linewidth=2.2, label=s(data.expected_legend))
        pass_line = ax.axhline(data.pass_mark, color=RED, linestyle="--", linewidth=1.2,
                               label=s(data.pass_legend))  # fmt: skip
        # Today's and the last day's score and pass chance, written above their points, inward.
        marks = [(0, data.first_label, "left"), (len(xs) - 1, data.last_label, "right")] if xs else []
        for x, label, align in marks[: 1 if len(xs) == 1 else 2]:
            ax.plot([x], [data.expected[x]], "o", color=BLUE, markersize=5)
            ax.annotate(s(label), (x, data.expected[x]), xytext=(0, 14), textcoords="offset points",
                        ha=align, fontsize=9, color=BLUE,
                        bbox=_LABEL_BOX)  # fmt: skip
        step = max(1, math.ceil(len(xs) / 8))
        ticks = list(range(0, len(xs), step))  # from today on, evenly; the last day too when apart
        if xs and len(xs) - 1 - ticks[-1] >= 0.75 * step:
            ticks.append(len(xs) - 1)
        ax.set_xticks(ticks, [s(data.days[k]) for k in ticks])
        ax.set_xlim(-0.3, max(len(xs) - 0.7, 0.7))
        ax.set_ylim(0, max(data.total, 1) * 1.05)
        ax.set_ylabel(s(data.score_label))
        ax.legend(handles=[line, band, pass_line], **_LEGEND, ncols=3)
        return figure

    def _draw(self, data: ChartData, fonts: ChartFonts) -> Figure:
        def s(text: str) -> str:
            return drawable(text, fonts)

        rows = max(1, len(data.tags))
        height = 8.2 + 0.3 * rows  # inches: the tag panel grows with its rows
        figure = Figure(figsize=(8, height), dpi=self.dpi)
        figure.suptitle(s(data.title), fontsize=16, y=1 - 0.12 / height)  # one weight: no bold
        # Fixed margins rather than a layout engine (which draws everything twice, doubling the
        # time): tag names are cut to TAG_NAME_WIDTH, so the left margin always holds them.
        top, bottom, gap = 0.75, 0.35, 0.8  # inches: above the panels, below them, between two
        panels = height - top - bottom - 3 * gap
        tags_ax, activity_ax, forecast_ax, mock_ax = figure.subplots(
            4, 1, height_ratios=[1.2 + 0.3 * rows, 2.0, 1.7, 1.7],
            gridspec_kw={"left": 0.185, "right": 0.925, "top": 1 - top / height, "bottom": bottom / height,
                         "hspace": gap / (panels / 4)},  # a share of the panels' mean height
        )  # fmt: skip
        self._tags(tags_ax, data, s)
        self._activity(activity_ax, data, s)
        self._forecast(forecast_ax, data, s)
        self._mocks(mock_ax, data, s)
        return figure

    def _tags(self, ax: Axes, data: ChartData, s: Label) -> None:
        ax.set_title(s(data.tag_title))
        if not data.tags:
            _empty(ax, s(data.no_tags))
            return
        ys = range(len(data.tags))
        shares = [bar.share for bar in data.tags]
        colours = [RED if v < LOW else AMBER if v < MIDDLE else GREEN for v in shares]
        ax.barh(ys, [100] * len(data.tags), color=TRACK, height=0.7)
        # A tag at 0 % keeps a stub of its colour, so it reads as "answered, none right".
        ax.barh(ys, [max(100 * v, 0.8) for v in shares], color=colours, height=0.7)
        for y, bar, share in zip(ys, data.tags, shares, strict=True):
            inside = share > 0.72  # a long bar carries its label inside, a short one after it
            ax.text(
                100 * share - 1.5 if inside else max(100 * share, 0.8) + 1.5, y, s(bar.label),
                ha="right" if inside else "left", va="center", fontsize=9,
                color="white" if inside else GREY,
            )  # fmt: skip
        ax.set_yticks(list(ys), [s(_short(bar.name)) for bar in data.tags])
        ax.set_ylim(len(data.tags) - 0.5, -0.5)  # weakest at the top
        ax.set_xlim(0, 100)
        ax.xaxis.set_major_locator(FixedLocator([0, 20, 40, 60, 80, 100]))
        ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        ax.tick_params(axis="y", length=0)

    def _activity(self, ax: Axes, data: ChartData, s: Label) -> None:
        ax.set_title(s(data.activity_title))
        xs = range(len(data.answers))
        bars = ax.bar(xs, data.answers, color=BLUE, width=0.75, label=s(data.answers_legend))
        _count_labels(ax, xs, data.answers, 6.5)
        _whole_numbers(ax, max(data.answers, default=0))
        ticks = _spaced_ticks(len(data.days), 7)
        ax.set_xticks(ticks, [s(data.days[k]) for k in ticks])
        ax.set_xlim(-0.6, len(data.answers) - 0.4)
        trend_ax = ax.twinx()
        trend = [math.nan if v is None else 100 * v for v in data.trend()]
        (line,) = trend_ax.plot(
            xs, trend, color=AMBER, linewidth=2, marker="o", markersize=3, label=s(data.accuracy_legend)
        )
        trend_ax.set_ylim(0, 105)
        trend_ax.yaxis.set_major_locator(FixedLocator([0, 50, 100]))
        trend_ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        trend_ax.spines["top"].set_visible(False)
        trend_ax.tick_params(axis="y", labelsize=8, colors=AMBER)
        ax.legend(handles=[bars, line], **_LEGEND, ncols=2)

    def _forecast(self, ax: Axes, data: ChartData, s: Label) -> None:
        ax.set_title(s(data.forecast_title))
        xs = range(len(data.forecast))
        colours = [RED if x == 0 else "#8172b3" for x in xs]  # today's bar stands out
        ax.bar(xs, data.forecast, color=colours, width=0.7)
        _count_labels(ax, xs, data.forecast, 8)
        _whole_numbers(ax, max(data.forecast, default=0))
        ticks = list(range(0, len(data.forecast_days), 2)) if len(data.forecast_days) > 8 else list(xs)
        ax.set_xticks(ticks, [s(data.forecast_days[k]) for k in ticks])
        ax.set_xlim(-0.6, len(data.forecast) - 0.4)

    def _mocks(self, ax: Axes, data: ChartData, s: Label) -> None:
        ax.set_title(s(data.mock_title))
        if not data.mocks:
            _empty(ax, s(data.no_mocks))
            return
        xs = list(range(len(data.mocks)))
        scores = [100 * p.share for p in data.mocks]
        passes = [100 * p.pass_share for p in data.mocks]
        if len(set(passes)) == 1:
            pass_line = ax.axhline(passes[0], color=GREY, linestyle="--", linewidth=1,
                                   label=s(data.pass_legend))  # fmt: skip
        else:  # papers with different pass marks: each mock's own
            (pass_line,) = ax.plot(xs, passes, color=GREY, linestyle="--", linewidth=1, drawstyle="steps-mid",
                                   label=s(data.pass_legend))  # fmt: skip
        ax.plot(xs, scores, color=BLUE, linewidth=2, zorder=2)
        ax.scatter(xs, scores, zorder=3, s=30,
                   color=[GREEN if p.share >= p.pass_share else RED for p in data.mocks])  # fmt: skip
        for x, point, score in zip(xs, data.mocks, scores, strict=True):
            ax.annotate(s(point.label), (x, score), xytext=(0, 7), textcoords="offset points",
                        ha="center", fontsize=8, color=GREY, zorder=4,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})  # fmt: skip
        ticks = _spaced_ticks(len(xs), 8)
        ax.set_xticks(ticks, [s(data.mocks[k].when) for k in ticks])
        ax.set_xlim(-0.5, max(len(xs) - 0.5, 0.5))
        ax.set_ylim(0, 112)
        ax.yaxis.set_major_locator(FixedLocator([0, 20, 40, 60, 80, 100]))
        ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        ax.legend(handles=[pass_line], **_LEGEND)
