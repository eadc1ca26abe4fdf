"""PDF papers for the tests, written with fpdf2 (a test-only dependency) in the CJK font the
install brings (Noto Sans CJK, adapters/charts/fonts.py): single-column and two-column pages,
the columns written one after the other or line by line across the page (as a table-based
layout does), and image-only pages (a scan: no text layer).

Two fonts: the collection's CFF face as it is (fpdf2 embeds it as a CID-keyed CFF font with an
embedded CMap), and that face subset to the paper's characters and converted to TrueType outlines,
which fpdf2 embeds as Word and WPS do (CIDFontType2, Identity-H).
"""

from __future__ import annotations

import io
import re
import tempfile
from functools import cache
from pathlib import Path

import noto_cjk_sans_otc
from fpdf import FPDF

SC_FACE = 2  # Noto Sans CJK SC in the collection (JP, KR, SC, TC, HK, …)
PAGE_W, MARGIN, GUTTER = 210.0, 15.0, 8.0


@cache
def truetype_subset(text: str) -> bytes:
    """The SC face subset to `text`'s characters, its CFF outlines converted to TrueType ones."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.subset import Options, Subsetter
    from fontTools.ttLib import TTFont, newTable

    font = TTFont(str(noto_cjk_sans_otc.FONT_PATH), fontNumber=SC_FACE)
    options = Options()
    options.desubroutinize = True
    options.notdef_outline = True
    subsetter = Subsetter(options)
    subsetter.populate(text=text + " ")
    subsetter.subset(font)
    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    font["glyf"] = glyf
    font["loca"] = newTable("loca")
    del font["CFF "]
    if "VORG" in font:
        del font["VORG"]
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for field in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs",
                  "maxStackElements", "maxSizeOfInstructions", "maxComponentElements"):  # fmt: skip
        setattr(maxp, field, 0)
    maxp.maxZones = 1
    font["head"].indexToLocFormat = 0
    font["head"].glyphDataFormat = 0
    post = font["post"]
    post.formatType = 2.0
    post.extraNames, post.mapping, post.glyphOrder = [], {}, order
    font.sfntVersion = "\x00\x01\x00\x00"
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def _pdf(text: str, font: str, size: float, alphabet: str | None = None) -> FPDF:
    """A page with the CJK font set: `font` "truetype" (subset to `alphabet`, else to `text`:
    a fixed alphabet is subset once for many papers) or "cff"."""
    pdf = FPDF(format="A4")
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_auto_page_break(True, MARGIN)
    if font == "truetype":
        # fpdf2 takes a font by its file name only
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "subset.ttf")
            path.write_bytes(truetype_subset("".join(sorted(set(alphabet or text)))))
            pdf.add_font("cjk", fname=path)
    else:
        pdf.add_font("cjk", fname=str(noto_cjk_sans_otc.FONT_PATH), collection_font_number=SC_FACE)
    pdf.set_font("cjk", size=size)
    pdf.add_page()
    return pdf


# What a line may not be broken inside: a blank `（ ）`, a Latin word or number, a space
# next to a CJK character (only a space between two Latin words is a place to break).
_TOKENS = re.compile(r"[（(][ 　]*[）)]|[A-Za-z0-9]+(?:[.,:%/][A-Za-z0-9]+)*|(?<=[!-~]) (?=[!-~])|.")


def _wrap(pdf: FPDF, line: str, width: float) -> list[str]:
    """`line` broken as Word and WPS break Chinese text: between any two characters, Latin
    words kept whole; a space between Latin words where the line breaks is dropped."""
    out: list[str] = []
    current = ""
    for token in _TOKENS.findall(line):
        if current and pdf.get_string_width(current + token) > width:
            out.append(current)
            current = "" if token == " " else token
        else:
            current += token
    return [*out, current] if current else out


def _wrapped(pdf: FPDF, text: str, width: float) -> list[str]:
    """`text`'s lines wrapped at `width` mm (a blank line kept blank)."""
    lines: list[str] = []
    for line in text.split("\n"):
        lines += _wrap(pdf, line, width) if line.strip() else [""]
    return lines


def single_column(text: str, *, font: str = "truetype", size: float = 11,
                  alphabet: str | None = None) -> bytes:  # fmt: skip
    """`text` on A4 pages, one column, long lines wrapped."""
    pdf = _pdf(text, font, size, alphabet)
    for line in _wrapped(pdf, text, PAGE_W - 2 * MARGIN):
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")  # a page break when the page is full
    return bytes(pdf.output())


def two_columns(text: str, *, title: str = "", font: str = "truetype", size: float = 10,
                across: bool = False, alphabet: str | None = None) -> bytes:  # fmt: skip
    """`text` in two columns under a full-width `title`, filling the left column then the right
    one, page after page. The content stream holds the left column then the right one, or
    (`across`) each row's left line then its right line, as a table-based layout writes them."""
    pdf = _pdf(title + text, font, size, alphabet)
    width = (PAGE_W - 2 * MARGIN - GUTTER) / 2
    lines = _wrapped(pdf, text, width)
    top = MARGIN
    if title:
        pdf.set_font_size(size + 4)
        pdf.cell(0, 9, title, align="C", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font_size(size)
        top = pdf.get_y() + 3
    rows = int((297 - MARGIN - top) // 6)
    while lines:
        left, right, lines = lines[:rows], lines[rows : 2 * rows], lines[2 * rows :]
        placed = [(MARGIN, i, line) for i, line in enumerate(left)]
        placed += [(MARGIN + width + GUTTER, i, line) for i, line in enumerate(right)]
        if across:
            placed.sort(key=lambda p: (p[1], p[0]))
        for x, row, line in placed:
            if line:
                pdf.text(x, top + 6 * row + 4.5, line)
        if lines:
            pdf.add_page()
            top = MARGIN
            rows = int((297 - 2 * MARGIN) // 6)
    return bytes(pdf.output())


def scanned(pages: int = 1) -> bytes:
    """Image-only pages, as a scanner writes them: a picture of text, no text layer."""
    from PIL import Image, ImageDraw

    pdf = FPDF(format="A4")
    for page in range(pages):
        picture = Image.new("L", (400, 560), 255)
        draw = ImageDraw.Draw(picture)
        for row in range(20):
            draw.rectangle((30, 30 + 25 * row, 30 + (row * 37 + page * 11) % 300 + 40, 42 + 25 * row), fill=0)
        buffer = io.BytesIO()
        picture.save(buffer, format="PNG")
        pdf.add_page()
        pdf.image(buffer, x=0, y=0, w=PAGE_W)
    return bytes(pdf.output())
