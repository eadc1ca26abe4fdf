"""Answer keys after the items of a paper, found by their structure rather than by one template.

A key starts at a heading after the items: `参考答案`, `答案`, `标准答案`, `答案与解析`,
`参考答案及解析`, `Answer key`… (also numbered `四、参考答案`, bracketed `【参考答案】`,
letter-spaced `参 考 答 案`), its entries on the same line or the lines below. Entries are

- runs `1-5 BCCBB`, `1~5：BCCBB`, `1-3 AB,ACD,BD`, `6-10 √××√√`;
- numbered answers `1.B` `1、B` `1．B` `1:B` `(1)B` `（1）B` `1)B` `第1题 B`, several on a line,
  one per line, or the whole key on one line; judge marks √ × 对 错 正确 错误 T F;
- text answers (fill-in, short) after their number on that line or the lines under it,
  running on until the next number;
- a grid of two rows, as answer tables are typed: `题号 1 2 3 4 5` then `答案 B C A √ ×` (cells
  apart by spaces, tabs or `|`), repeated for the next numbers;
- grouped by the key's own section headers (`一、单选题`, `二、`, `判断题：`) on the line before or
  at the start of the same line, numbered through the paper or from 1 in each section; a
  numbering that starts again at 1 without a header goes on with the next section.

A `解析` / `答案解析` section after the answers (or after items that carry their own answers)
gives numbered explanations the same way; in a `答案与解析` key an entry may carry both
(`1. B 解析：…`, `1.【答案】B【解析】…`, `1. B。…`). Every entry is placed on an item or
refused with its line and column, and a key whose count does not match the items says so once.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from bot.domain.questions import QuestionType

from .base import Draft
from .clean import CleanText
from .fields import ANSWER_RE, EXPLANATION_RE, keep_lines
from .report import Report
from .section_kinds import NUMERALS, kind_of, kind_pattern, numeral_value

__all__ = ["AnswerKey", "PaperSection", "find_answer_key"]

_SP = r"[ \t\u3000]"


def _spaced(word: str) -> str:
    """`参考答案`, also as headings are often typed: letter-spaced (`参 考 答 案`)."""
    return f"{_SP}*".join(map(re.escape, word))


_LEAD = (
    rf"^{_SP}*(?:第?[{NUMERALS}]+(?:部分|大题)?{_SP}*[、.．:：]?{_SP}*|[(（][{NUMERALS}]+[)）]{_SP}*)?"
    rf"(?:附(?:录)?{_SP}*[:：、]?{_SP}*)?(?:[【\[]{_SP}*)?"
)
# `（每题1分）`, `（仅供参考）`: a note after a heading, but never an entry's number `(1)`
_NOTE = rf"(?:{_SP}*[(（](?!{_SP}*\d+{_SP}*[)）])[^()（）\n]{{0,40}}[)）])?"
_ANSWER_WORDS = "|".join(_spaced(w) for w in ("参考答案", "标准答案", "正确答案", "答案"))
_KEY_HEAD_RE = re.compile(
    _LEAD + rf"(?:(?:试卷|试题|本卷|全卷)?(?:{_ANSWER_WORDS})"
    rf"(?P<both>{_SP}*(?:及|与|和|、|&|\+)?{_SP}*(?:{_spaced('解析')}|详解|解答))?"
    rf"(?:{_SP}*(?:及|与|和)?(?:评分标准|评分参考|速查|汇总|一览))?"
    r"|Answer[ \t]+[Kk]eys?|ANSWER[ \t]+KEYS?|Answers|ANSWERS)"
    rf"(?:{_SP}*[】\]])?{_NOTE}{_SP}*(?:[:：]{_SP}*)?(?P<rest>[^\n]*)$",
    re.MULTILINE,
)
_EXPL_HEAD_RE = re.compile(
    _LEAD + rf"(?:(?:答案|试题|参考|本题)?(?:{_spaced('解析')}|详解)(?:部分)?|Explanations?|EXPLANATIONS?)"
    rf"(?:{_SP}*[】\]])?{_NOTE}{_SP}*[:：]?{_SP}*$",
    re.MULTILINE,
)
# A section header inside the key: `一、单选题` `二、` `（三）判断题答案` `第四部分` `填空题：`.
_GROUP_RE = re.compile(
    rf"(?:(?P<num>(?:第{_SP}*)?[{NUMERALS}]+{_SP}*(?:部分|大题)?{_SP}*[、.．:：]|[(（]{_SP}*[{NUMERALS}]+{_SP}*[)）]"
    rf"|第{_SP}*[{NUMERALS}]+{_SP}*(?:部分|大题))"
    rf"{_SP}*(?:(?:{kind_pattern('n')})(?:{_SP}*(?:答案|部分))?)?"
    rf"|(?:{kind_pattern('u')})(?:{_SP}*(?:答案|部分))?)"
    rf"{_NOTE}{_SP}*[:：]?{_SP}*"
)
# An entry's number: `1.` `1．` `1、` `1:` `1)` `(1)` `（1）` `第1题`; never inside a decimal.
_MARK_RE = re.compile(
    rf"(?<![0-9.．(（])(?P<n>\d{{1,5}}){_SP}*(?:[.．、:：](?![0-9])|[)）])"
    rf"|[(（]{_SP}*(?P<p>\d{{1,5}}){_SP}*[)）]"
    rf"|第{_SP}*(?P<t>\d{{1,5}}){_SP}*题{_SP}*[.．、:：]?"
)
# A run: `1-5 BCCBB`, `1~5：B C C B B`, `1-3 AB,ACD,BD`, `6—10 √××√√`.
_ATOM = r"(?:正确|错误|[A-Ha-h√×✓✗✔✘✕对错TFtf])"
_RUN_SEP = r"[ \t\u3000,，、;；/]"
_RUN_RE = re.compile(
    rf"(?<![0-9.．])(?P<a>\d{{1,5}}){_SP}*(?:[-~～—–－〜]+|至|到){_SP}*(?P<b>\d{{1,5}}){_SP}*题?{_SP}*"
    rf"(?:[.．、:：]{_SP}*)?(?P<body>{_ATOM}+(?:{_RUN_SEP}+{_ATOM}+)*)"
)
_ATOMS_RE = re.compile(_ATOM)
_RUN_PART_RE = re.compile(r"[^ \t\u3000,，;；、/\n]+")
# An entry's number with no punctuation, as keys are typed in columns: `1 B`, `1<TAB>B`,
# `10 交叉熵`. Only in a key under its heading, and only before a choice or judge answer (`bare`),
# or at a line's start as the next number (`bare-text`): a stem `1 下列…` is never one.
_BARE_RE = re.compile(r"(?<![0-9A-Za-z.．(（\-~～—–－〜])(?P<n>\d{1,5})[ \t\u3000]+(?=\S)")
_BARE_TOKEN_RE = re.compile(rf"{_ATOM}+(?=[ \t\u3000,，;；、。]|$)", re.MULTILINE)
# A grid: a row of item numbers under `题号`, the row under it the answers, as many cells.
_CELL_SEP = rf"(?:{_SP}*[|｜]{_SP}*|{_SP}+)"
_GRID_RE = re.compile(
    rf"^{_SP}*[|｜]?{_SP}*(?:{_spaced('题号')}|{_spaced('题次')}){_SP}*[:：]?{_CELL_SEP}"
    rf"(?P<numbers>\d{{1,5}}(?:{_CELL_SEP}\d{{1,5}})*){_SP}*[|｜]?{_SP}*\n"
    rf"{_SP}*[|｜]?{_SP}*(?:参考|标准|正确)?{_spaced('答案')}{_SP}*[:：]?{_CELL_SEP}"
    rf"(?P<answers>[^\n]*?){_SP}*[|｜]?{_SP}*$",
    re.MULTILINE,
)
_CELL_RE = re.compile(r"[^ \t\u3000|｜\n]+")
# Text that is only choice answers and separators: among such entries any number may follow.
_CHOICEISH = re.compile(rf"(?:{_ATOM}|[\s,，;；、/])*")
_TRAIL = " \t\u3000\n,，;；、"
# A line starting with option A and its text: an item, so no key can be here.
_OPTION_LINE_RE = re.compile(rf"^{_SP}*[(（]?A{_SP}*[)）.．、]{_SP}*[^\sA-H,，、]", re.MULTILINE)
_FIRST_ITEM_RE = re.compile(rf"^{_SP}*(?:[(（]{_SP}*)?\d{{1,5}}{_SP}*[.．、)）]", re.MULTILINE)
# What an entry of a `答案与解析` key may carry after its answer: letters or a judge mark, then
# the explanation.
_CHOICE_HEAD_RE = re.compile(
    r"(?P<head>[A-H](?:[,，、 \t]*[A-H])*)(?![A-Za-z])[\s。.．,，;；:：]+"
    r"(?P<rest>(?![A-Ha-h,，、;；\s]*$)\S.*)",
    re.DOTALL,
)
_JUDGE_HEAD_RE = re.compile(
    r"(?P<head>正确|错误|对|错|[√×✓✗✔✘✕]|[TFtf](?![A-Za-z]))[\s。.．,，;；:：]+(?P<rest>\S.*)", re.DOTALL
)


@dataclass
class _Entry:
    number: int
    text: str
    start: int  # offsets in the cleaned text: where the answer text is, for messages
    end: int
    mark: int  # where the entry's number is
    bare_text: bool = False  # `10 交叉熵`: text after a number with no punctuation


@dataclass
class _Group:
    """The entries under one section header of the key (or none), in key order."""

    header: str = ""
    has_kind: bool = False
    kind: QuestionType | None = None
    numeral: int | None = None
    restart: bool = False  # numbering started again at 1 without a header
    entries: list[_Entry] = field(default_factory=list)


@dataclass(frozen=True)
class PaperSection:
    """A section of the paper as the key sees it: its type, its numeral, its items' numbers
    (as the reader numbered them through the paper)."""

    titled: bool
    kind: QuestionType | None
    numeral: int | None
    numbers: tuple[int, ...]


@dataclass
class _Candidate:
    start: int
    end: int
    what: str  # "head", "grid", "run" or "mark"
    first: int = 0
    last: int = 0
    match: re.Match[str] | None = None


def _level(text: str, start: int, pos: int) -> int:
    """2 at a line start, 1 after a space or separator, 0 glued to the text before."""
    i = pos - 1
    while i >= start and text[i] in " \t\u3000":
        i -= 1
    if i < start or text[i] == "\n":
        return 2
    if i < pos - 1 or text[i] in ",，;；、。:：":
        return 1
    return 0


def _candidates(text: str, start: int, end: int, bare: bool) -> list[_Candidate]:
    found: list[_Candidate] = []
    if bare:
        for m in _BARE_RE.finditer(text, start, end):
            n = int(m.group("n"))
            what = "bare" if _BARE_TOKEN_RE.match(text, m.end(), end) else "bare-text"
            found.append(_Candidate(m.start(), m.end(), what, n, n, m))
    for m in _RUN_RE.finditer(text, start, end):
        a, b = int(m.group("a")), int(m.group("b"))
        after = text[m.end() : m.end() + 1]
        if b > a and not (after.isascii() and after.isalpha()):
            found.append(_Candidate(m.start(), m.end(), "run", a, b, m))
    for m in _MARK_RE.finditer(text, start, end):
        n = int(m.group("n") or m.group("p") or m.group("t"))
        found.append(_Candidate(m.start(), m.end(), "mark", n, n, m))
    for m in _GROUP_RE.finditer(text, start, end):
        if m.group(0).strip():
            found.append(_Candidate(m.start(), m.end(), "head", match=m))
    for m in _GRID_RE.finditer(text, start, end):
        numbers = [int(n) for n in _CELL_RE.findall(m.group("numbers"))]
        found.append(_Candidate(m.start(), m.end(), "grid", numbers[0], numbers[-1], m))
    order = {"grid": 0, "head": 1, "run": 2, "mark": 3, "bare": 4, "bare-text": 4}
    found.sort(key=lambda c: (c.start, order[c.what]))
    return found


def _entry_at(text: str, pos: int, end: int, bare: bool = False) -> bool:
    """Whether a run or a numbered entry starts at `pos` (with `bare`, also `1 B`)."""
    if _RUN_RE.match(text, pos, end) or _MARK_RE.match(text, pos, end):
        return True
    return bare and bool((m := _BARE_RE.match(text, pos, end)) and _BARE_TOKEN_RE.match(text, m.end(), end))


def _head_ok(text: str, c: _Candidate, level: int, end: int, bare: bool = False) -> bool:
    """A key section header ends its line or is followed by an entry; one inside a line must
    have an entry right after it (`参考答案：一、1.D 二、2.ABC`)."""
    if level == 0:
        return False
    at_eol = c.end >= end or text[c.end] == "\n"
    if level == 2 and at_eol:
        return True
    # under a key heading, `四、填空题 10 交叉熵`: a bare number before text too
    return _entry_at(text, c.end, end, bare) or (bare and bool(_BARE_RE.match(text, c.end, end)))


class _Scan:
    """The entries of one part of the key (answers or explanations), in groups."""

    def __init__(self, doc: CleanText, start: int, end: int, report: Report, sizes: list[int] | None,
                 text_key: str, bare: bool = False) -> None:  # fmt: skip
        """`sizes`: the item count of each section of the paper, when known; `bare`: entries
        may have no punctuation after their number (a key under its heading)."""
        self.doc, self.start, self.end, self.report = doc, start, end, report
        self.sizes, self.text_key, self.bare = sizes, text_key, bare
        self.groups: list[_Group] = [_Group()]
        self.lead_text = False  # text before the first entry
        self.grids = 0  # grids seen, whether their answers could be used or not
        self._open = start  # text from here on belongs to the pending entry (or to nothing)
        self._pending: _Entry | None = None
        self._run()

    def _run(self) -> None:
        text, start, end = self.doc.text, self.start, self.end
        last, after_head, skip_to = 0, -1, start
        for c in _candidates(text, start, end, self.bare):
            if c.start < skip_to:
                continue
            level = 1 if c.start == after_head else _level(text, start, c.start)
            if c.what == "head":
                if not _head_ok(text, c, level, end, self.bare):
                    continue
                self._close(c.start)
                assert c.match is not None
                has_kind, kind = kind_of(c.match, "nu")
                self.groups.append(
                    _Group(
                        header=c.match.group(0).strip(),
                        has_kind=has_kind,
                        kind=kind,
                        numeral=numeral_value(c.match.group("num") or ""),
                    )
                )
                last, after_head, skip_to, self._open = 0, c.end, c.end, c.end
                continue
            if c.what == "grid":
                self._close(c.start)
                if c.first == 1 and self.groups[-1].entries:
                    self.groups.append(_Group(restart=True))  # numbered from 1 again: the next section
                self._add_grid(c)
                last, skip_to, self._open = c.last, c.end, c.end
                continue
            choice = self._pending is None or bool(_CHOICEISH.fullmatch(text, self._open, c.start))
            fresh = last == 0 and not self.groups[-1].entries  # right after a header
            own_line = level == 2 or c.start == after_head  # at a line's start or its header's end
            if c.what == "bare-text" and not (own_line and (fresh or c.first in (last + 1, 1))):
                continue  # text after a bare number: only the next entry on a line of its own
            if c.what == "bare" and not (level == 2 or (level == 1 and (choice or c.first == last + 1))):
                continue
            how = self._accept(c, level, last, choice)
            if how is None:
                continue
            self._close(c.start)
            if how == "restart":
                self.groups.append(_Group(restart=True))
            if c.what == "run":
                self._add_run(c)
            else:
                self._pending = _Entry(c.first, "", c.end, c.end, c.start, c.what == "bare-text")
                self.groups[-1].entries.append(self._pending)
            last, skip_to, self._open = c.last, c.end, c.end
        self._close(end)
        self.groups = [g for g in self.groups if g.entries]

    def _accept(self, c: _Candidate, level: int, last: int, choice: bool) -> str | None:
        """'entry', 'restart' (a new group: numbering from 1 again) or None (text)."""
        n = c.first
        fresh = not self.groups[-1].entries and last == 0
        if level == 0:
            # glued to the text before (`1.B2.C`, `7.召回率8.精确率`): only the next number
            return "entry" if n == last + 1 and not fresh else None
        if fresh:
            return "entry"
        if last < n <= last + 3:
            return "entry"
        if n > last + 3:
            return "entry" if level == 2 or choice else None
        groups = sum(1 for g in self.groups if g.entries)
        # `1.A 1.B` is a number typed twice, unless the section had just that one item
        complete = last >= 2 or (
            self.sizes is not None and groups <= len(self.sizes) and last >= self.sizes[groups - 1]
        )
        if (
            n == 1
            and complete
            and (level == 2 or choice)
            and (self.sizes is None or groups < len(self.sizes))
        ):
            return "restart"
        # a number given twice or out of order among choice answers is an entry (and reported)
        return "entry" if choice else None

    def _add_run(self, c: _Candidate) -> None:
        assert c.match is not None
        body = c.match.group("body")
        count = c.last - c.first + 1
        parts = [p for p in re.split(f"{_RUN_SEP}+", body) if p]
        if len(parts) != count:
            atoms = _ATOMS_RE.findall(body)
            if len(atoms) != count:
                self.report.warn(
                    "unplaced",
                    "import.key.run_count",
                    self.doc.where(c.start),
                    run=repr(c.match.group(0).strip()),
                    answers=len(atoms),
                    items=count,
                )
                return
            parts = atoms
        at = c.match.start("body")
        for i, part in enumerate(parts):
            answer = part.upper() if re.fullmatch("[A-Ha-h]+", part) else part
            self.groups[-1].entries.append(_Entry(c.first + i, answer, at, at + len(body), c.start))

    def _add_grid(self, c: _Candidate) -> None:
        """A grid's answers, each with its own place: the number above it names its item. A
        cell left empty (or missing at the row's end) is told with its place, the others are
        placed, when the columns can be lined up: cells apart by `|` or tabs, or by spaces
        that keep every answer under its number."""
        assert c.match is not None
        self.grids += 1
        columns = _grid_columns(self.doc.text, c.match)
        if isinstance(columns, tuple):  # a cell left out shifts every answer after it: none used
            answers, items = columns
            self.report.warn("unplaced", "import.key.grid_count", self.doc.where(c.match.start("answers")),
                             answers=answers, items=items)  # fmt: skip
            return
        for number, (part, start, end) in columns:
            if not part:
                self.report.warn("unplaced", "import.key.grid_empty", self.doc.where(start), item=number)
                continue
            answer = part.upper() if re.fullmatch("[A-Ha-h]+", part) else part
            self.groups[-1].entries.append(_Entry(number, answer, start, end, c.start))

    def _close(self, stop: int) -> None:
        """The text from the open position to `stop` goes to the pending entry, or is reported
        when no entry takes it."""
        chunk = self.doc.text[self._open : stop]
        stripped = chunk.strip(_TRAIL)
        lead = len(chunk) - len(chunk.lstrip(_TRAIL))
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.text = keep_lines(stripped)
            pending.start = self._open + lead
            pending.end = pending.start + len(stripped)
            if not pending.text:
                self.report.warn(
                    "unplaced", "import.key.empty", self.doc.where(pending.mark), item=pending.number
                )
                self.groups[-1].entries.remove(pending)
        elif stripped:
            if not any(g.entries for g in self.groups):
                self.lead_text = True
            self.report.warn(
                "unplaced",
                self.text_key,
                self.doc.where(self._open + lead),
                text=repr(" ".join(stripped.split())[:40]),
            )


_Cell = tuple[str, int, int]  # a cell's text (stripped) and where it stands


def _split_cells(text: str, start: int, end: int, sep: str) -> list[_Cell]:
    """The cells of text[start:end] apart by `sep` (a pattern), empty ones kept; the empty
    cells before a leading and after a trailing `|` dropped."""
    cells: list[_Cell] = []
    at = start
    for m in [*re.finditer(sep, text[start:end]), None]:
        stop = start + m.start() if m else end
        raw = text[at:stop]
        lead = len(raw) - len(raw.lstrip(" \t\u3000"))
        value = raw.strip(" \t\u3000")
        cells.append((value, at + lead, at + lead + len(value)))
        if m:
            at = start + m.end()
    if "|" in sep:
        if cells and not cells[0][0]:
            cells.pop(0)
        if cells and not cells[-1][0]:
            cells.pop()
    return cells


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _at_column(text: str, start: int, end: int, column: int) -> int:
    """The offset in text[start:end] at display `column` (the end if the line is shorter)."""
    at, width = start, 0
    while at < end and width < column:
        width += _width(text[at])
        at += 1
    return at


def _grid_columns(text: str, match: re.Match[str]) -> list[tuple[int, _Cell]] | tuple[int, int]:
    """Each number of a grid with its answer cell (empty text: no answer, placed where the cell
    is or the row ends), or (answers, numbers) when the cells cannot be lined up."""
    top_end = text.index("\n", match.start())
    row_start, row_end = top_end + 1, match.end()
    while row_end > row_start and text[row_end - 1] in " \t\u3000":
        row_end -= 1
    top = text[match.start() : top_end]
    sep = "[|｜]" if re.search("[|｜]", top) else "\t" if "\t" in top.strip(" \t\u3000") else ""
    if sep and re.search(sep, text[row_start:row_end]):
        heads, cells = (
            _split_cells(text, match.start(), top_end, sep),
            _split_cells(text, row_start, row_end, sep),
        )
        heads, cells = heads[1:], cells[1:]  # the row names (题号, 答案)
        if all(re.fullmatch(r"\d{1,5}", h[0]) for h in heads):
            while len(cells) > len(heads) and not cells[-1][0]:
                cells.pop()
            if len(cells) <= len(heads):
                cells += [("", row_end, row_end)] * (len(heads) - len(cells))
                return [(int(h[0]), cell) for h, cell in zip(heads, cells, strict=True)]
    numbers = [
        (m.group(0), m.start(), m.end())
        for m in _CELL_RE.finditer(text, match.start("numbers"), match.end("numbers"))
    ]
    answers = [
        (m.group(0), m.start(), m.end())
        for m in _CELL_RE.finditer(text, match.start("answers"), match.end("answers"))
    ]
    if len(answers) == len(numbers):
        return [(int(n[0]), a) for n, a in zip(numbers, answers, strict=True)]
    if len(answers) < len(numbers):
        # by spaces: each answer must stand under its own number (by display columns)
        def span(cell: _Cell, line_start: int) -> tuple[int, int]:
            left = _width(text[line_start : cell[1]])
            return left, left + _width(cell[0])

        under: dict[int, _Cell] = {}
        last = -1
        for cell in answers:
            left, right = span(cell, row_start)
            over = [
                i for i, n in enumerate(numbers) if (s := span(n, match.start()))[0] < right and left < s[1]
            ]
            if len(over) != 1 or over[0] <= last:
                break
            last = over[0]
            under[last] = cell
        else:
            out = []
            for i, n in enumerate(numbers):
                at = _at_column(text, row_start, row_end, span(n, match.start())[0])
                out.append((int(n[0]), under.get(i) or ("", at, at)))
            return out
    return len(answers), len(numbers)


@dataclass
class AnswerKey:
    """Where the key is: the items end at `start`; answers in [answers_start, answers_end),
    explanations from `explanations_start` (None if the key has no such section)."""

    start: int
    answers_start: int
    answers_end: int
    explanations_start: int | None
    end: int
    combined: bool  # `答案与解析`: an entry may carry its explanation after the answer
    headed: bool = False  # under a key heading: entries may be `1 B` (no punctuation)
    run: bool = False  # answers with no numbers (`参考答案：BBA√×`), to items 1..n in order

    @property
    def has_answers(self) -> bool:
        return self.answers_end > self.answers_start

    def apply(self, drafts: list[Draft], sections: list[PaperSection], doc: CleanText,
              report: Report) -> None:  # fmt: skip
        """Give each draft its answer and explanation from the key; every entry the key has
        for no item, given twice, or that the item contradicts, is reported where it stands."""
        by_number = {draft.number: draft for draft in drafts}
        unanswered = [draft.number for draft in drafts if draft.answer is None]
        counted: dict[int, bool] = {}  # per section: key numbers counted within it
        entries = 0
        answered: set[int] = set()
        if self.has_answers:
            if self.run:
                placed, entries = self._run_entries(drafts, doc)
            else:
                sizes = [len(s.numbers) for s in sections]
                scan = _Scan(doc, self.answers_start, self.answers_end, report, sizes, "import.key.text",
                             self.headed)  # fmt: skip
                placed = _place(scan.groups, sections, counted)
                entries = len(placed)
            for number, found in _by_item(placed, by_number, doc, report, "answer").items():
                draft = by_number[number]
                if found.bare_text and (draft.options or draft.type_hint is QuestionType.JUDGE):
                    # `3 学习率越大…` for a choice or judge item: not its answer (a stem, a note)
                    report.warn("unplaced", "import.key.text", doc.where(found.mark),
                                text=repr(" ".join(f"{number} {found.text}".split())[:40]))  # fmt: skip
                    continue
                answer, explanation = self._split(found, draft)
                answered.add(number)
                if draft.answer is None:
                    draft.answer = answer
                    draft.spans["answer"] = (found.start, found.end)
                    draft.answer_where = doc.where(found.start)
                    if explanation and not draft.explanation:
                        draft.explanation = explanation
                        draft.spans["explanation"] = (found.start, found.end)
                elif draft.answer.strip() != answer:
                    report.warn(
                        "unplaced",
                        "import.key.disagrees",
                        doc.where(found.start),
                        number,
                        answer=repr(answer),
                        own=repr(draft.answer.strip()),
                    )
            missing = [n for n in unanswered if n not in answered]
            if missing or entries not in (len(unanswered), len(drafts)):
                where, items = doc.where(self.start), len(unanswered)
                if missing:
                    report.warn("key-count", "import.key.count_missing", where, entries=entries,
                                items=items, missing=_numbers(missing))  # fmt: skip
                else:
                    report.warn("key-count", "import.key.count", where, entries=entries, items=items)
        if self.explanations_start is not None:
            scan = _Scan(
                doc,
                self.explanations_start,
                self.end,
                report,
                [len(s.numbers) for s in sections],
                "import.key.explanations_text",
            )
            for number, found in _by_item(_place(scan.groups, sections, counted), by_number, doc, report,
                                          "explanation").items():  # fmt: skip
                draft = by_number[number]
                text = found.text
                if marker := EXPLANATION_RE.match(text):
                    text = keep_lines(text[marker.end() :])
                if text and not draft.explanation:
                    draft.explanation = text
                    draft.spans["explanation"] = (found.start, found.end)

    def _run_entries(
        self, drafts: list[Draft], doc: CleanText
    ) -> tuple[list[tuple[_Entry, int | None]], int]:
        """A run of answers with no numbers, one per item in order: its answers apart by spaces
        or commas, else one letter or mark each; none placed if the count is not the items'."""
        text = doc.text
        parts = [m for m in _RUN_PART_RE.finditer(text, self.answers_start, self.answers_end)]
        atoms = list(_ATOMS_RE.finditer(text, self.answers_start, self.answers_end))
        found = parts if len(parts) == len(drafts) else atoms if len(atoms) == len(drafts) else None
        if found is None:
            return [], len(parts) if len(parts) > 1 else len(atoms)
        placed: list[tuple[_Entry, int | None]] = []
        for draft, m in zip(drafts, found, strict=True):
            part = m.group(0)
            answer = part.upper() if re.fullmatch("[A-Ha-h]+", part) else part
            placed.append((_Entry(draft.number, answer, m.start(), m.end(), m.start()), draft.number))
        return placed, len(found)

    def _split(self, entry: _Entry, draft: Draft) -> tuple[str, str]:
        """An entry's answer and the explanation it may carry (`B 解析：…`, `【答案】B【解析】…`,
        and in a choice or judge item `B。…`)."""
        text = entry.text
        if marker := ANSWER_RE.match(text):
            text = text[marker.end() :].strip()
        if expl := EXPLANATION_RE.search(text):
            answer = text[: expl.start()].strip(_TRAIL)
            if _CHOICEISH.fullmatch(answer.rstrip("。.．")):
                answer = answer.rstrip("。.．")  # `A。解析：…`
            return answer, keep_lines(text[expl.end() :])
        head = None
        if draft.options:
            head = _CHOICE_HEAD_RE.fullmatch(text)
        if head is None and (
            draft.type_hint is QuestionType.JUDGE
            or (self.combined and draft.type_hint is None and not draft.options)
        ):
            head = _JUDGE_HEAD_RE.fullmatch(text)
        if head is not None:
            return head.group("head"), keep_lines(head.group("rest"))
        return text, ""


def _numbers(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _section_for(group: _Group, titled: list[PaperSection], used: set[int], prev: int) -> int | None:
    """The paper section a key group answers: by its type words, else its numeral, else (a
    header or a restart) the section after the previous group's."""
    if not titled:
        return None
    if group.has_kind:
        same = [i for i, s in enumerate(titled) if s.kind is group.kind]
        fresh = [i for i in same if i not in used]
        if fresh or same:
            return (fresh or same)[0]
    if group.numeral is not None:
        for i, s in enumerate(titled):
            if s.numeral == group.numeral:
                return i
    if (group.restart or group.header) and prev + 1 < len(titled):
        return prev + 1
    return None


def _place(groups: list[_Group], sections: list[PaperSection],
           counted: dict[int, bool] | None = None) -> list[tuple[_Entry, int | None]]:  # fmt: skip
    """Each entry with the item number it answers (None: a number the section lacks).

    A group's numbers are the paper's own when its section holds them all; numbers from 1
    that fit in the section are counted within it (keys per section restart at 1). `counted`
    records, per section, whether its numbers were counted within it; the explanations
    follow the answers there (a `3.` under 三、 is the section's third item if the answers
    were numbered so)."""
    if counted is None:
        counted = {}
    titled = [s for s in sections if s.titled]
    everything = {n for s in sections for n in s.numbers}
    used: set[int] = set()
    prev, highest = -1, 0
    out: list[tuple[_Entry, int | None]] = []
    for group in groups:
        numbers = [e.number for e in group.entries]
        index = _section_for(group, titled, used, prev)
        local: tuple[int, ...] | None = None
        offset = 0
        if index is not None:
            own = titled[index].numbers
            used.add(index)
            # numbers the section does not hold but that fit in it are counted within it
            if index in counted:
                local = own if counted[index] else None
            elif not set(numbers) <= set(own) and (
                max(numbers) <= len(own) or (min(numbers) == 1 and not set(numbers) <= everything)
            ):
                local = own
            counted.setdefault(index, local is not None)
        elif (group.restart or group.header) and min(numbers) <= highest:
            offset = highest  # sections restart at 1 in a paper without headers
        for entry in group.entries:
            if local is not None:
                target = local[entry.number - 1] if 1 <= entry.number <= len(local) else None
            else:
                target = entry.number + offset
            out.append((entry, target))
            if target is not None:
                highest = max(highest, target)
        if index is not None:
            prev = index
        else:
            prev = next((i for i, s in enumerate(titled) if highest in s.numbers), prev)
    return out


def _by_item(placed: list[tuple[_Entry, int | None]], by_number: dict[int, Draft], doc: CleanText,
             report: Report, what: str) -> dict[int, _Entry]:  # fmt: skip
    """The entry for each item; entries for no item and items given twice are reported (an
    item given twice takes neither)."""
    found: dict[int, list[_Entry]] = {}
    for entry, target in placed:
        if target is None or target not in by_number:
            number = entry.number if target is None else target
            if what == "answer":
                report.warn(
                    "unplaced",
                    "import.key.no_such_item",
                    doc.where(entry.start),
                    answer=repr(entry.text[:30]),
                    item=number,
                )
            else:
                report.warn(
                    "unplaced",
                    "import.key.explanation_no_item",
                    doc.where(entry.start),
                    item=number,
                    text=repr(entry.text[:30]),
                )
        else:
            found.setdefault(target, []).append(entry)
    out = {}
    for number, entries in found.items():
        if len(entries) == 1:
            out[number] = entries[0]
            continue
        places = ", ".join(f"{doc.where(e.mark)} {e.text[:20]!r}" for e in entries)
        key = "import.key.twice" if what == "answer" else "import.key.explanation_twice"
        report.warn("key-twice", key, doc.where(entries[1].mark), number, places=places)
    return out


def _region_ok(doc: CleanText, start: int, end: int, own_answers: bool, empty_ok: bool = False,
               bare: bool = False) -> bool:  # fmt: skip
    """Whether [start, end) reads as key entries: entries from its first line, no item's
    options in it, no entry that is a stem followed by its own answer (with `empty_ok`,
    nothing but section headers will do too)."""
    if start >= end:
        return empty_ok
    if _OPTION_LINE_RE.search(doc.text, start, end):
        return False
    scan = _Scan(doc, start, end, Report(), None, "import.key.text", bare)
    entries = [e for g in scan.groups for e in g.entries]
    nothing = not entries and not scan.grids  # a grid whose answers were refused is a key all the same
    if scan.lead_text or (nothing and not empty_ok) or (own_answers and len(entries) < 2):
        return False
    return not any(m.start() > 0 for e in entries if (m := ANSWER_RE.search(e.text)))


def _next_content(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos] in " \t\u3000\n":
        pos += 1
    return pos


def find_answer_key(doc: CleanText) -> AnswerKey | None:
    """The answer key after the items, if the paper has one: the first key heading after an
    item whose entries follow it; or a `解析` section of numbered explanations after items that
    carry their own answers."""
    text = doc.text
    first = _FIRST_ITEM_RE.search(text)
    if first is None:
        return None
    for head in _KEY_HEAD_RE.finditer(text, first.end()):
        own_answers = ANSWER_RE.search(text, 0, head.start()) is not None
        rest = head.start("rest")
        if not own_answers and _answer_run(text, head):
            expl = _explanations(doc, head.end())
            answers_end = expl.start() if expl else len(text)
            return AnswerKey(head.start(), rest, answers_end, expl.end() if expl else None, len(text),
                             combined=False, headed=True, run=True)  # fmt: skip
        if head.group("rest").strip():
            if own_answers or not (
                _entry_at(text, rest, head.end(), bare=True) or _GROUP_RE.match(text, rest, head.end())
            ):
                continue  # `答案：C`, `答案：2.4`: an item's own answer
        expl = _explanations(doc, head.end())
        answers_end = expl.start() if expl else len(text)
        if _region_ok(doc, _next_content(text, rest, answers_end), answers_end, own_answers, bare=True):
            return AnswerKey(
                head.start(),
                rest,
                answers_end,
                expl.end() if expl else None,
                len(text),
                combined=bool(head.group("both")),
                headed=True,
            )
    if (key := _headless_key(doc, first.end())) is not None:
        return key
    expl = _explanations(doc, first.end(), alone=True)
    if expl is not None:
        return AnswerKey(expl.start(), expl.start(), expl.start(), expl.end(), len(text), combined=False)
    return None


def _answer_run(text: str, head: re.Match[str]) -> bool:
    """Whether a key heading is followed by answers with no numbers (`参考答案：BBA√×`, `B B A √ ×`
    on the lines below), up to an explanations heading or the end: two answers at least, and not
    `答案：AB` on the heading's line (an item's own answer)."""
    rest = head.start("rest")
    stop = _EXPL_HEAD_RE.search(text, head.end())
    body = text[rest : stop.start() if stop else len(text)].strip()
    if not body or not _CHOICEISH.fullmatch(body):
        return False
    word = re.sub(r"[ \t\u3000:：]", "", text[head.start() : rest])
    if head.group("rest").strip() and word in ("答案", "正确答案"):
        return False
    return len(_RUN_PART_RE.findall(body)) >= 2 or len(_ATOMS_RE.findall(body)) >= 2


_KEY_START_RE = re.compile(
    rf"^{_SP}*(?:1{_SP}*[.．、:：)）]|[(（]{_SP}*1{_SP}*[)）]|1{_SP}*(?:[-~～—–－〜]+|至|到){_SP}*\d"
    rf"|[|｜]?{_SP}*{_spaced('题号')}{_SP}*[:：]?{_CELL_SEP}1\b)",
    re.MULTILINE,
)


def _headless_key(doc: CleanText, start: int) -> AnswerKey | None:
    """A key with no heading: from a line starting again at 1 whose first entries are short
    choice answers (`1.D 2.D 3.B`, `1-5 BCCBB`) to the end, when it reads as key entries."""
    text = doc.text
    for line in _KEY_START_RE.finditer(text, start):
        at = line.start() + len(line.group(0)) - len(line.group(0).lstrip())
        expl = _explanations(doc, at)
        end = expl.start() if expl else len(text)
        scan = _Scan(doc, at, end, Report(), None, "import.key.text")
        entries = [e for g in scan.groups for e in g.entries]
        if len(entries) < 2 or not all(_CHOICEISH.fullmatch(e.text) for e in entries[:2]):
            continue
        if _region_ok(doc, at, end, False):
            return AnswerKey(at, at, end, expl.end() if expl else None, len(text), combined=False)
    return None


def _explanations(doc: CleanText, start: int, alone: bool = False) -> re.Match[str] | None:
    """The first explanations heading after `start` that numbered explanations follow (at
    least two if `alone`: with no key before it, a heading that one item's own numbered
    explanation happens to start is not a section)."""
    text = doc.text
    for head in _EXPL_HEAD_RE.finditer(text, start):
        # a heading with nothing (or only section headers) under it ends the answers all the same
        if _region_ok(doc, _next_content(text, head.end(), len(text)), len(text), alone, empty_ok=not alone):
            return head
    return None
