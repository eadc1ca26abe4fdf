"""PDF papers: the text layer of a PDF, in reading order, one line per printed line, for the
paper reader (paper.py); its places are `page P line L`.

The text is read with PDFium (the `pypdfium2` package, the engine of Chrome's PDF viewer),
chosen by measurement over pypdf and pdfplumber (docs/bank-format.md, "PDF"): it was the only one
of the three that read every font encoding the test papers use (a TrueType CJK font as Word and
WPS embed it, a CFF CJK font with an embedded CMap, a non-embedded Adobe-GB1 font), and the
fastest. PDFium gives the text as rectangles, one run of a printed line each; this module puts
them in reading order:

- runs on the same printed line are one row, left to right;
- a page set in two columns is read left column first, then the right one: a vertical gutter
  near the middle that no row crosses, over a band of rows whose right side holds text of its own
  (not only the `B.` `D.` options of a 2×2 option layout, which share a row with `A.` `C.`);
  rows that cross the gutter (a title, a full-width section header) stay in their place;
- a line that fills its column and is followed by one starting at the column's edge (a line the
  layout wrapped, not the author) is joined to it, so that a wrap inside `答案` or inside a word
  changes nothing; a line starting with an item number, an option letter, a section header or an
  answer or explanation marker is never joined;
- a page number alone on the first or last line of a page is not text of the paper.

The fonts a PDF names but does not embed (STSong-Light, as reportlab writes Chinese) are measured
with the packaged Noto Sans CJK, whatever fonts the machine has (pdf_fonts.py).

A PDF without a text layer (a scan, images only) is refused: there is no OCR. A page without
text among pages with text is reported; each picture on a page is taken out as a PNG and goes
with the item above it (images.py).
PDFium is not thread-safe: one document is read at a time in the process.
"""

from __future__ import annotations

import io
import logging
import re
import threading
import unicodedata
from dataclasses import dataclass, field

from bank.importer.pdf_fonts import install as install_fonts

log = logging.getLogger(__name__)

# A picture of more pixels than this is not decoded (40 MP: 120 MB as RGB; a scan at 600 dpi of
# an A4 page is 35 MP): a paper's figure is far smaller, and an upload must not exhaust memory.
MAX_PICTURE_PIXELS = 40_000_000

__all__ = ["PdfPage", "PdfText", "UnreadablePdf", "read_pdf"]

_LOCK = threading.Lock()
MAX_PAGES = 2000  # a paper has tens of pages; a file claiming more is refused unread


class UnreadablePdf(Exception):
    """The PDF cannot be read: `key` is the catalog sentence (import.refused.*), which may name
    the number of `pages` and the `limit`."""

    def __init__(self, key: str, pages: int = 0, limit: int = 0) -> None:
        super().__init__(key)
        self.key, self.pages, self.limit = key, pages, limit


@dataclass(frozen=True, slots=True)
class _Run:
    """One rectangle of text as PDFium gives it (PDF units, y grows upwards)."""

    left: float
    bottom: float
    right: float
    top: float
    text: str

    @property
    def height(self) -> float:
        return max(self.top - self.bottom, 1.0)

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(slots=True)
class _Line:
    runs: list[_Run]
    column: int = 0  # 0 full width, 1 left column, 2 right column

    @property
    def left(self) -> float:
        return min(r.left for r in self.runs)

    @property
    def right(self) -> float:
        return max(r.right for r in self.runs)

    @property
    def top(self) -> float:
        return max(r.top for r in self.runs)

    @property
    def bottom(self) -> float:
        return min(r.bottom for r in self.runs)

    @property
    def height(self) -> float:
        return max(r.height for r in self.runs)

    def text(self) -> str:
        parts: list[str] = []
        previous: _Run | None = None
        for run in sorted(self.runs, key=lambda r: r.left):
            if previous is not None:
                gap = run.left - previous.right
                parts.append("" if gap < 0.25 * run.height else " " if gap < 1.5 * run.height else "  ")
            parts.append(run.text)
            previous = run
        return "".join(parts)


@dataclass
class PdfPage:
    """A page's lines in reading order, and its pictures: the index of the line each one
    follows (-1 before the first) and its bytes and extension (None if PDFium could not give
    them)."""

    lines: list[str]
    images: list[tuple[int, tuple[bytes, str] | None]] = field(default_factory=list)
    has_images: bool = False
    scan: bool = False  # a picture covers the page (a scan, or the one behind a searchable scan)


@dataclass
class PdfText:
    pages: list[PdfPage]

    def lines(self) -> tuple[list[str], list[str]]:
        """Every line of the paper and its place (`page P line L`)."""
        lines: list[str] = []
        places: list[str] = []
        for number, page in enumerate(self.pages, 1):
            for index, line in enumerate(page.lines, 1):
                lines.append(line)
                places.append(f"page {number} line {index}")
        return lines, places


def read_pdf(data: bytes) -> PdfText:
    """The text layer of the PDF in `data`, page by page in reading order. Raises UnreadablePdf
    for a damaged or protected file, or one with no text at all (a scan)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    with _LOCK:
        install_fonts(pdfium_c)  # the packaged CJK font, not the machine's (pdf_fonts.py)
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if exc.err_code == pdfium_c.FPDF_ERR_PASSWORD:
                raise UnreadablePdf("import.refused.pdf_password") from None
            raise UnreadablePdf("import.refused.bad_pdf") from None
        except Exception:  # whatever else the library raises for bytes it cannot take
            raise UnreadablePdf("import.refused.bad_pdf") from None
        # Everything PDFium gives is taken out inside the try: a damaged page may fail only
        # when it is reached.
        try:
            count = len(document)
            if count > MAX_PAGES:
                raise UnreadablePdf("import.refused.pdf_pages", pages=count, limit=MAX_PAGES)
            raw_pages = [_page_runs(document, i, pdfium_c) for i in range(count)]
        except UnreadablePdf:
            raise
        except Exception:
            raise UnreadablePdf("import.refused.bad_pdf") from None
        finally:
            document.close()
    if not raw_pages:
        raise UnreadablePdf("import.refused.bad_pdf")
    pages = [_layout(runs, images, width, height) for runs, images, width, height in raw_pages]
    if not any(line.strip() for page in pages for line in page.lines):
        raise UnreadablePdf("import.refused.pdf_no_text", pages=len(pages))
    return PdfText(pages)


_Box = tuple[float, float, float, float]
_Image = tuple[_Box, tuple[bytes, str] | None]


def _page_runs(document, index: int, pdfium_c) -> tuple[list[_Run], list[_Image], float, float]:
    page = document[index]
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        try:
            runs = []
            for number in range(textpage.count_rects()):
                left, bottom, right, top = textpage.get_rect(number)
                text = _clean(textpage.get_text_bounded(left, bottom, right, top))
                if text:
                    runs.append(_Run(left, bottom, right, top, text))
        finally:
            textpage.close()
        images = [(tuple(obj.get_bounds()), _picture(obj, width * height))
                  for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,))]
    finally:
        page.close()
    return runs, images, width, height


def _picture(obj, page_area: float) -> tuple[bytes, str] | None:
    """The picture of an image object and its extension, in its own pixels (not rendered at
    the page's scale): a JPEG as the PDF holds it (a photo made a PNG would be many times its
    size), anything else decoded into a PNG; None when PDFium cannot decode it, or for the
    full-page scan behind a searchable PDF's text (never kept: _layout leaves it out)."""
    left, bottom, right, top = obj.get_bounds()
    if (right - left) * (top - bottom) >= 0.8 * max(page_area, 1.0):
        return None
    try:
        width, height = obj.get_px_size()
        if width * height > MAX_PICTURE_PIXELS:  # decoded, it would take gigabytes: left out
            log.info("a PDF picture of %d x %d pixels is too large to take out", width, height)
            return None
        if list(obj.get_filters()) == ["DCTDecode"]:
            data = bytes(obj.get_data(decode_simple=False))
            if data.startswith(b"\xff\xd8\xff"):
                return data, "jpg"
        out = io.BytesIO()
        obj.get_bitmap(render=False).to_pil().save(out, format="PNG")
        return out.getvalue(), "png"
    except Exception as exc:  # a filter PDFium cannot decode, a damaged stream
        log.info("a PDF picture PDFium cannot decode: %r", exc)
        return None


def _clean(text: str) -> str:
    """A run's text on one line: PDFium's line breaks, NULs and other control characters out."""
    text = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    return "".join(c for c in text if c == " " or unicodedata.category(c)[0] != "C" or c == "\t").strip()


# ---------------------------------------------------------------- reading order


def _rows(runs: list[_Run]) -> list[_Line]:
    """Runs grouped into printed lines, top to bottom: a run belongs to a row when their
    heights overlap by at least half the smaller one."""
    rows: list[_Line] = []
    for run in sorted(runs, key=lambda r: (-r.middle, r.left)):
        for row in reversed(rows[-4:]):
            overlap = min(row.top, run.top) - max(row.bottom, run.bottom)
            if overlap >= 0.5 * min(row.height, run.height):
                row.runs.append(run)
                break
        else:
            rows.append(_Line([run]))
    return rows


_OPTION_START = re.compile(r"[（(]?[A-HＡ-Ｈa-h][.．、)）:：]")


def _gutter(rows: list[_Line], width: float) -> float | None:
    """The x of the gap between two columns: among the stretches of the middle half of the page
    crossed by the fewest runs, the one with the most text on its poorer side (a gap beside the
    last few lines of a right column, not the empty margin right of them), then the widest."""
    runs = [run for row in rows for run in row.runs]
    if len(runs) < 4 or width < 100:
        return None
    steps = 200
    step = width / steps
    cover = [0] * steps
    for run in runs:
        if abs((run.left + run.right) / 2 - width / 2) < 0.03 * width and run.right - run.left < width / 2:
            continue  # a centred title over both columns says nothing about where they part
        for i in range(max(int(run.left / step), 0), min(int(run.right / step) + 1, steps)):
            cover[i] += 1
    middle = range(steps // 4, 3 * steps // 4)
    least = min(cover[i] for i in middle)
    stretches: list[tuple[int, int]] = []
    start: int | None = None
    for i in [*middle, None]:
        if i is not None and cover[i] == least:
            start = i if start is None else start
        elif start is not None:
            stretches.append((start, i if i is not None else middle.stop))
            start = None

    def score(stretch: tuple[int, int]) -> tuple[int, int]:
        x = (stretch[0] + stretch[1]) / 2 * step
        sides = sum(1 for r in runs if r.right <= x), sum(1 for r in runs if r.left >= x)
        return min(sides), stretch[1] - stretch[0]

    first, end = max(stretches, key=score)
    return (first + end) / 2 * step


def _letter(run: _Run) -> str:
    match = _OPTION_START.match(run.text)
    return unicodedata.normalize("NFKC", match.group(0)).strip("（(").upper()[0] if match else ""


def _grid_row(row: _Line, gutter: float) -> bool:
    """A row of options set side by side: an option on the left of `gutter`, and on its right
    one with a later letter (`A. …  B. …`). In two real columns the right column also holds
    stems and answers, which no grid has."""
    left = [r for r in row.runs if r.right <= gutter]
    right = [r for r in row.runs if r.left >= gutter]
    if not left or not right:
        return False
    before = _letter(max(left, key=lambda r: r.left))
    after = _letter(min(right, key=lambda r: r.left))
    return bool(before and after and after > before)


def _two_columns(band: list[_Line], gutter: float) -> bool:
    """Whether a band of rows that do not cross `gutter` is set in two columns: rows on both
    sides, and on the right a column of text, not the options of a grid or marks in a margin."""
    right = [r for row in band for r in row.runs if r.left >= gutter]
    right_rows = sum(1 for row in band if any(r.left >= gutter for r in row.runs))
    left_rows = sum(1 for row in band if any(r.right <= gutter for r in row.runs))
    if right_rows < 1 or left_rows < 3:  # the last page's right column may hold one line
        return False
    if all(_grid_row(row, gutter) for row in band if any(r.left >= gutter for r in row.runs)):
        return False  # `B.` `D.` beside `A.` `C.`: options set in a grid, one column of text
    # A column of text has items, options, answers or sentences, not only a strip of marks set
    # at the right edge (`（ ）`, `（2分）`)
    return sum(1 for r in right if len(r.text) > 6 or _STARTS.match(r.text)) >= min(3, len(right))


def _ordered(rows: list[_Line], gutter: float | None) -> list[_Line]:
    """Rows in reading order: bands set in two columns read left column, then right."""
    if gutter is None:
        return rows
    out: list[_Line] = []
    band: list[_Line] = []

    def flush() -> None:
        if band and _two_columns(band, gutter):
            lefts, rights = [], []
            for row in band:
                left = [r for r in row.runs if r.right <= gutter]
                right = [r for r in row.runs if r.left >= gutter]
                if left:
                    lefts.append(_Line(left, 1))
                if right:
                    rights.append(_Line(right, 2))
            out.extend(lefts + rights)
        else:
            out.extend(band)
        band.clear()

    # Where the right column's lines start: a run right of the gutter starting well before that
    # (a centred title, a short centred header) is not in the column but across the page.
    starts = sorted(r.left for row in rows for r in row.runs if r.left >= gutter)
    column_start = starts[len(starts) // 2] if starts else gutter
    for row in rows:
        if any(r.left < gutter < r.right or gutter <= r.left < column_start - 2 * r.height
               for r in row.runs):  # fmt: skip
            flush()
            out.append(row)
        else:
            band.append(row)
    flush()
    return out


# A line that starts one of these is the author's line, never the rest of the line above.
_STARTS = re.compile(
    r"\s*(?:[（(]?[0-9０-９]+[.．、)）]|[（(]?[A-HＡ-Ｈ][.．、)）]|[一二三四五六七八九十]+[、.．]"
    r"|【|(?:正确|参考|标准)?答案|解析|[Aa]nswer|ANSWER)"
)
_PAGE_NUMBER = re.compile(
    r"[-—–\s]*(?:\d+|第\s*\d+\s*页(?:\s*[,，/]?\s*共\s*\d+\s*页)?|\d+\s*/\s*\d+|[Pp]age\s*\d+(?:\s*of\s*\d+)?)[-—–\s]*"
)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _joined(lines: list[_Line]) -> list[tuple[_Line, str]]:
    """(first line, text) with the lines the layout wrapped joined: a line reaching its
    column's right edge, followed in the same column by one starting at its left edge."""
    edges: dict[int, tuple[float, float]] = {}
    for column in {line.column for line in lines}:
        inside = [line for line in lines if line.column == column]
        left = min(line.left for line in inside)
        # the right edge of the lines that start at the left one: a centred title is no edge
        right = max(line.right for line in inside if line.left <= left + 2 * line.height)
        edges[column] = (left, right)
    out: list[tuple[_Line, str]] = []
    previous: _Line | None = None
    for line in lines:
        text = line.text()
        left, right = edges[line.column]
        if (previous is not None and out and previous.column == line.column
                and previous.right >= right - 1.5 * previous.height
                and line.left <= left + 0.8 * line.height
                and -0.5 * line.height < previous.bottom - line.top < 1.5 * line.height
                and not _STARTS.match(text)):  # fmt: skip
            head, before = out[-1]
            glue = "" if _wide(before[-1]) or _wide(text[0]) else " "
            out[-1] = (head, before + glue + text)
        else:
            out.append((line, text))
        previous = line
    return out


def _layout(runs: list[_Run], images: list[_Image], width: float, height: float) -> PdfPage:
    rows = _rows(runs)
    if rows and _PAGE_NUMBER.fullmatch(rows[-1].text()):
        rows.pop()
    if rows and _PAGE_NUMBER.fullmatch(rows[0].text()):
        rows.pop(0)
    gutter = _gutter(rows, width)
    joined = _joined(_ordered(rows, gutter))
    page = PdfPage([text for _, text in joined], has_images=bool(images))
    area = max(width * height, 1.0)
    for (left, bottom, right, top), data in images:
        if (right - left) * (top - bottom) >= 0.8 * area:
            page.scan = True
            if joined:
                continue  # the scan behind a searchable PDF's text: the text is what was read
        page.images.append((_line_before(joined, gutter, (left + right) / 2, (top + bottom) / 2), data))
    return page


def _line_before(joined: list[tuple[_Line, str]], gutter: float | None, x: float, y: float) -> int:
    """The index of the last line above a picture's middle in the picture's column (-1: the
    picture is above the page's first line)."""
    column = 0 if gutter is None else 1 if x < gutter else 2
    best = -1
    for index, (line, _) in enumerate(joined):
        if line.bottom >= y and line.column in (0, column):
            best = index
    return best
