"""Writing a bank in the formats teachers use elsewhere: CSV and Excel (the table reader's
header, in the bank's language: `题型,题干,选项A…,答案,解析,分值` for a Chinese bank, `題型,題幹…`
for a traditional one, `type,question,A…` for an English one, with the type's name in that
language), GIFT (Moodle) and Anki decks (.apkg, one note per question, the answer and
explanation on the back). `bank import` of each export gives the same bank back: its questions,
title, id, language, points, doubt notes (a `存疑` column; a comment line in GIFT; a note
field in Anki, whose deck is named after the bank) and tags' display names (a `标签名称` column,
`tag=name` a line, on the first row; a `// studybot: tag-name` comment line each in GIFT; the
deck's description in Anki: bank/importer/tag_names.py). How a question's answer is written is its
type's (bot/domain/question_types: table_answer, gift_body).

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
from bank.importer.gift import escape_comment
from bank.importer.sources import deck_note
from bank.importer.table import EXPORT_FIELDS, column_names
from bank.importer.tag_names import tag_names_text
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question
from bot.locales.i18n import match_language, t
from bot.ports.missing_extra import MissingExtra

__all__ = ["EXPORT_FORMATS", "ExportRefused", "export_bank", "table_header", "table_language",
           "table_rows", "table_values"]

EXPORT_FORMATS = {"csv": ".csv", "gift": ".gift", "xlsx": ".xlsx", "anki": ".apkg"}
_LETTERS = "ABCDEFGH"
Cell = str | int | float


class ExportRefused(ValueError):
    """The bank cannot be written in this format without losing what an item is: `key` is the
    catalog sentence saying which items, filled by `params`."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key, self.params = key, params


def table_language(bank: Bank) -> str:
    """The catalog language a bank's table is written in: its own for a Chinese or English
    bank, English for any other (a Japanese bank gets no Chinese header)."""
    return match_language(bank.language) or "en"


def table_header(language: str) -> list[str]:
    """The header row of an export in `language`, in EXPORT_FIELDS order."""
    names = column_names(language)
    return [names[name] for name in EXPORT_FIELDS]


def _number(value: float) -> int | float:
    """A whole number as an int (`1`, not `1.0`), any other as the float it is."""
    return int(value) if float(value).is_integer() else float(value)


def _type_word(q: Question, language: str) -> str:
    # English keeps the type ids (`single`), which every earlier export wrote; Chinese writes
    # the type's name (单选题), a word the table reader's type column accepts.
    return q.type.value if language == "en" else t(language, f"type.{q.type.value}")


def table_values(bank: Bank) -> list[list[Cell]]:
    """The header and one row per question, numbers as numbers (for Excel); the bank's title
    stands in the first row's `题库` column, its tags' names in its `标签名称` column (`tag=name`
    a line)."""
    language = table_language(bank)
    rows: list[list[Cell]] = [list(table_header(language))]
    for index, q in enumerate(bank.questions):
        options = dict(q.options)
        values: dict[str, Cell] = {
            "type": _type_word(q, language), "stem": q.stem,
            **{f"options.{letter}": options.get(letter, "") for letter in _LETTERS},
            "answer": TYPES[q.type].table_answer(q), "explanation": q.explanation,
            "points": _number(q.points), "tags": ",".join(q.tags), "number": q.number, "id": q.id,
            "tolerance": "" if q.tolerance is None else _number(q.tolerance), "doubt": q.doubt,
            "title": bank.title if index == 0 else "",
            "tag_names": tag_names_text(bank.tag_names) if index == 0 else "",
        }
        rows.append([values[name] for name in EXPORT_FIELDS])
    return rows


def table_rows(bank: Bank) -> list[list[str]]:
    """The header and one row per question as text, as the table reader reads them."""
    return [[cell if isinstance(cell, str) else str(cell) for cell in row] for row in table_values(bank)]


def _csv(bank: Bank) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(table_rows(bank))
    return buffer.getvalue().encode("utf-8-sig")  # the BOM makes Excel read it as UTF-8


def _xlsx(bank: Bank) -> bytes:
    import openpyxl
    from openpyxl.cell import WriteOnlyCell

    book = openpyxl.Workbook(write_only=True)
    book.properties.title = bank.title
    sheet = book.create_sheet(bank.id[:31])

    def cell(value: Cell) -> object:
        if value == "":
            return None
        if isinstance(value, str) and value.startswith("="):  # text, not a formula
            written = WriteOnlyCell(sheet, value)
            written.data_type = "s"
            return written
        return value

    for row in table_values(bank):
        sheet.append([cell(value) for value in row])
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
    if q.doubt:  # last: it takes the rest of the line
        meta.append("doubt=" + escape_comment(q.doubt))
    return f"// studybot: {' '.join(meta)}\n::{q.id}::{text} {{{body}{feedback}}}\n"


def _gift(bank: Bank) -> bytes:
    # Moodle files the questions under the bank's title (written as Moodle's own exports
    # write a category); the comment keeps what GIFT has no place for.
    title = " ".join(bank.title.split())
    names = "".join(f"// studybot: tag-name {slug}={escape_comment(name)}\n" for slug, name in bank.tag_names)
    head = (f"// studybot: bank id={bank.id} language={bank.language}\n{names}"
            f"$CATEGORY: $course$/top/{title}\n\n")
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


# The deck holds the title and the tags' names (its description: deck_note).
_ANKI_FIELDS = tuple(name for name in EXPORT_FIELDS if name not in ("title", "tag_names"))


def _anki(bank: Bank) -> bytes:
    try:
        import genanki
    except ImportError:  # the `anki` extra: one sentence naming the command, not a traceback
        raise MissingExtra("anki", "genanki") from None

    language = table_language(bank)
    # The note type's field names are the English header (the templates name them); the
    # cells are those of the bank's own table, so a type reads 单选题 in a Chinese deck.
    names = column_names("en")
    fields = [names[name] for name in _ANKI_FIELDS]
    def field(name: str) -> str:
        return "{{" + names[name] + "}}"

    def shown(name: str, inner: str) -> str:  # only when the note has it
        return "{{#" + names[name] + "}}" + inner + "{{/" + names[name] + "}}"

    options = "".join(shown(f"options.{letter}", f"<div>{letter}. {field(f'options.{letter}')}</div>")
                      for letter in _LETTERS)  # fmt: skip
    doubt = html.escape(t(language, "reveal.doubt", note="\0")).replace("\0", field("doubt"))
    model = genanki.Model(
        _stable_id("studybot-model", "2", language),
        "studybot question",
        fields=[{"name": name} for name in fields],
        templates=[{
            "name": "Question",
            "qfmt": f"<div>{field('stem')}</div>{options}",
            "afmt": f"{{{{FrontSide}}}}<hr id=answer><div><b>{field('answer')}</b></div>"
                    f"<div>{field('explanation')}</div>" + shown("doubt", f"<div><i>{doubt}</i></div>"),
        }],
        sort_field_index=fields.index(names["stem"]),
    )
    note = deck_note(bank.id, bank.title, bank.language, tag_names_text(bank.tag_names))
    deck = genanki.Deck(_stable_id("studybot-deck", bank.id), bank.title, description=note)
    keep = [EXPORT_FIELDS.index(name) for name in _ANKI_FIELDS]
    for row, q in zip(table_rows(bank)[1:], bank.questions, strict=True):
        deck.add_note(genanki.Note(
            model=model, fields=[_anki_html(row[i]) for i in keep],
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
