"""Importing question sources into banks. `import_source(data, filename)` takes a file's bytes
in any supported format (detected, or given as `format=`) and returns the bank plus warnings
and errors, printing nothing; `import_paper(text, ...)` reads text with one text reader.

Readers (one module each): `paper` (pasted papers, answer keys at the end in answer_key.py),
`aiken`, `gift` (text, see base.Reader), `table` (CSV, Excel, Word tables, Anki decks), `pdf`
(a PDF's text layer in reading order, read as a paper);
sources.py decodes bytes and picks the reader.
"""

from __future__ import annotations

import re

from bot.domain.questions import Bank

from .base import Draft, PaperDraft, Reader
from .build import build_questions, question_id
from .clean import CleanText, clean_text
from .report import ImportResult, ImportWarning, Report, SectionInfo
from .sources import FORMATS, TEXT_READERS, ImportRefused, detect_format, import_source

__all__ = [
    "FORMATS",
    "READERS",
    "CleanText",
    "Draft",
    "ImportRefused",
    "ImportResult",
    "ImportWarning",
    "PaperDraft",
    "Reader",
    "SectionInfo",
    "clean_text",
    "detect_format",
    "import_paper",
    "import_source",
    "question_id",
]

READERS: dict[str, Reader] = dict(TEXT_READERS)

_BANK_ID_RE = re.compile(r"[a-z0-9][a-z0-9-_]*")


def import_paper(
    text: str,
    *,
    bank_id: str,
    title: str | None = None,
    source: str = "",
    language: str = "zh-CN",
    reader: str = "paper",
) -> ImportResult:
    """Read `text` (a pasted paper) into a bank with ids `<bank_id>-<NNN>`.

    `title` defaults to the paper's own title line, else the bank id. Nothing the reader
    cannot place is dropped silently: it is in the result's warnings with its line:col.
    """
    if not _BANK_ID_RE.fullmatch(bank_id):
        raise ValueError(f"bank id {bank_id!r} must match [a-z0-9][a-z0-9-_]*")
    try:
        chosen = READERS[reader]
    except KeyError:
        raise ValueError(f"unknown reader {reader!r}; known: {', '.join(READERS)}") from None
    doc = clean_text(text)
    report = Report()
    for offset, note in doc.notes:
        report.warn("pinyin", "import.clean.pinyin", doc.where_source(offset), None, **dict(note))
    paper = chosen.read(doc, report)
    questions = build_questions(paper, doc, bank_id, report)
    bank = Bank(
        id=bank_id,
        title=title or paper.title or bank_id,
        language=language,
        source=source,
        questions=tuple(questions),
        tag_names=paper.tag_names,
    )
    if doc.converted:
        report.note("import.note.converted", count=doc.converted)
    return ImportResult(
        bank=bank,
        errors=tuple(report.errors),
        notes=tuple(report.notes),
        format=reader,
        warnings=tuple(report.warnings),
        sections=tuple(paper.sections),
    )
