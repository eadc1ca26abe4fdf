"""What the study end-to-end tests (Telegram and Discord) check the same way: a /stats chart is a
PNG whose Chinese labels were drawn with a font that has their glyphs (not tofu boxes): the CJK
font the install brought (adapters/charts/fonts.py), whatever fonts the machine has.

The chart is drawn in the bot's chart process, where this test cannot hear matplotlib's "Glyph
missing" warnings; tests/test_study_tools.py hears them for the same drawing code in this process
and checks the chart process draws the very same PNG."""

from __future__ import annotations

import io
from pathlib import Path

from matplotlib.ft2font import FT2Font

from adapters.charts.fonts import CJK_FACES, CJK_FILE, face_path
from bot.locales.i18n import t

PNG = b"\x89PNG\r\n\x1a\n"
CHART_LABELS = tuple(
    f"progress.chart_{part}"
    for part in ("title", "tags", "activity", "forecast", "answers", "mocks", "pass", "today", "no_mocks")
)


def assert_cjk_chart(png: bytes, language: str) -> None:
    """`png` is a chart in `language`, its labels drawn."""
    assert png.startswith(PNG)
    family = CJK_FACES[language]
    path = face_path(family)
    assert Path(path) == CJK_FILE, path  # the font the install brought, not one of the machine's
    font = FT2Font(path, face_index=getattr(path, "face_index", 0))
    labels = "".join(t(language, key) for key in CHART_LABELS)
    han = {ch for ch in labels if "\u4e00" <= ch <= "\u9fff"}
    assert han, labels  # the labels are Chinese
    missing = sorted(ch for ch in han if font.get_char_index(ord(ch)) == 0)
    assert not missing, f"{family} ({path}) has no glyph for {missing}"
    assert _ink_shapes(png) > 50  # text drawn: many distinct patterns (boxes all look alike)


def _ink_shapes(png: bytes) -> int:
    """The distinct 8x8 patterns of dark pixels in the picture."""
    from matplotlib import image as mpimg

    pixels = mpimg.imread(io.BytesIO(png))
    dark = pixels[:, :, :3].mean(axis=2) < 0.5
    return len(
        {
            dark[y : y + 8, x : x + 8].tobytes()
            for y in range(0, dark.shape[0] - 8, 8)
            for x in range(0, dark.shape[1] - 8, 8)
            if dark[y : y + 8, x : x + 8].any()
        }
    )
