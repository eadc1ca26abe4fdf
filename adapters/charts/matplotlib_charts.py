"""The progress chart drawn with matplotlib (Agg, no display): accuracy by tag, answers per day
over the last 30 days, and the FSRS due forecast, as one PNG.

Chinese labels need a CJK font: the first installed one from `CJK_FONTS` (fonts-wqy-microhei,
installed by .ci/run, or any Noto CJK) is put ahead of DejaVu Sans, so Latin text keeps its look
and Han characters do not come out as boxes.
"""

from __future__ import annotations

import io
import threading
from functools import cache

import matplotlib

matplotlib.use("Agg")

from matplotlib import font_manager
from matplotlib.figure import Figure

from bot.study.charts import ChartData

CJK_FONTS = (
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Droid Sans Fallback",
    "AR PL UMing CN",
)
# matplotlib's font cache and text layout are not safe to use from several threads at once.
_LOCK = threading.Lock()


@cache
def cjk_font() -> str | None:
    """The family name of an installed CJK font, or None."""
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


class MatplotlibCharts:
    def __init__(self, dpi: int = 100) -> None:
        self.dpi = dpi

    def render(self, data: ChartData) -> bytes:
        family = [name for name in (cjk_font(), "DejaVu Sans") if name]
        with (
            _LOCK,
            matplotlib.rc_context(
                {"font.family": "sans-serif", "font.sans-serif": family, "axes.unicode_minus": False}
            ),
        ):
            figure = Figure(figsize=(8, 9), dpi=self.dpi)
            figure.suptitle(data.title, fontsize=14)
            tags_ax, activity_ax, forecast_ax = figure.subplots(3, 1)
            names = [name for name, _ in data.tags] or ["—"]
            values = [value * 100 for _, value in data.tags] or [0.0]
            tags_ax.barh(names, values, color="#4c72b0")
            tags_ax.set_xlim(0, 100)
            tags_ax.invert_yaxis()
            tags_ax.set_title(data.tag_title)
            activity_ax.bar(range(-len(data.activity) + 1, 1), data.activity, color="#55a868")
            activity_ax.set_title(data.activity_title)
            forecast_ax.bar(range(len(data.forecast)), data.forecast, color="#c44e52")
            forecast_ax.set_title(data.forecast_title)
            figure.tight_layout()
            out = io.BytesIO()
            figure.savefig(out, format="png")
        return out.getvalue()
