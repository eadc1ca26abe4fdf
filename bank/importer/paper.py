"""Reader for pasted Chinese exam papers: section headers (`一、单选题（每题1分，共30分）`), items
numbered consecutively (`1.` `1、` `1．`), one item per line or all run together on one line.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from bot.domain.questions import QuestionType

from .answer_key import PaperSection, find_answer_key
from .base import Draft, PaperDraft
from .clean import CleanText
from .fields import ANSWER_RE, join_lines, keep_lines, split_item
from .report import Report, SectionInfo, field_term
from .section_kinds import KINDS, NUMERALS, kind_pattern, numeral_value

__all__ = ["PaperReader"]

_T = QuestionType
_KINDS = KINDS
_KIND_RE = kind_pattern("k")
_NUMERAL = NUMERALS
_PAREN = r"(?P<paren>[ \t\u3000]*[（(][^（）()\n]{0,40}[)）])?"
_SCORE = r"(?P<paren>[ \t\u3000]*[（(][^（）()\n]{0,30}[分题][^（）()\n]{0,30}[)）])"
# Numbered headers may follow a sentence end on the same line (papers pasted as one line), or
# any text if they give points (`及答案一、单选题（每题1分）`); unnumbered ones must stand on a
# line of their own.
_HEADER_RE = re.compile(
    rf"(?:(?<=[。！？!?）)】])|^)[ \t\u3000]*第?[{_NUMERAL}]+"
    rf"(?:(?:部分|大题)[、.．:：]?|[ \t\u3000]*[、.．:：]|[ \t\u3000]+)"
    rf"[ \t\u3000]*(?:{_KIND_RE}){_PAREN}"
    rf"|第?[{_NUMERAL}]+(?:部分|大题)?[、.．][ \t\u3000]*"
    rf"(?:{_KIND_RE.replace('?P<k', '?P<s')}){_SCORE.replace('?P<paren>', '?P<paren3>')}"
    rf"|^[ \t\u3000]*(?:{_KIND_RE.replace('?P<k', '?P<u')})"
    rf"{_PAREN.replace('?P<paren>', '?P<paren2>')}[ \t\u3000]*$",
    re.MULTILINE,
)
_SENTENCE_END = "。！？!?；;）)】」』”\"'"
_TRUNCATED_END = "，,、：:；;（(—-"
_FINISHED_END = "。！？!?）)】」』”\"'.%"


@dataclass
class _Section:
    title: str
    type: QuestionType | None
    points: float | None
    declared: int | None
    start: int  # first character after the header
    end: int
    where: str


def _number(text: str) -> float:
    value = float(text)
    return int(value) if value.is_integer() else value


def _parse_header(match: re.Match[str], doc: CleanText, end: int) -> _Section:
    kind = next(
        (_KINDS[int(name[1:])][0] for name, value in match.groupdict().items()
         if value and name[0] in "kus" and name[1:].isdigit()),
        None,
    )
    paren = match.group("paren") or match.group("paren2") or match.group("paren3") or ""
    each = re.search(r"每(?:小)?题\s*(\d+(?:\.\d+)?)\s*分", paren)
    total = re.search(r"共\s*(\d+(?:\.\d+)?)\s*分", paren)
    count = re.search(r"共\s*(\d+)\s*(?:道|小)?题", paren)
    points = _number(each.group(1)) if each else None
    declared = int(count.group(1)) if count else None
    if declared is None and each and total and points:
        ratio = float(total.group(1)) / float(points)
        declared = round(ratio) if abs(ratio - round(ratio)) < 1e-9 else None
    if points is None and declared and total:
        points = _number(f"{float(total.group(1)) / declared:g}")
    return _Section(
        title=match.group(0).strip(), type=kind, points=points, declared=declared,
        start=match.end(), end=end,
        where=doc.where(match.end() - len(match.group(0).lstrip())),
    )


def _sections(doc: CleanText, items_end: int) -> tuple[int, list[_Section]]:
    """End of the preamble and the sections, each running to the next header (the items
    end where an answer key at the end starts)."""
    matches = list(_HEADER_RE.finditer(doc.text, 0, items_end))
    sections = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else items_end
        sections.append(_parse_header(match, doc, end))
    if not sections:
        return 0, [_Section("", None, None, None, 0, items_end, doc.where(0))]
    return matches[0].start(), sections


def _level(text: str, start: int, pos: int) -> int:
    """Plausibility of an item number at `pos`: 2 at a line start, 1 after a sentence end,
    0 after other text, -1 glued to a Latin word (`答案：C2.` with no explanation)."""
    i = pos - 1
    while i >= start and text[i] in " \t\u3000":
        i -= 1
    if i < start or text[i] == "\n":
        return 2
    if text[i] in _SENTENCE_END:
        return 1
    if text[i].isascii() and (text[i].isalpha() or text[i] == "_"):
        return -1
    return 0


# Item numbers per style: `1.` `1．` `1、` (dot), `1)` `1）` (paren), `(1)` `（1）` (parens).
# A digit or a dot right before, or a digit right after, means a number inside the text
# (`119.`, `3.12.`, `19.5`), never an item marker.
_NUMBER_RES = {
    "dot": re.compile(r"(?<![0-9.．])(\d+)[ \t\u3000]*[.．、](?![0-9])"),
    "paren": re.compile(r"(?<![0-9.．(（])(\d+)[ \t\u3000]*[)）](?![0-9])"),
    "parens": re.compile(r"[(（][ \t\u3000]*(\d+)[ \t\u3000]*[)）](?![0-9])"),
}
_FIRST_RES = {
    style: re.compile(r"^[ \t\u3000]*" + pattern, re.MULTILINE)
    for style, pattern in (("dot", r"1[ \t\u3000]*[.．、]"), ("paren", r"1[ \t\u3000]*[)）]"),
                           ("parens", r"[(（][ \t\u3000]*1[ \t\u3000]*[)）]"))
}


def number_style(text: str, end: int | None = None) -> str:
    """How items are numbered: the style of the first `1` marker at a line start."""
    found = [(m.start(), style) for style, regex in _FIRST_RES.items()
             if (m := regex.search(text, 0, len(text) if end is None else end))]
    return min(found)[1] if found else "dot"


class MarkerIndex:
    """Every item-number marker of a text, by number, found in one pass (a regex per number
    and window made large papers quadratic)."""

    def __init__(self, text: str, style: str = "dot") -> None:
        self.text = text
        self.by_number: dict[int, list[tuple[int, int]]] = {}
        for m in _NUMBER_RES[style].finditer(text):
            if len(m.group(1)) <= 6:
                self.by_number.setdefault(int(m.group(1)), []).append((m.start(), m.end()))

    def markers(self, start: int, end: int, number: int) -> list[tuple[int, int, int]]:
        """(start, body start, level) of each plausible marker for item `number` in
        [start, end)."""
        found = self.by_number.get(number, ())
        lo = bisect.bisect_left(found, (start, -1))
        out = []
        for mstart, mend in found[lo:]:
            if mend > end:
                break
            out.append((mstart, mend, _level(self.text, start, mstart)))
        return out


def _pick(markers: list[tuple[int, int, int]], *, last: bool = False):
    """The most plausible marker; among equals the first, or the last if `last`."""
    best = None
    for marker in markers:
        if best is None or marker[2] > best[2] or (last and marker[2] == best[2]):
            best = marker
    return best


class PaperReader:
    """Pasted paper, Chinese conventions; see the module docstring."""

    name = "paper"

    def read(self, doc: CleanText, report: Report) -> PaperDraft:
        text = doc.text
        key = find_answer_key(doc)
        items_end = key.start if key else len(text)
        preamble_end, sections = _sections(doc, items_end)
        index = MarkerIndex(text, number_style(text, items_end))
        answers = [m.start() for m in ANSWER_RE.finditer(text, 0, items_end)]
        drafts: list[Draft] = []
        infos: list[SectionInfo] = []
        last = 0  # number of the last item found, across sections
        counted: list[tuple[_Section, list[Draft]]] = []
        for section in sections:
            first = self._first_marker(index, section, last, answers)
            lead_end = first[0] if first else section.end
            if section.title:
                self._unplaced(doc, section.start, lead_end, report)
            else:  # no headers at all: what precedes the first item is the preamble
                preamble_end = lead_end
            found = self._items(doc, index, section, first, last, answers, report)
            drafts.extend(found)
            if found:
                last = found[-1].number
            counted.append((section, found))
            if section.title:
                infos.append(SectionInfo(section.title, section.type, section.points,
                                         section.declared, len(found), section.where))
        title = self._preamble(doc, 0, preamble_end, report)
        numbers = {d.number for d in drafts}
        for section, found in counted:
            self._check_count(section, found, numbers, report)
        if drafts and (key is None or not key.has_answers):
            self._check_end(doc, drafts[-1], report)
        if key:
            parts = [PaperSection(bool(section.title), section.type, numeral_value(section.title),
                                  tuple(d.number for d in found)) for section, found in counted]
            key.apply(drafts, parts, doc, report)
        return PaperDraft(drafts, title=title, sections=infos)

    def _first_marker(self, index, section, last, answers):
        limit = next((a for a in answers if a >= section.start), section.end)
        limit = min(limit, section.end)
        # The section goes on from the last item or starts again at 1, whichever comes first
        # (a restarting section's `2.` must not be taken for the item after the last one).
        found = [(*marker, number) for number in dict.fromkeys((last + 1, 1))
                 if (marker := _pick(index.markers(section.start, limit, number)))]
        if found:
            return min(found, key=lambda m: m[0])
        for number in (last + 2, last + 3):
            marker = _pick(index.markers(section.start, limit, number))
            if marker:
                return (*marker, number)
        return None

    def _items(self, doc, index, section, first, last, answers, report) -> list[Draft]:
        drafts: list[Draft] = []
        if first is None:
            return drafts
        offset = 0
        mstart, body, _, number = first
        if number == 1 and last > 0:
            offset = last
            report.warn("renumbered", "import.paper.renumbered", doc.where(mstart), first=last + 1)
        elif number != last + 1:
            self._missing(doc, range(last + 1, number), mstart, report)
        while True:
            nxt = self._next_marker(index, body, section.end, number, answers)
            end = nxt[0] if nxt else section.end
            drafts.append(self._draft(doc, number + offset, mstart, body, end, section, report))
            if len(drafts) % 500 == 0:
                report.tick("reading", body, len(doc.text))
            if nxt is None:
                return drafts
            if nxt[3] != number + 1:
                self._missing(doc, range(number + 1 + offset, nxt[3] + offset), nxt[0], report)
            mstart, body, _, number = nxt

    def _next_marker(self, index, body, end, number, answers):
        """The next item's marker: looked for after this item's answer marker and before the
        following one first, since every item's number precedes its own answer."""
        # Answers in [body, end) are answers[lo:hi]; never sliced out, which made long
        # sections quadratic.
        lo, hi = bisect.bisect_left(answers, body), bisect.bisect_left(answers, end)
        tight = []
        if lo < hi:
            answer_end = ANSWER_RE.match(index.text, answers[lo]).end()
            tight.append((answer_end, answers[lo + 1] if lo + 1 < hi else end))
            tight.append((body, answers[lo]))  # this item has no answer of its own
        for windows, last in ((tight, True), ([(body, end)], False)):
            for candidate in (number + 1, number + 2, number + 3):
                for wstart, wend in windows:
                    # A number glued to running text (`详见第5.条`) starts an item only if an
                    # answer follows it; at a line start or after a sentence end it may be a
                    # question whose answer was lost.
                    markers = [
                        m for m in index.markers(wstart, wend, candidate)
                        if m[2] > 0 or bisect.bisect_left(answers, m[1], lo, hi) < hi
                    ]
                    # Between two answers, an equal candidate later on is the real one: an
                    # earlier one sits in this item's explanation (`1. … 2. … 3. …`).
                    marker = _pick(markers, last=last)
                    if marker:
                        return (*marker, candidate)
        return None

    def _draft(self, doc, number, mstart, body, end, section, report) -> Draft:
        fields = split_item(doc.text, body, end)
        where = doc.where(mstart)
        answer = fields.answer
        explanation = fields.explanation
        if answer and "\n" in answer and not explanation:
            # `答案：C` on its line, explanation on the next lines without a marker.
            head, rest = answer.split("\n", 1)
            if re.fullmatch(r"[A-Ha-h,，、;；\s]+|正确|错误|对|错|[√×✓✗]", head.strip()):
                answer, explanation = head.strip(), keep_lines(rest)
        for offset in fields.extra_answers:
            report.warn("unplaced", "import.paper.second_answer", doc.where(offset), number)
        answer_text = None
        if answer is not None:
            answer_text = keep_lines(answer) if "\n" in answer else answer
        last_field = "explanation" if explanation else "answer"
        tail = (explanation or answer_text or "").rstrip()
        if tail and tail[-1] in _TRUNCATED_END and last_field in fields.spans:
            span = fields.spans[last_field]
            stop = len(doc.text[span[0]:span[1]].rstrip()) - 1
            report.warn("truncated", "import.paper.mid_sentence", doc.where(span[0] + stop), number,
                        field=field_term(last_field), tail=tail[-20:])
        return Draft(
            number=number, stem=fields.stem, where=where, options=tuple(fields.options),
            answer=answer_text, explanation=explanation, type_hint=section.type,
            whole_stem=fields.whole,
            points=section.points if section.points is not None else 1.0, spans=fields.spans,
            points_given=section.points is not None,
        )

    def _preamble(self, doc: CleanText, start: int, end: int, report: Report) -> str:
        """The paper's title line; any further preamble text is reported."""
        lines = doc.text[start:end].split("\n")
        title = ""
        pos = start
        for line in lines:
            stripped = line.strip()
            if stripped and not title:
                title = stripped
            elif stripped:
                report.warn("unplaced", "import.paper.before_first", doc.where(pos + line.index(stripped[0])),
                            text=_excerpt(stripped))
            pos += len(line) + 1
        return title

    def _unplaced(self, doc, start, end, report) -> None:
        chunk = doc.text[start:end]
        if chunk.strip():
            skip = len(chunk) - len(chunk.lstrip())
            report.warn("unplaced", "import.paper.before_first", doc.where(start + skip),
                        text=_excerpt(join_lines(chunk)))

    def _missing(self, doc, numbers: range, at: int, report: Report) -> None:
        if numbers:
            listed = ", ".join(str(n) for n in numbers)
            report.warn("missing-item", "import.paper.missing", doc.where(at), numbers=listed)

    def _check_count(self, section, found: list[Draft], numbers: set[int], report) -> None:
        if section.declared is None or section.declared == len(found):
            return
        key, missing_text = "import.paper.section_count", ""
        if found and len(found) < section.declared:
            # Numbers the section should hold that no section has: the items really missing.
            first = found[0].number
            missing = [n for n in range(first, first + section.declared) if n not in numbers]
            if missing:
                key, missing_text = "import.paper.section_count_missing", ", ".join(str(n) for n in missing)
        report.warn("section-count", key, section.where, title=section.title, declared=section.declared,
                    found=len(found), **({"missing": missing_text} if missing_text else {}))

    def _check_end(self, doc: CleanText, draft: Draft, report: Report) -> None:
        """The paper's last item: cut off if it has no answer or stops mid-sentence."""
        last_field = "explanation" if draft.explanation else "answer"
        span = draft.spans.get(last_field)
        if draft.answer is None or span is None:
            report.warn("truncated", "import.paper.ends_inside", draft.where, draft.number)
            return
        tail = doc.text[span[0]:span[1]].rstrip()
        long_text = draft.explanation or draft.type_hint is QuestionType.SHORT
        if tail and long_text and tail[-1] not in _FINISHED_END + _TRUNCATED_END:
            report.warn("truncated", "import.paper.cut_off", doc.where(span[0] + len(tail) - 1),
                        draft.number, field=field_term(last_field), tail=tail[-20:])


def _excerpt(text: str, width: int = 40) -> str:
    text = text.replace("\n", " ")
    return repr(text if len(text) <= width else text[:width] + "…")
