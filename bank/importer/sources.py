"""Importing a source file of any supported format: `import_source(data, filename)` takes the
bytes and the file name (as a chat upload gives them), decodes them, picks the reader (given,
or detected from the content) and returns the bank with every warning and error. It never
prints; a file that cannot be read at all raises `ImportRefused`, whose problem names the place
(a catalog sentence, bot/domain/file_problems.py). Whatever the csv, zip, sqlite, openpyxl,
python-docx or PDFium (pdf.py) layers raise for a damaged file becomes such a refusal: a broken
file is refused and changes nothing, it never escapes as an exception.

Text is read with any line ending (`\n`, `\r\n`, and the lone `\r` of Excel for Mac's
"CSV (Macintosh)"), and a CSV cell may be as large as the file.

Formats: paper (pasted text papers, answers after each item or in a key at the end), aiken,
gift, csv, xlsx, docx, apkg (an Anki deck written by `studybot bank export --format anki`), pdf
(a paper's text layer in reading order, pdf.py, read as a paper).
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import logging
import re
import sqlite3
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import replace

from bot.domain.file_problems import FileProblem, Term
from bot.domain.questions import Bank, BankImage
from bot.locales.i18n import t

from .aiken import AikenReader, looks_like_aiken
from .base import PaperDraft
from .build import build_questions
from .clean import CleanText, clean_text
from .gift import GiftReader, looks_like_gift
from .images import Picture, as_web_picture, keep, keep_images
from .language import bank_language
from .paper import PaperReader
from .report import ImportResult, Report
from .table import header_columns, read_table
from .tag_names import TagNames

__all__ = [
    "FORMATS",
    "MAX_BYTES",
    "ImportRefused",
    "decode_text",
    "detect_format",
    "import_source",
]

TEXT_READERS = {reader.name: reader for reader in (PaperReader(), AikenReader(), GiftReader())}
FORMATS = ("paper", "aiken", "gift", "csv", "xlsx", "docx", "apkg", "pdf")
MAX_BYTES = 32 * 1024 * 1024  # larger sources are refused before anything is read
_EXTENSIONS = {".gift": "gift", ".csv": "csv", ".tsv": "csv", ".xlsx": "xlsx", ".docx": "docx",
               ".apkg": "apkg", ".aiken": "aiken", ".pdf": "pdf"}
_BANK_ID_RE = re.compile(r"[a-z0-9][a-z0-9-_]*")
# Formats whose every question is worth one mark by the format's own rule (Moodle's default
# mark): no warning that the points fell back to 1, there is nowhere to give them.
_NO_POINTS = frozenset({"aiken", "gift"})
_LANGUAGE_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")  # as bank/schema.json has it

Progress = Callable[[str, int, int], None]  # (stage, done, total)
# All of a zip's members, unpacked, may hold at most this much (a zip bomb is refused).
MAX_UNPACKED = 8 * MAX_BYTES

log = logging.getLogger("studybot.importer")
# A CSV cell may be as large as the whole file (the csv module's default stops at 128 KiB).
csv.field_size_limit(2**31 - 1)


class ImportRefused(Exception):
    """The source cannot be imported at all. `problem` says why and where (a catalog sentence
    with its parameters); `filename` is the source's name; str() is the English line."""

    def __init__(self, key: str, filename: str = "", where: str = "", *, kind: str = "",
                 **params: object) -> None:  # fmt: skip
        self.problem = FileProblem(kind, key, tuple(params.items()), where)
        self.filename = filename
        super().__init__(self.line("en"))

    def line(self, language: str) -> str:
        """`file: place: why` in `language` (the file name left out when there is none)."""
        text = self.problem.line(language)
        if not self.filename:
            return text
        # `name:3: why` as compilers write it; `name: why` when there is no place
        key = "file.in_file_at" if self.problem.where else "file.in_file"
        return t(language, key, file=self.filename, text=text)


def _formats_hint() -> Term:
    return Term("import.formats_hint", (("formats", ", ".join(FORMATS)),))


def normalize_newlines(text: str) -> str:
    """Every line ending as `\n`: Windows' `\r\n` and the old Mac's lone `\r` too."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def decode_text(data: bytes, name: str) -> tuple[str, str]:
    """Text and encoding: UTF-8 (with or without BOM), else GB18030; line endings made `\n`.
    Refuses binary data."""
    if b"\x00" in data[:65536]:
        raise ImportRefused("import.refused.binary", name, hint=_formats_hint())
    try:
        return normalize_newlines(data.decode("utf-8-sig")), "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc
    try:
        return normalize_newlines(data.decode("gb18030")), "gb18030"
    except UnicodeDecodeError:
        lines = data[:utf8_error.start].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        line = lines.count(b"\n") + 1
        raise ImportRefused("import.refused.encoding", name, str(line), byte=utf8_error.start) from None


def _zip_names(data: bytes, filename: str) -> set[str]:
    """The member names of a zip container; a damaged archive or a zip bomb is refused."""
    try:
        infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except Exception:  # BadZipFile, and ValueError/OSError/… for a mangled directory
        raise ImportRefused("import.refused.bad_zip", filename) from None
    if sum(info.file_size for info in infos) > MAX_UNPACKED:
        raise ImportRefused("import.refused.zip_too_big", filename,
                            limit=f"{MAX_UNPACKED / 2**20:.0f}")  # fmt: skip
    return {info.filename for info in infos}


def detect_format(data: bytes, filename: str) -> str:
    """The format of a source: containers by their content, text by its marks, else by the
    file's extension; `paper` when nothing else fits."""
    if data[:4] == b"PK\x03\x04":
        names = _zip_names(data, filename)
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
        if names & {"collection.anki2", "collection.anki21"}:
            return "apkg"
        raise ImportRefused("import.refused.other_zip", filename, hint=_formats_hint())
    if data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise ImportRefused("import.refused.old_office", filename)
    if b"%PDF-" in data[:1024]:  # readers accept the header anywhere in the first KiB
        return "pdf"
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
        try:
            cells = next(csv.reader([first], delimiter=delimiter), [])
        except csv.Error:  # not a line the csv module can read: not a CSV header
            continue
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
    language: str | None = None,
    fallback_language: str = "zh-CN",
    max_bytes: int = MAX_BYTES,
    progress: Progress | None = None,
) -> ImportResult:
    """Import `data` (the file's bytes; `filename` for messages, the extension hint, and the
    title and id of a source that names neither). Returns the bank with warnings and errors
    (`result.ok` says whether it may be written); raises ImportRefused when the bytes cannot be
    read at all. Without `language` the bank's is what the source declares, else what its text
    is written in (bank/importer/language.py), else `fallback_language`."""
    name = filename.rsplit("/", 1)[-1]
    stem = (name.rsplit(".", 1)[0] if "." in name else name).strip()
    if len(data) > max_bytes:
        raise ImportRefused("import.refused.too_big", name, size=f"{len(data) / 2**20:.1f}",
                            limit=f"{max_bytes / 2**20:.0f}")  # fmt: skip
    if not data.strip():
        raise ImportRefused("import.refused.empty", name, "1")
    if bank_id and not _BANK_ID_RE.fullmatch(bank_id):
        raise ValueError(f"bank id {bank_id!r} must match [a-z0-9][a-z0-9-_]*")
    if format is not None and format not in FORMATS:
        raise ImportRefused("import.refused.unknown_format", format=repr(format), hint=_formats_hint())
    chosen = format or detect_format(data, name)
    report = Report(progress=progress)
    relocate: Callable[[str], str] | None = None
    doc = clean_text("")
    if chosen in TEXT_READERS or chosen == "csv":
        text, encoding = decode_text(data, name)
        if encoding != "utf-8":
            report.note("import.note.encoding", encoding=encoding)
        if chosen == "csv":
            paper = read_table(_csv_rows(text, name), report, _line_field, Term("import.what.csv"))
        else:
            doc, paper = _read_text(text, TEXT_READERS[chosen], report)
    elif chosen == "docx":
        doc, paper, relocate = _read_docx(data, name, report)
    elif chosen == "pdf":
        doc, paper, relocate = _read_pdf(data, name, report)
    elif chosen == "xlsx":
        paper = _read_xlsx(data, name, report)
    else:
        rows, deck = _apkg_rows(data, name)
        paper = read_table(iter(rows), report, _note_field, Term("import.what.apkg"))
        paper.title, paper.bank_id, paper.language, names = deck
        recorded = TagNames()
        recorded.read(names, report)
        paper.tag_names = recorded.pairs()
    if not bank_id:  # the id a studybot export recorded, else one made from the file name
        bank_id = paper.bank_id if _BANK_ID_RE.fullmatch(paper.bank_id) else slug(stem)
    images: list[BankImage] = []
    questions = [] if report.errors else build_questions(paper, doc, bank_id, report, duplicates=True,
                                                         images=images)  # fmt: skip
    if not questions and not report.errors:
        block = (("block", "{…}"),) if chosen == "gift" else ()
        report.warn("empty", "import.empty", looked_for=Term(f"import.looked_for.{chosen}", block),
                    hint=_formats_hint())
    elif questions and chosen not in _NO_POINTS and not any(draft.points_given for draft in paper.drafts):
        report.warn("points", "import.points.default")  # once for the file, not once an item
    warnings, errors = report.warnings, report.errors
    if relocate is not None:
        warnings = [replace(w, where=relocate(w.where)) for w in warnings]
        errors = [replace(w, where=relocate(w.where)) for w in errors]
    title = title or paper.title.strip() or stem or bank_id
    if language is None:
        counts = (dict(n.params).get("count") for n in report.notes if n.key == "import.note.converted")
        converted = sum(count for count in counts if isinstance(count, int))
        declared = paper.language if _LANGUAGE_RE.fullmatch(paper.language) else ""
        language = bank_language(questions, declared=declared, script=paper.script, converted=converted,
                                 title=title, fallback=fallback_language)
    bank = Bank(id=bank_id, title=title, language=language,
                source=source if source is not None else name, questions=tuple(questions),
                images=tuple(images), tag_names=paper.tag_names)
    return ImportResult(bank=bank, warnings=tuple(warnings), sections=tuple(paper.sections),
                        errors=tuple(errors), notes=tuple(report.notes), format=chosen)


def slug(name: str) -> str:
    """A bank id (`[a-z0-9][a-z0-9-_]*`) made from a file name: `Physics Mock` ->
    `physics-mock`; a name in other letters keeps its ASCII part and adds a hash of the whole
    name, so that `题库` and `试卷` make two banks (`bank-1f0c…`, not both `imported`)."""
    text = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    if name.isascii():
        return text or "imported"
    digest = hashlib.sha256(name.strip().encode()).hexdigest()[:8]
    return f"{text}-{digest}" if text else f"bank-{digest}"


def _read_text(text: str, reader, report: Report) -> tuple[CleanText, PaperDraft]:
    doc = clean_text(text)
    for offset, note in doc.notes:
        report.warn("pinyin", "import.clean.pinyin", doc.where_source(offset), None, **dict(note))
    if doc.converted:
        report.note("import.note.converted", count=doc.converted)
    return doc, reader.read(doc, report)


# ---------------------------------------------------------------- tables


def _line_field(line: int, column: int) -> str:
    return f"{line}:{column + 1}"


def _csv_rows(text: str, name: str) -> Iterator[tuple[int, list[str]]]:
    """(line of the record's start, cells); the delimiter is the header line's `,` tab or `;`.
    `text` has `\n` line endings (decode_text); what the csv module cannot read is refused at
    its line."""
    first = next((line for line in text.split("\n", 20) if line.strip()), "")
    delimiter = max((",", "\t", ";"), key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error:  # a NUL past the binary check, a quote the dialect cannot end…
            raise ImportRefused("import.refused.csv", name, f"{start}:1") from None
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

    # Everything openpyxl gives is read inside the try: it raises many kinds (KeyError,
    # ValueError, TypeError, lxml's and zip's errors…) for a damaged file, and some only
    # when a row is reached.
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), data_only=True, read_only=False)
        sheet = book.worksheets[0]
        title = str(sheet.title)
        merged = [str(r) for r in sheet.merged_cells.ranges]
        others = [str(other.title) for other in book.worksheets[1:]
                  if other.max_row > 1 or other.cell(1, 1).value is not None]
        rows = [(i, [_cell_text(v) for v in values])
                for i, values in enumerate(sheet.iter_rows(values_only=True), 1)]
    except Exception as exc:
        log.info("%s: openpyxl could not read it: %r", name, exc)
        raise ImportRefused("import.refused.bad_xlsx", name) from None
    if merged:
        places = ", ".join(merged[:5]) + (" …" if len(merged) > 5 else "")
        report.fail("merged", "import.xlsx.merged", f"cell {merged[0].split(':')[0]}",
                    sheet=repr(title), places=places)
        return PaperDraft([])
    for other in others:
        report.warn("unplaced", "import.xlsx.other_sheet", sheet=repr(other), first=repr(title))
    return read_table(iter(rows), report, _cell, Term("import.what.sheet", (("sheet", repr(title)),)))


def _note_field(note: int, column: int) -> str:
    return f"note {note}"


_DECK_NOTE_RE = re.compile(r"<!--\s*studybot:\s*bank\b(.*?)-->", re.S)


def deck_note(bank_id: str, title: str, language: str, tag_names: str = "") -> str:
    """What an exported deck's description records of its bank (an HTML comment, which Anki
    does not show): the id, the title exactly (a deck name turns `::` into sub-decks), the
    language and the tags' names (`tag=name` a line, bank/importer/tag_names.py), read back by
    the apkg reader."""
    from urllib.parse import quote

    names = f" tag_names={quote(tag_names)}" if tag_names else ""
    return (f"<!-- studybot: bank id={quote(bank_id)} title={quote(title)} "
            f"language={quote(language)}{names} -->")


def _deck(decks: dict, dids: list[int]) -> tuple[str, str, str, str]:
    """(title, bank id, language, tag names) from the deck the notes' cards are in."""
    from urllib.parse import unquote

    did = next((d for d in dids if d != 1), dids[0] if dids else 1)
    deck = decks.get(str(did)) or {}
    title, bank_id, language, names = str(deck.get("name", "")).strip(), "", "", ""
    if title == "Default" and did == 1:
        title = ""
    if note := _DECK_NOTE_RE.search(str(deck.get("desc", ""))):
        meta = {k: unquote(v) for k, _, v in (p.partition("=") for p in note.group(1).split()) if v}
        title, bank_id, language = meta.get("title") or title, meta.get("id", ""), meta.get("language", "")
        names = meta.get("tag_names", "")
    return title, bank_id, language, names


def _apkg_rows(data: bytes, name: str) -> tuple[list[tuple[int, list[str]]], tuple[str, str, str, str]]:
    """The studybot note type's fields as a table (its field names are the header), and the
    deck's title, bank id, language and tag names."""
    import json

    names = _zip_names(data, name)
    member = next((n for n in ("collection.anki21", "collection.anki2") if n in names), None)
    if member is None:
        raise ImportRefused("import.refused.other_zip", name, hint=_formats_hint())
    # The deck is somebody's file: its member may fail its CRC, its database be damaged, its
    # JSON be anything. Whatever zip, sqlite or json raise is the deck's damage.
    db = sqlite3.connect(":memory:")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            db.deserialize(archive.read(member))
        models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
        fields = {int(mid): [str(f["name"]) for f in model["flds"]] for mid, model in models.items()}
        notes = [(int(mid), str(flds)) for mid, flds, _tags in
                 db.execute("SELECT mid, flds, tags FROM notes ORDER BY id").fetchall()]
        decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
        deck = _deck(decks if isinstance(decks, dict) else {},
                     [int(d) for (d,) in db.execute("SELECT DISTINCT did FROM cards ORDER BY did")])
    except zipfile.BadZipFile:
        raise ImportRefused("import.refused.zip_member", name, member=member) from None
    except Exception as exc:
        log.info("%s: not a readable Anki deck: %r", name, exc)
        raise ImportRefused("import.refused.bad_apkg", name) from None
    finally:
        db.close()
    rows: list[tuple[int, list[str]]] = []
    header = None
    for i, (mid, flds) in enumerate(notes, 1):
        names_of = fields.get(mid, [])
        if header is None:
            header = names_of
            rows.append((0, names_of))
        if names_of != header:
            raise ImportRefused("import.refused.note_type", name, f"note {i}")
        rows.append((i, [_from_html(v) for v in flds.split("\x1f")]))
    return rows, deck


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

    # Everything python-docx gives is taken out inside the try (it raises many kinds, lxml's
    # and zip's included, for a damaged file, some only when a part is reached); the readers
    # then work on plain text.
    try:
        document = docx.Document(io.BytesIO(data))
        tables = [[[cell.text for cell in row.cells] for row in table.rows] for table in document.tables]
        paragraphs = [paragraph.text for paragraph in document.paragraphs]
        lines: list[str] = []
        places: list[str] = []
        images: list[Picture] = []  # each picture, on the line of its paragraph's last line
        paragraph = table_no = 0
        for child in document.element.body.iterchildren():
            tag = str(child.tag).rsplit("}", 1)[-1]
            if tag == "p":
                paragraph += 1
                for part in Paragraph(child, document).text.split("\n"):
                    lines.append(part)
                    places.append(f"paragraph {paragraph}")
                images += [Picture(len(lines), *taken) for taken in _pictures(child, document)]
            elif tag == "tbl":
                table_no += 1
                table = Table(child, document)
                for r, row in enumerate(table.rows, 1):
                    seen = set()
                    unique = []
                    for c, cell in enumerate(row.cells, 1):
                        if id(cell._tc) in seen:
                            continue  # a merged cell repeats in every column it spans
                        seen.add(id(cell._tc))
                        unique.append((c, cell))
                    texts = [cell.text.strip() for _, cell in unique]
                    if texts and _GRID_ROW_RE.fullmatch(texts[0]) and not any("\n" in t for t in texts):
                        # a row of an answer table (题号 1 2 3 / 答案 B C A): one line, its cells
                        # apart by tabs, as the answer key reads a grid
                        lines.append("\t".join(texts))
                        places.append(f"table {table_no} row {r}")
                        for _, cell in unique:
                            images += [Picture(len(lines), *taken) for taken in _pictures(cell._tc, document)]
                        continue
                    for c, cell in unique:
                        for part in cell.text.split("\n"):
                            lines.append(part)
                            places.append(f"table {table_no} row {r} cell {c}")
                        images += [Picture(len(lines), *taken) for taken in _pictures(cell._tc, document)]
    except Exception as exc:
        log.info("%s: python-docx could not read it: %r", name, exc)
        raise ImportRefused("import.refused.bad_docx", name) from None
    question_table = _question_table(tables, paragraphs, report)
    if question_table is not None:
        rows = {_table_row(draft.where): draft for draft in question_table.drafts} | {"": None}
        for picture in images:  # a picture in a question table goes with the item of its row
            where = places[picture.line - 1] if picture.line else ""
            keep(rows.get(_table_row(where)), picture, report, where)
        return clean_text(""), question_table, None
    doc, paper = _read_text(normalize_newlines("\n".join(lines)), TEXT_READERS["paper"], report)
    keep_images(paper, images, report, lambda line: places[line - 1] if 0 < line <= len(places) else "")

    def relocate(where: str) -> str:
        match = re.fullmatch(r"(\d+):(\d+)", where)
        if not match or int(match.group(1)) > len(places):
            return where
        return f"{places[int(match.group(1)) - 1]}, col {match.group(2)}"

    return doc, paper, relocate


# The first cell of a row of an answer table in a Word paper: `题号` over `答案`.
_GRID_ROW_RE = re.compile(r"(?:题[ \t\u3000]*号|题[ \t\u3000]*次|(?:参考|标准|正确)?答[ \t\u3000]*案)[:：]?")

_PICTURE_TAGS = frozenset({"drawing", "pict", "object"})  # DrawingML, VML, an embedded object


_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def _pictures(element, document) -> list[tuple[bytes | None, str]]:
    """The pictures a Word paragraph or cell holds, each its bytes and extension (None: not
    taken, an embedded object or a linked picture), in order; a picture Word also wrote in the
    older form, for readers without DrawingML (`mc:Fallback`), once."""
    found: list[tuple[bytes | None, str]] = []
    for e in element.iter():
        if str(e.tag).rsplit("}", 1)[-1] not in _PICTURE_TAGS:
            continue
        if any(str(up.tag).endswith("}Fallback") for up in e.iterancestors()):
            continue
        found.append(_picture_bytes(e, document))
    return found


def _picture_bytes(element, document) -> tuple[bytes | None, str]:
    """The first picture a DrawingML `a:blip r:embed` or VML `v:imagedata r:id` inside
    `element` points at, as a picture every chat shows (images.as_web_picture)."""
    if str(element.tag).rsplit("}", 1)[-1] == "object":
        return None, ""  # an embedded object (an equation, a chart): its preview is not the thing
    for e in element.iter():
        tag = str(e.tag).rsplit("}", 1)[-1]
        rid = e.get(f"{_R}embed") if tag == "blip" else e.get(f"{_R}id") if tag == "imagedata" else None
        if not rid:
            continue
        part = document.part.related_parts.get(rid)
        if part is None:  # a linked picture (r:link) lives outside the file
            return None, ""
        taken = as_web_picture(part.blob, part.content_type)
        return taken if taken is not None else (None, "")
    return None, ""


def _question_table(
    tables: list[list[list[str]]], paragraphs: list[str], report: Report,
) -> PaperDraft | None:
    """The first table whose first row is a question-table header, read as a table; every
    other non-empty paragraph or table is reported as not imported."""
    for number, cells in enumerate(tables, 1):
        if cells and {"stem", "answer"} <= set(header_columns(cells[0]).values()):
            for i, paragraph in enumerate(paragraphs, 1):
                if paragraph.strip():
                    report.warn("unplaced", "import.docx.outside_table", f"paragraph {i}",
                                text=repr(paragraph.strip()[:40]))
            for other in range(1, len(tables) + 1):
                if other != number:
                    report.warn("unplaced", "import.docx.other_table", f"table {other}")
            what = Term("import.what.table", (("table", number),))
            return read_table(enumerate(cells, 1), report, _table_place(number), what)
    return None


def _table_row(where: str) -> str:
    """`table 1 row 3` of a place in a Word table (`table 1 row 3 cell 2`); "" for another."""
    match = re.match(r"table \d+ row \d+(?= cell )", where)
    return match.group(0) if match else ""


def _table_place(table_no: int):
    def where(row: int, column: int) -> str:
        return f"table {table_no} row {row} cell {column + 1}"
    return where


# ---------------------------------------------------------------- PDF


def _read_pdf(data: bytes, name: str, report: Report):
    """A PDF paper: its text layer in reading order (pdf.py) read as a text paper; places are
    given as page and line; a page without text and every picture are warned about."""
    from .pdf import UnreadablePdf, read_pdf

    try:
        pdf = read_pdf(data)
    except UnreadablePdf as exc:
        raise ImportRefused(exc.key, name, pages=exc.pages, limit=exc.limit) from None
    lines, places = pdf.lines()
    doc, paper = _read_text(normalize_newlines("\n".join(lines)), TEXT_READERS["paper"], report)
    images: list[Picture] = []
    first = 0
    for number, page in enumerate(pdf.pages, 1):
        if page.scan and not any(line.strip() for line in page.lines):
            report.warn("no-text", "import.pdf.page_without_text", f"page {number}")  # its pictures with it
        elif not any(line.strip() for line in page.lines):
            # Pictures alone on a page (a figure that went on to the next page): the item above
            # them, on the pages before, is theirs.
            images += [Picture(first, *(taken or (None, ""))) for _, taken in page.images]
        else:
            images += [Picture(first + index + 1, *(taken or (None, ""))) for index, taken in page.images]
        first += len(page.lines)

    def place(line: int) -> str:
        return places[line - 1] if 0 < line <= len(places) else ""

    keep_images(paper, images, report, place)

    def relocate(where: str) -> str:
        match = re.fullmatch(r"(\d+):(\d+)", where)
        if not match or not 0 < int(match.group(1)) <= len(places):
            return where
        return f"{places[int(match.group(1)) - 1]}, col {match.group(2)}"

    return doc, paper, relocate
