"""Writing a bank in the formats teachers use elsewhere: CSV and Excel (the table reader's
English header), GIFT (Moodle) and Anki decks (.apkg, one note per question, the answer and
explanation on the back). `bank import` of each export gives the same questions back.

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
from bot.model import Bank, Question, QuestionType

__all__ = ["EXPORT_FORMATS", "TABLE_HEADER", "export_bank", "table_rows"]

EXPORT_FORMATS = {"csv": ".csv", "gift": ".gift", "xlsx": ".xlsx", "anki": ".apkg"}
_LETTERS = "ABCDEFGH"
TABLE_HEADER = ["id", "number", "type", "points", "tags", "question", *_LETTERS, "answer",
                "explanation", "tolerance"]


def _number(value: float) -> str:
    return f"{value:g}"


def _answer_cell(q: Question) -> str:
    if q.type is QuestionType.JUDGE:
        return "TRUE" if q.judge_answer else "FALSE"
    if q.type is QuestionType.FILL:
        # `|` separates alternatives; a lone one gets a trailing `|` so that a `或` in it is
        # not read as a separator.
        joined = "|".join(q.answer)
        return joined + "|" if len(q.answer) == 1 and "或" in joined else joined
    if q.type.has_options:
        return "".join(q.answer)
    return q.answer[0]


def table_rows(bank: Bank) -> list[list[str]]:
    """The header and one row per question, as the table reader reads them."""
    rows = [TABLE_HEADER]
    for q in bank.questions:
        options = dict(q.options)
        rows.append([
            q.id, str(q.number), q.type.value, _number(q.points), ",".join(q.tags), q.stem,
            *(options.get(letter, "") for letter in _LETTERS),
            _answer_cell(q), q.explanation,
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


def _gift_question(q: Question) -> str:
    meta = [f"number={q.number}", f"type={q.type.value}", f"points={_number(q.points)}"]
    if q.tags:
        meta.append("tags=" + ",".join(q.tags))
    feedback = f" ####{gift_escape(q.explanation)}" if q.explanation else ""
    if q.type.has_options:
        right = set(q.answer)
        if q.type is QuestionType.SINGLE:
            marks = [("=" if letter in right else "~") for letter, _ in q.options]
        else:
            share = _number(100 / len(right))
            marks = [f"~%{share}%" if letter in right else "~%-100%" for letter, _ in q.options]
        body = " ".join(f"{mark}{gift_escape(text)}" for mark, (_, text) in zip(marks, q.options,
                                                                                  strict=True))
    elif q.type is QuestionType.JUDGE:
        body = "TRUE" if q.judge_answer else "FALSE"
    elif q.type is QuestionType.FILL and q.tolerance is not None:
        body = "#" + " ".join(f"={a}:{_number(q.tolerance)}" for a in q.answer)
    else:  # fill, and short with its reference answer (the `type=short` comment says which)
        body = " ".join(f"={gift_escape(a)}" for a in q.answer).replace("\n", "\\n")
    text = gift_escape(q.stem).replace("\n", "\\n")
    feedback = feedback.replace("\n", "\\n")
    return f"// studybot: {' '.join(meta)}\n::{q.id}::{text} {{{body}{feedback}}}\n"


def _gift(bank: Bank) -> bytes:
    head = f"// {bank.title} ({bank.id}), written by studybot\n\n"
    return (head + "\n".join(_gift_question(q) for q in bank.questions)).encode("utf-8")


def _stable_id(*parts: str) -> int:
    """A 31-bit id that stays the same for the same bank, as Anki wants for models and decks."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1 | 1 << 30


def _anki_html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def _anki(bank: Bank) -> bytes:
    import genanki

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
