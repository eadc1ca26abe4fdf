"""Importing exam papers into banks: `import_paper(text, bank_id=..., title=..., source=...)`
cleans the text, reads it with a format reader and returns the bank plus warnings.

Readers (one module each, see base.Reader): `paper` -- pasted Chinese exam papers.
"""

from __future__ import annotations

import re

from bot.model import Bank

from .base import Draft, PaperDraft, Reader
from .build import build_questions, question_id
from .clean import CleanText, clean_text
from .paper import PaperReader
from .report import ImportResult, ImportWarning, Report, SectionInfo

__all__ = [
    "READERS",
    "CleanText",
    "Draft",
    "ImportResult",
    "ImportWarning",
    "PaperDraft",
    "Reader",
    "SectionInfo",
    "clean_text",
    "import_paper",
    "question_id",
]

READERS: dict[str, Reader] = {reader.name: reader for reader in (PaperReader(),)}

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
        report.warn("pinyin", note, doc.where_source(offset))
    paper = chosen.read(doc, report)
    questions = build_questions(paper, doc, bank_id, report)
    bank = Bank(
        id=bank_id,
        title=title or paper.title or bank_id,
        language=language,
        source=source,
        questions=tuple(questions),
    )
    return ImportResult(
        bank=bank,
        warnings=tuple(report.warnings),
        sections=tuple(paper.sections),
    )
