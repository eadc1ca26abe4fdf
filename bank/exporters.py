"""Writing a bank in the formats teachers use elsewhere: CSV and Excel (the table reader's
English header), GIFT (Moodle) and Anki decks (.apkg, one note per question, the answer and
explanation on the back). `bank import` of each export gives the same questions back. How a
question's answer is written is its type's (bot/domain/question_types: table_answer, gift_body).

`export_bank(bank, fmt) -> bytes`.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import tempfile
from pathlib import Path

from bank.importer.gift import escape as gift_escape
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question
from bot.ports.missing_extra import MissingExtra

__all__ = ["EXPORT_FORMATS", "TABLE_HEADER", "ExportRefused", "export_bank", "table_rows"]

EXPORT_FORMATS = {"csv": ".csv", "gift": ".gift", "xlsx": ".xlsx", "anki": ".apkg"}
_LETTERS = "ABCDEFGH"
TABLE_HEADER = ["id", "number", "type", "points", "tags", "question", *_LETTERS, "answer",
                "explanation", "tolerance"]


class ExportRefused(ValueError):
    """The bank cannot be written in this format without losing what an item is: `key` is the
    catalog sentence saying which items, filled by `params`."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key, self.params = key, params


def _number(value: float) -> str:
    return f"{value:g}"


def table_rows(bank: Bank) -> list[list[str]]:
    """The header and one row per question, as the table reader reads them."""
    rows = [TABLE_HEADER]
    for q in bank.questions:
        options = dict(q.options)
        rows.append([
            q.id, str(q.number), q.type.value, _number(q.points), ",".join(q.tags), q.stem,
            *(options.get(letter, "") for letter in _LETTERS),
            TYPES[q.type].table_answer(q), q.explanation,
            "" if q.tolerance is None else _number(q.tolerance),
        ])
    return rows


def _csv(bank: Bank) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(table_rows(bank))
    return buffer.getvalue().encode("utf-8-sig")  # the BOM makes Excel read it as UTF-8


def _xlsx(bank: Bank) -> bytes:
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet(bank.id[:31])
    for row in table_rows(bank):
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _gift_question(q: Question, body: str) -> str:
    meta = [f"number={q.number}", f"type={q.type.value}", f"points={_number(q.points)}"]
    if q.tags:
        meta.append("tags=" + ",".join(q.tags))
    feedback = f" ####{gift_escape(q.explanation)}" if q.explanation else ""
    text = gift_escape(q.stem).replace("\n", "\\n")
    feedback = feedback.replace("\n", "\\n")
    return f"// studybot: {' '.join(meta)}\n::{q.id}::{text} {{{body}{feedback}}}\n"


def _gift(bank: Bank) -> bytes:
    head = f"// {bank.title} ({bank.id}), written by studybot\n\n"
    bodies = [TYPES[q.type].gift_body(q, gift_escape) for q in bank.questions]
    if unheld := [q.number for q, body in zip(bank.questions, bodies, strict=True) if body is None]:
        raise ExportRefused("cli.export.no_gift_form", numbers=tuple(unheld))
    written = (_gift_question(q, body) for q, body in zip(bank.questions, bodies, strict=True) if body)
    return (head + "\n".join(written)).encode("utf-8")


def _stable_id(*parts: str) -> int:
    """A 31-bit id that stays the same for the same bank, as Anki wants for models and decks."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1 | 1 << 30


def _anki_html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def _anki(bank: Bank) -> bytes:
    try:
        import genanki
    except ImportError:  # the `anki` extra: one sentence naming the command, not a traceback
        raise MissingExtra("anki", "genanki") from None

    fields = [{"name": name} for name in TABLE_HEADER]
    options = "".join(
        f"{{{{#{letter}}}}}<div>{letter}. {{{{{letter}}}}}</div>{{{{/{letter}}}}}" for letter in _LETTERS
    )
    model = genanki.Model(
        _stable_id("studybot-model", "1"),
        "studybot question",
        fields=fields,
        templates=[{
            "name": "Question",
            "qfmt": "<div>{{question}}</div>" + options,
            "afmt": "{{FrontSide}}<hr id=answer><div><b>{{answer}}</b></div>"
                    "<div>{{explanation}}</div>",
        }],
        sort_field_index=TABLE_HEADER.index("question"),
    )
    deck = genanki.Deck(_stable_id("studybot-deck", bank.id), bank.title)
    for row, q in zip(table_rows(bank)[1:], bank.questions, strict=True):
        deck.add_note(genanki.Note(
            model=model, fields=[_anki_html(cell) for cell in row],
            guid=genanki.guid_for("studybot", bank.id, q.id), tags=list(q.tags),
        ))
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "deck.apkg"
        genanki.Package(deck).write_to_file(str(target))
        return target.read_bytes()


_WRITERS = {"csv": _csv, "gift": _gift, "xlsx": _xlsx, "anki": _anki}


def export_bank(bank: Bank, fmt: str) -> bytes:
    """The bank written in `fmt` (one of EXPORT_FORMATS)."""
    try:
        writer = _WRITERS[fmt]
    except KeyError:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(_WRITERS)}") from None
    return writer(bank)
