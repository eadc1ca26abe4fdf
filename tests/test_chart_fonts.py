"""The chart's fonts come with the install: /stats on a machine without any font of its own (the
system font folders hidden by empty mounts in a private mount namespace, a fresh matplotlib
config and cache) prints no warning and draws its Chinese labels with the bundled Noto Sans CJK;
and no text a bank or a person can bring makes matplotlib warn about a missing glyph.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.charts.fonts import CJK_FILE, MISSING, chart_fonts, drawable
from adapters.charts.matplotlib_charts import MatplotlibCharts
from bot.locales.i18n import t
from bot.views.charts import ChartData, MockPoint, TagBar
from tests.study_e2e import assert_cjk_chart

ROOT = Path(__file__).resolve().parent.parent
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")
# Mount an empty tmpfs over every system font folder, then run the rest of the command line.
HIDE_FONTS = 'while [ "$1" != -- ]; do [ -d "$1" ] && mount -t tmpfs none "$1"; shift; done; shift; exec "$@"'
SYSTEM_FONTS = (
    "from matplotlib import font_manager as f; import json; print(json.dumps(f.findSystemFonts()))"
)


def _unshare_works() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(
    not _unshare_works(), reason="needs a private mount namespace (unshare -m, as root)"
)


def _without_fonts(args: list[str], env: dict[str, str], **kwargs) -> subprocess.CompletedProcess[str]:
    command = ["unshare", "-m", "--propagation", "private", "sh", "-c", HIDE_FONTS, "sh", *FONT_DIRS, "--"]
    return subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=120, **kwargs)


@needs_namespaces
def test_stats_without_any_system_font_draws_its_labels_and_warns_nothing(tmp_path):
    home = tmp_path / "home"  # no ~/.fonts, no ~/.cache/matplotlib either
    home.mkdir()
    hidden = ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "MPLCONFIGDIR")
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"),
               STUDYBOT_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))  # fmt: skip
    # What the machine offers matplotlib here: nothing (its own DejaVu Sans aside).
    probe = {**env, "MPLCONFIGDIR": str(tmp_path / "probe")}
    seen = _without_fonts([sys.executable, "-c", SYSTEM_FONTS], probe)
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.strip() == "[]", seen.stdout
    env["MPLCONFIGDIR"] = str(tmp_path / "mpl")  # a fresh font cache, built with no font around
    script = "/quiz single\nA\n/quiz judge\n对\n/stats\n/stats\n/quit\n"
    run = _without_fonts([sys.executable, "-m", "studybot"], env, input=script, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # Nothing but studybot's own start-up line: no "Glyph … missing from font(s)", no matplotlib.
    assert [line for line in run.stderr.splitlines() if not line.startswith("studybot: ")] == [], run.stderr
    assert not any(word in run.stderr for word in ("Glyph", "font", "Warning", "matplotlib"))
    assert "Glyph" not in run.stdout and "font" not in run.stdout.lower()
    chart = tmp_path / "data" / "progress.png"
    saved = t("zh-CN", "console.file_saved", path=str(chart.resolve()))
    assert run.stdout.count(saved) == 2, run.stdout  # both /stats wrote the one progress.png
    assert not list((tmp_path / "data").glob("progress-*"))
    log = (tmp_path / "data" / "studybot.log").read_text(encoding="utf-8")
    assert "Glyph" not in log and "findfont" not in log, log
    assert_cjk_chart(chart.read_bytes(), "zh-CN")


def _chart(text: str, language: str = "zh-CN") -> ChartData:
    """A chart whose every label is `text` (tags, dates, titles, legends)."""
    return ChartData(
        language=language, title=text, tag_title=text,
        tags=(TagBar(text, 1, 3, text), TagBar(text + "2", 0, 1, "0%")), no_tags=text,
        activity_title=text, days=(text,) * 30, answers=(2,) * 30, right=(1,) * 30, answers_legend=text,
        accuracy_legend=text, trend_days=7, forecast_title=text, forecast_days=(text,) * 14,
        forecast=(1,) * 14, mock_title=text, mocks=(MockPoint(text, 0.5, 0.6, text),), no_mocks=text,
        pass_legend=text,
    )  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=24), language=st.sampled_from(["zh-CN", "zh-TW", "en"]))
def test_no_text_makes_a_glyph_go_missing(text, language, caplog):
    caplog.clear()
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING):
        warnings.simplefilter("error")  # matplotlib warns "Glyph … missing from font(s)"
        png = MatplotlibCharts().render(_chart(text, language))
    assert png.startswith(b"\x89PNG")
    assert not caplog.records, [r.getMessage() for r in caplog.records]


def test_what_no_font_has_is_drawn_as_one_mark():
    fonts = chart_fonts("zh-CN")
    assert drawable("注意力 attention 注意", fonts) == "注意力 attention 注意"
    assert drawable("繁體 Ελληνικά русский", fonts) == "繁體 Ελληνικά русский"
    assert drawable("ไทย", fonts) == MISSING * 3  # Thai: in neither font
    assert drawable("cost $5 and $6", fonts) == "cost \\$5 and \\$6"  # not matplotlib math
    assert drawable("a\n\tb", fonts) == "a b"


def test_the_faces_follow_the_language():
    assert chart_fonts("zh-CN").families == ("Noto Sans CJK SC", "DejaVu Sans")
    assert chart_fonts("zh-TW").families == ("Noto Sans CJK TC", "DejaVu Sans")
    assert chart_fonts("en").families == ("DejaVu Sans", "Noto Sans CJK SC")
    assert CJK_FILE.is_file() and CJK_FILE.stat().st_size > 10_000_000  # the whole CJK font


def test_traditional_labels_are_drawn_in_a_taiwan_chart():
    assert_cjk_chart(MatplotlibCharts().render(_chart("標籤正確率", "zh-TW")), "zh-TW")
