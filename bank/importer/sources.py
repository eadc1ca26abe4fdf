"""Importing a source file of any supported format: `import_source(data, filename)` takes the
bytes and the file name (as a chat upload gives them), decodes them, picks the reader (given,
or detected from the content) and returns the bank with every warning and error. It never
prints; a file that cannot be read at all raises `ImportRefused` with a message naming the
place.

Formats: paper (pasted text papers, answers after each item or in a key at the end), aiken,
gift, csv, xlsx, docx, apkg (an Anki deck written by `studybot bank export --format anki`).
"""

from __future__ import annotations

import csv
import html
import io
import re
import sqlite3
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import replace

from bot.model import Bank

from .aiken import AikenReader, looks_like_aiken
from .base import PaperDraft
from .build import build_questions
from .clean import CleanText, clean_text
from .gift import GiftReader, looks_like_gift
from .paper import PaperReader
from .report import ImportResult, Report
from .table import header_columns, read_table

__all__ = [
    "FORMATS",
    "MAX_BYTES",
    "ImportRefused",
    "decode_text",
    "detect_format",
    "import_source",
]

TEXT_READERS = {reader.name: reader for reader in (PaperReader(), AikenReader(), GiftReader())}
FORMATS = ("paper", "aiken", "gift", "csv", "xlsx", "docx", "apkg")
MAX_BYTES = 32 * 1024 * 1024  # larger sources are refused before anything is read
_EXTENSIONS = {".gift": "gift", ".csv": "csv", ".tsv": "csv", ".xlsx": "xlsx", ".docx": "docx",
               ".apkg": "apkg", ".aiken": "aiken"}
_BANK_ID_RE = re.compile(r"[a-z0-9][a-z0-9-_]*")

Progress = Callable[[str, int, int], None]  # (stage, done, total)


class ImportRefused(Exception):
    """The source cannot be imported at all; str() names the file and the place."""


def _formats_hint() -> str:
    return f"formats: {', '.join(FORMATS)} (choose one with --format)"


def decode_text(data: bytes, name: str) -> tuple[str, str]:
    """Text and encoding: UTF-8 (with or without BOM), else GB18030. Refuses binary data."""
    if b"\x00" in data[:65536]:
        raise ImportRefused(f"{name}: binary file, not text, and not a .docx, .xlsx or .apkg "
                            f"({_formats_hint()})")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc
    try:
        return data.decode("gb18030"), "gb18030"
    except UnicodeDecodeError:
        line = data.count(b"\n", 0, utf8_error.start) + 1
        raise ImportRefused(f"{name}:{line}: neither UTF-8 nor GB18030 text (byte "
                            f"{utf8_error.start})") from None


def detect_format(data: bytes, filename: str) -> str:
    """The format of a source: containers by their content, text by its marks, else by the
    file's extension; `paper` when nothing else fits."""
    if data[:4] == b"PK\x03\x04":
        try:
            names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
        except zipfile.BadZipFile:
            raise ImportRefused(f"{filename}: a damaged zip archive (.docx/.xlsx/.apkg); "
                                "save it again") from None
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
        if names & {"collection.anki2", "collection.anki21"}:
            return "apkg"
        raise ImportRefused(f"{filename}: a zip archive that is not a .docx, .xlsx or .apkg "
                            f"({_formats_hint()})")
    if data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise ImportRefused(f"{filename}: an old Word/Excel file (.doc/.xls); save it as .docx "
                            "or .xlsx")
    suffix = filename[filename.rfind("."):].lower() if "." in filename else ""
    if suffix in _EXTENSIONS and _EXTENSIONS[suffix] not in ("docx", "xlsx", "apkg"):
        return _EXTENSIONS[suffix]
    text, _ = decode_text(data, filename)
    return detect_text_format(text)


def detect_text_format(text: str) -> str:
    head = text[:200_000]
    if looks_like_gift(head):
        return "gift"
    if looks_like_aiken(head):
        return "aiken"
    first = next((line for line in head.split("\n") if line.strip()), "")
    for delimiter in (",", "\t", ";"):
        cells = next(csv.reader([first], delimiter=delimiter), [])
        if {"stem", "answer"} <= set(header_columns(cells).values()):
            return "csv"
    return "paper"


def import_source(
    data: bytes,
    filename: str,
    *,
    format: str | None = None,
    bank_id: str | None = None,
    title: str | None = None,
    source: str | None = None,
    language: str = "zh-CN",
    max_bytes: int = MAX_BYTES,
    progress: Progress | None = None,
) -> ImportResult:
    """Import `data` (the file's bytes; `filename` for messages, the default bank id and the
    extension hint). Returns the bank with warnings and errors (`result.ok` says whether it
    may be written); raises ImportRefused when the bytes cannot be read at all."""
    name = filename.rsplit("/", 1)[-1]
    if len(data) > max_bytes:
        raise ImportRefused(f"{name}: {len(data) / 2**20:.1f} MB is over the "
                            f"{max_bytes / 2**20:.0f} MB limit for one source")
    if not data.strip():
        raise ImportRefused(f"{name}:1: the file is empty")
    bank_id = bank_id or slug(name.rsplit(".", 1)[0])
    if not _BANK_ID_RE.fullmatch(bank_id):
        raise ValueError(f"bank id {bank_id!r} must match [a-z0-9][a-z0-9-_]*")
    if format is not None and format not in FORMATS:
        raise ImportRefused(f"unknown format {format!r}; {_formats_hint()}")
    chosen = format or detect_format(data, name)
    report = Report(progress=progress)
    relocate: Callable[[str], str] | None = None
    doc = clean_text("")
    if chosen in TEXT_READERS or chosen == "csv":
        text, encoding = decode_text(data, name)
        if encoding != "utf-8":
            report.note(f"read as {encoding}")
        if chosen == "csv":
            paper = read_table(_csv_rows(text), report, _line_field, "CSV file")
        else:
            doc, paper = _read_text(text, TEXT_READERS[chosen], report)
    elif chosen == "docx":
        doc, paper, relocate = _read_docx(data, name, report)
    elif chosen == "xlsx":
        paper = _read_xlsx(data, name, report)
    else:
        paper = read_table(_apkg_rows(data, name), report, _note_field, "Anki deck")
    questions = build_questions(paper, doc, bank_id, report, duplicates=True) if not report.errors else []
    if not questions and not report.errors:
        report.warn("empty", f"no item found; looked for {_LOOKED_FOR[chosen]} ({_formats_hint()})")
    warnings, errors = report.warnings, report.errors
    if relocate is not None:
        warnings = [replace(w, where=relocate(w.where)) for w in warnings]
        errors = [replace(w, where=relocate(w.where)) for w in errors]
    bank = Bank(id=bank_id, title=title or paper.title or bank_id, language=language,
                source=source if source is not None else name, questions=tuple(questions))
    return ImportResult(bank=bank, warnings=tuple(warnings), sections=tuple(paper.sections),
                        errors=tuple(errors), notes=tuple(report.notes), format=chosen)


_LOOKED_FOR = {
    "paper": "numbered items (`1.` `1、` `1)` `(1)`) with answers after `答案：`/`Answer:` or in "
             "an answer key at the end (`参考答案`)",
    "aiken": "a question line, options `A.`/`A)` and `ANSWER: X`",
    "gift": "questions with an answer block `{…}`",
    "csv": "rows under a header naming question/题干 and answer/答案",
    "xlsx": "rows under a header naming question/题干 and answer/答案 on the first sheet",
    "docx": "a paper's numbered items in the document's paragraphs, or a question table",
    "apkg": "notes of the studybot question note type",
}


def slug(name: str) -> str:
    """A bank id (`[a-z0-9][a-z0-9-_]*`) made from a file name."""
    text = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return text or "imported"


def _read_text(text: str, reader, report: Report) -> tuple[CleanText, PaperDraft]:
    doc = clean_text(text)
    for offset, message in doc.notes:
        report.warn("pinyin", message, doc.where_source(offset))
    if doc.converted:
        report.note(f"converted {doc.converted} traditional character(s) to simplified")
    return doc, reader.read(doc, report)


# ---------------------------------------------------------------- tables


def _line_field(line: int, column: int) -> str:
    return f"{line}:{column + 1}"


def _csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line of the record's start, cells); the delimiter is the header line's `,` tab or `;`."""
    first = next((line for line in text.split("\n", 20) if line.strip()), "")
    delimiter = max((",", "\t", ";"), key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    start = 1
    for cells in reader:
        yield start, cells
        start = reader.line_num + 1


def _column_letter(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _cell(row: int, column: int) -> str:
    return f"cell {_column_letter(column)}{row}"


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _read_xlsx(data: bytes, name: str, report: Report) -> PaperDraft:
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged file
        raise ImportRefused(f"{name}: not a readable .xlsx workbook ({exc})") from None
    sheet = book.worksheets[0]
    merged = list(sheet.merged_cells.ranges)
    if merged:
        places = ", ".join(str(r) for r in merged[:5]) + (" …" if len(merged) > 5 else "")
        report.fail("merged", f"sheet {sheet.title!r} has merged cells ({places}); unmerge them "
                    "so that every row has its own values", f"cell {merged[0].coord.split(':')[0]}")
        return PaperDraft([])
    for other in book.worksheets[1:]:
        if other.max_row > 1 or other.cell(1, 1).value is not None:
            report.warn("unplaced", f"sheet {other.title!r} not imported: only the first sheet "
                        f"({sheet.title!r}) is read")
    rows = ((i, [_cell_text(v) for v in values])
            for i, values in enumerate(sheet.iter_rows(values_only=True), 1))
    return read_table(rows, report, _cell, f"sheet {sheet.title!r}")


def _note_field(note: int, column: int) -> str:
    return f"note {note}"


def _apkg_rows(data: bytes, name: str) -> Iterator[tuple[int, list[str]]]:
    """The studybot note type's fields as a table: its field names are the header."""
    import json

    archive = zipfile.ZipFile(io.BytesIO(data))
    member = next(n for n in ("collection.anki21", "collection.anki2") if n in archive.namelist())
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(archive.read(member))
        models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
        fields = {int(mid): [f["name"] for f in model["flds"]] for mid, model in models.items()}
        rows = db.execute("SELECT mid, flds, tags FROM notes ORDER BY id").fetchall()
    except (sqlite3.DatabaseError, TypeError, KeyError, ValueError) as exc:
        raise ImportRefused(f"{name}: not a readable Anki deck ({exc})") from None
    finally:
        db.close()
    header = None
    for i, (mid, flds, _tags) in enumerate(rows, 1):
        names = fields.get(mid, [])
        if header is None:
            header = names
            yield 0, names
        if names != header:
            raise ImportRefused(f"{name}: note {i} is of another note type; only decks written "
                                "by `studybot bank export --format anki` can be read")
        yield i, [_from_html(v) for v in flds.split("\x1f")]


def _from_html(value: str) -> str:
    return html.unescape(re.sub(r"<br\s*/?>", "\n", value))


# ---------------------------------------------------------------- Word


def _read_docx(data: bytes, name: str, report: Report):
    """A Word document: a question table (a header row naming question and answer columns)
    is read as a table; otherwise paragraphs and table cells, in document order, are read as
    a text paper, one line each, and places are given as paragraph or table cell."""
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many kinds for a damaged file
        raise ImportRefused(f"{name}: not a readable .docx document ({exc})") from None
    lines: list[str] = []
    places: list[str] = []
    paragraph = table_no = 0
    question_table = _question_table(document, report)
    if question_table is not None:
        return clean_text(""), question_table, None
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph += 1
            for part in Paragraph(child, document).text.split("\n"):
                lines.append(part)
                places.append(f"paragraph {paragraph}")
        elif tag == "tbl":
            table_no += 1
            table = Table(child, document)
            for r, row in enumerate(table.rows, 1):
                seen = set()
                for c, cell in enumerate(row.cells, 1):
                    if id(cell._tc) in seen:
                        continue  # a merged cell repeats in every column it spans
                    seen.add(id(cell._tc))
                    for part in cell.text.split("\n"):
                        lines.append(part)
                        places.append(f"table {table_no} row {r} cell {c}")
    doc, paper = _read_text("\n".join(lines), TEXT_READERS["paper"], report)

    def relocate(where: str) -> str:
        match = re.fullmatch(r"(\d+):(\d+)", where)
        if not match or int(match.group(1)) > len(places):
            return where
        return f"{places[int(match.group(1)) - 1]}, col {match.group(2)}"

    return doc, paper, relocate


def _question_table(document, report: Report) -> PaperDraft | None:
    """The first table whose first row is a question-table header, read as a table; every
    other non-empty paragraph or table is reported as not imported."""
    tables = document.tables
    for number, table in enumerate(tables, 1):
        cells = [[cell.text for cell in row.cells] for row in table.rows]
        if cells and {"stem", "answer"} <= set(header_columns(cells[0]).values()):
            for i, paragraph in enumerate(document.paragraphs, 1):
                if paragraph.text.strip():
                    report.warn("unplaced", f"text outside the question table not imported: "
                                f"{paragraph.text.strip()[:40]!r}", f"paragraph {i}")
            for other in range(1, len(tables) + 1):
                if other != number:
                    report.warn("unplaced", "only the first question table is read; this table "
                                "is not imported", f"table {other}")
            return read_table(enumerate(cells, 1), report, _table_place(number), f"table {number}")
    return None


def _table_place(table_no: int):
    def where(row: int, column: int) -> str:
        return f"table {table_no} row {row} cell {column + 1}"
    return where
