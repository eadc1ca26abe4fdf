"""The fonts the progress chart draws with: the CJK font the install brings, loaded by path.

The font comes with the Python package `noto-cjk-sans-otc` (Noto Sans CJK, SIL Open Font
License, a dependency in pyproject.toml): every machine that installs studybot has it, with or
without system fonts (a fresh Debian, the slim Docker image). It is added to matplotlib's font
manager from its file, so neither the machine's fonts nor matplotlib's font cache (which may have
been built before any CJK font was installed) decide whether Chinese labels are drawn.

The collection holds one face per region; the chart uses the face of the reader's language
(simplified forms for zh-CN, traditional for zh-TW) and DejaVu Sans (matplotlib's own) for Latin
text, each falling back to the other glyph by glyph. A character neither font has (an emoji in a
tag name, a script neither covers) is drawn as U+FFFD instead of letting matplotlib warn about a
missing glyph and draw an empty box: `drawable` says what will be drawn.
"""

from __future__ import annotations

import threading
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import noto_cjk_sans_otc
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

LATIN = "DejaVu Sans"  # shipped inside matplotlib itself
CJK_FILE = Path(str(noto_cjk_sans_otc.FONT_PATH))
# The face of the collection for each chart language; English charts still show Chinese tag names.
CJK_FACES = {"zh-CN": "Noto Sans CJK SC", "zh-TW": "Noto Sans CJK TC", "en": "Noto Sans CJK SC"}
MISSING = "\ufffd"  # drawn for a character no chart font has
_LOAD = threading.Lock()


@dataclass(frozen=True, slots=True)
class ChartFonts:
    """The family list for matplotlib (first choice first) and the faces behind it."""

    families: tuple[str, ...]
    faces: tuple[FT2Font, ...]

    def has(self, char: str) -> bool:
        return any(face.get_char_index(ord(char)) for face in self.faces)


@cache
def _registered() -> None:
    """Add the bundled collection (all its faces) to matplotlib's font manager, once."""
    font_manager.fontManager.addfont(str(CJK_FILE))


def face_path(family: str) -> font_manager.FontPath | str:
    """The file (and face in it) that matplotlib draws `family` from; no fallback to another."""
    with _LOAD:
        _registered()
    return font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)


@cache
def chart_fonts(language: str) -> ChartFonts:
    """The fonts for a chart in `language`: Latin first in English, the CJK face first otherwise
    (so Chinese punctuation takes its full-width form)."""
    cjk = CJK_FACES.get(language, CJK_FACES["zh-CN"])
    families = (LATIN, cjk) if language == "en" else (cjk, LATIN)
    faces = []
    for family in families:
        path = face_path(family)
        faces.append(FT2Font(str(path), face_index=getattr(path, "face_index", 0)))
    return ChartFonts(families, tuple(faces))


def drawable(text: str, fonts: ChartFonts) -> str:
    """`text` as the chart can draw it: one line; characters no font has become U+FFFD (invisible
    format characters such as variation selectors are left out); `$` is escaped so that bank text
    is never read as matplotlib math."""
    out = []
    for char in " ".join(text.split()):
        if char == "$":
            out.append("\\$")
        elif char == " " or fonts.has(char):
            out.append(char)
        elif unicodedata.category(char) in ("Cf", "Mn", "Me", "Cc", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue  # joiners, selectors, controls: nothing to see on their own
        else:
            out.append(MISSING)
    return "".join(out)
