"""Reader for question tables (CSV and Excel): a header row naming the columns, in English
(`type, question, A … H, answer, explanation`, optional `tags, points, id, number`) or as the
templates Chinese exam apps publish (`题型, 题干, 选项A … 选项H, 答案, 解析`, optional `标签, 分值,
题号`), in traditional characters too (`題型, 題幹, 選項A`), then one question per row. The names
`bank export` writes are each language's `export.column.*` sentences (`column_names`); a
`存疑` / `doubt` column is the item's doubt note, a `题库` / `bank` column the bank's title and a
`标签名称` / `tag names` column its tags' display names, `tag=name` a line in any row (an export
writes them all on the first: bank/importer/tag_names.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from bot.domain.question_types import type_for_word, type_words
from bot.domain.questions import QuestionType
from bot.locales.i18n import LANGUAGES, t

from .base import Draft, PaperDraft
from .clean import to_simplified
from .numbers import finite_number, whole_number
from .report import Report, Term
from .tag_names import TagNames

__all__ = ["HEADERS", "TYPE_WORDS", "column_names", "header_columns", "read_table"]

_T = QuestionType
_LETTERS = "ABCDEFGH"
# Column names, folded (lower case, no spaces, no `*` required-marks): the field they fill.
HEADERS: dict[str, str] = {
    **{name: "type" for name in ("type", "题型", "类型", "试题类型", "题目类型")},
    **{name: "stem" for name in ("question", "stem", "题干", "题目", "试题", "题目内容", "试题内容")},
    **{name: "answer" for name in ("answer", "答案", "正确答案", "标准答案", "参考答案")},
    **{name: "explanation" for name in ("explanation", "解析", "答案解析", "试题解析")},
    **{name: "tags" for name in ("tags", "tag", "标签", "知识点")},
    **{name: "points" for name in ("points", "score", "分值", "分数")},
    **{name: "id" for name in ("id",)},
    **{name: "tolerance" for name in ("tolerance", "误差")},
    **{name: "number" for name in ("number", "no", "题号", "序号")},
    **{name: "doubt" for name in ("doubt", "存疑", "疑点", "存疑说明")},
    **{name: "title" for name in ("bank", "题库", "题库名称", "所属题库")},
    **{name: "tag_names" for name in ("tag_names", "tagnames", "标签名称", "标签名", "知识点名称")},
    **{f"{prefix}{letter.lower()}": f"options.{letter}" for letter in _LETTERS
       for prefix in ("", "option", "选项", "选项_")},
}
# The fields a studybot export writes, in its column order (the option letters after `stem`).
EXPORT_FIELDS = ("type", "stem", *(f"options.{letter}" for letter in _LETTERS), "answer",
                 "explanation", "points", "tags", "number", "id", "tolerance", "doubt", "title",
                 "tag_names")
_CATALOG_KEY = {"stem": "question", "title": "bank"}


def column_names(language: str) -> dict[str, str]:
    """The header `bank export` writes for a bank in `language`: field -> column name
    (`题型`, `題型`, `type`…, from the catalog's `export.column.*` sentences)."""
    names = {}
    for name in EXPORT_FIELDS:
        if name.startswith("options."):
            names[name] = t(language, "export.column.option", letter=name[-1])
        else:
            names[name] = t(language, f"export.column.{_CATALOG_KEY.get(name, name)}")
    return names


def _fold(name: str) -> str:
    return re.sub(r"[\s*＊:：]+", "", name).lower()


# Every language's export names are read back, whatever the bank's language.
for _language in LANGUAGES:
    HEADERS.update({_fold(value): name for name, value in column_names(_language).items()})
# Names only a traditional-character header has: such a header makes a Chinese bank zh-TW.
_TRADITIONAL = frozenset(_fold(v) for v in column_names("zh-TW").values()) - frozenset(
    _fold(v) for v in column_names("zh-CN").values())
# The words for each type (single, 单选, 单项选择题 ...), folded: from each type's module, the
# same words paper headers and the commands' `type` argument accept.
TYPE_WORDS: dict[str, QuestionType] = type_words()
_TAG_RE = re.compile(r"[a-z0-9-]+")

Where = Callable[[int, int], str]  # (row, column index) -> place in the source


def _field(cell: str) -> str | None:
    """The field a header cell names, in simplified or traditional characters (`題幹`)."""
    name = _fold(cell)
    if name in HEADERS or name.isascii():
        return HEADERS.get(name)
    return HEADERS.get(_fold(to_simplified(cell)))


def header_columns(cells: list[str]) -> dict[int, str]:
    """Column index -> field for the header cells that name a known column."""
    fields = {i: _field(c) for i, c in enumerate(cells)}
    return {i: name for i, name in fields.items() if name is not None}


def header_script(cells: list[str]) -> str:
    """`zh-TW` for a header in traditional characters, `zh-CN` for one in Chinese, else ``."""
    if any(_fold(c) in _TRADITIONAL for c in cells):
        return "zh-TW"
    if any(not c.isascii() and _field(c) for c in cells):
        return "zh-CN"
    return ""


class _Converted:
    """Counts the characters changed by the traditional-to-simplified conversion."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, text: str) -> str:
        if not text or text.isascii():
            return text
        simple = to_simplified(text)
        if len(simple) == len(text):
            self.count += sum(1 for a, b in zip(text, simple, strict=True) if a != b)
        return simple


def read_table(rows: Iterable[tuple[int, list[str]]], report: Report, where: Where,
               what: Term | None = None) -> PaperDraft:
    """Drafts from (row number, cells) pairs, the first non-empty row being the header.

    A header naming neither the question nor the answer column refuses the file; columns it
    does not know are reported, never dropped silently. `what` names the table in messages.
    """
    what = what or Term("import.what.table_plain")
    columns: dict[int, str] | None = None
    drafts: list[Draft] = []
    convert = _Converted()
    used_columns: set[int] = set()
    used_rows: list[int] = []  # the rows with values in those columns, the first one first
    first_headless = ""  # where the first of those values stands
    title = ""
    script = ""
    tag_names = TagNames()
    for row, raw in rows:
        cells = [c.strip() for c in raw]
        if not any(cells):
            continue
        if columns is None:
            columns = header_columns(cells)
            fields = set(columns.values())
            if not {"stem", "answer"} <= fields:
                found = ", ".join(repr(c) for c in cells if c) or "—"
                report.fail("header", "import.table.header", where(row, 0), what=what, found=found)
                return PaperDraft([])
            for i, cell in enumerate(cells):
                if cell and i not in columns:
                    report.warn("unplaced", "import.table.unknown_column", where(row, i), column=repr(cell))
            script = header_script(cells)
            continue
        if not title:  # the bank's title, written by an export on its first row
            title = next((cells[i] for i, name in columns.items() if name == "title" and i < len(cells)), "")
        for i, name in columns.items():  # as written, as the title (not folded to simplified)
            if name == "tag_names" and i < len(cells) and cells[i]:
                tag_names.read(cells[i], report, where(row, i))
        headless = [i for i, cell in enumerate(cells) if cell and i not in columns]
        if headless:
            used_columns.update(headless)
            if not used_rows:
                first_headless = where(row, headless[0])
            used_rows.append(row)
        draft = _row_draft(row, cells, columns, len(drafts) + 1, report, where, convert)
        if draft is not None:
            drafts.append(draft)
    if columns is None:
        report.fail("empty", "import.table.no_rows", where(1, 0), what=what)
    elif used_columns:
        # told where the first such value stands (the header has nothing there), naming the rows
        names = ", ".join(str(i + 1) for i in sorted(used_columns))
        rows_named = ", ".join(str(r) for r in used_rows[:5]) + (", …" if len(used_rows) > 5 else "")
        report.warn("unplaced", "import.table.headless_values", first_headless,
                    columns=names, rows=rows_named)
    if convert.count:
        report.note("import.note.converted", count=convert.count)
    return PaperDraft(drafts, title=title, script=script, tag_names=tag_names.pairs())


def _row_draft(row, cells, columns, number, report, where, convert) -> Draft | None:
    values: dict[str, tuple[str, int]] = {}
    for i, name in columns.items():
        if i < len(cells) and cells[i]:
            values[name] = (convert(cells[i]), i)
    place = where(row, 0)

    def text(name: str) -> str:
        return values.get(name, ("", 0))[0]

    if not text("stem"):
        report.warn("empty", "import.table.no_stem", place)
        return None
    options: list[tuple[str, str]] = []
    for letter in _LETTERS:
        value = text(f"options.{letter}")
        if value:
            if len(options) != _LETTERS.index(letter):
                report.warn("unplaced", "import.table.option_gap", where(row, values[f"options.{letter}"][1]),
                            letter=letter)
                return None
            options.append((letter, value))
    kind = type_for_word(_fold(text("type"))) if text("type") else None
    draft = Draft(number=number, stem=text("stem"), where=place, options=tuple(options),
                  answer=text("answer") or None, explanation=text("explanation"), type_hint=kind,
                  type_word=text("type") if text("type") and kind is None else None)
    if text("number"):
        given = whole_number(text("number"))
        if given is not None:
            draft.number = given
        else:
            report.warn("unplaced", "import.table.bad_number", where(row, values["number"][1]),
                        number=repr(text("number")))
    draft.where = where(row, 0)
    draft.qid = text("id") or None
    draft.doubt = text("doubt")
    if text("points"):
        points = finite_number(text("points")) or 0.0
        if points > 0:
            draft.points, draft.points_given = points, True
        else:
            report.warn("points", "import.table.bad_points", where(row, values["points"][1]),
                        points=repr(text("points")))
    if text("tolerance"):
        tolerance = finite_number(text("tolerance"))
        if tolerance is not None:
            draft.tolerance = abs(tolerance)
        else:
            report.warn("unplaced", "import.table.bad_tolerance", where(row, values["tolerance"][1]),
                        tolerance=repr(text("tolerance")))
    if text("tags"):
        tags = [t.lower() for t in re.split(r"[\s,;，；、]+", text("tags")) if t]
        bad = [t for t in tags if not _TAG_RE.fullmatch(t)]
        if bad:
            report.warn("tags", "import.table.bad_tags", where(row, values["tags"][1]),
                        tags=", ".join(map(repr, bad)))
        draft.tags = tuple(dict.fromkeys(t for t in tags if t not in bad))
    answer = draft.answer or ""
    if "|" in answer and kind in (None, _T.FILL) and not options and draft.type_word is None:
        draft.type_hint = _T.FILL
        draft.alternatives = tuple(dict.fromkeys(p.strip() for p in answer.split("|") if p.strip()))
    return draft
