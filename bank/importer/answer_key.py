"""Answer keys at the end of a paper: a `参考答案` / `答案` / `Answer key` section after the
items, with answers as `1.B 2.C`, runs `1-5 BCCBB`, or one numbered line per fill-in or short
answer, optionally followed by a `答案解析` / `解析` section of numbered explanations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.question_types import TYPES

from .base import Draft
from .clean import CleanText
from .fields import ANSWER_RE, join_lines, keep_lines
from .report import Report

__all__ = ["AnswerKey", "find_answer_key"]

_NUMERAL = "一二三四五六七八九十"
_LEAD = rf"^[ \t\u3000]*(?:第?[{_NUMERAL}]+(?:部分)?[、.．]?[ \t\u3000]*)?"
_KEY_HEAD_RE = re.compile(
    _LEAD + r"(?:【[ \t\u3000]*)?(?P<word>参考答案(?:及解析|与解析)?|标准答案|答案(?:及解析|与解析)?"
    r"|Answer[ \t]+[Kk]ey|ANSWER[ \t]+KEY|Answers|ANSWERS)(?:[ \t\u3000]*】)?"
    r"[ \t\u3000]*(?:[:：][ \t\u3000]*)?(?P<rest>[^\n]*)$",
    re.MULTILINE,
)
_EXPL_HEAD_RE = re.compile(
    _LEAD + r"(?:【[ \t\u3000]*)?(?:答案解析|试题解析|解析|Explanations?|EXPLANATIONS?)"
    r"(?:[ \t\u3000]*】)?[ \t\u3000]*[:：]?[ \t\u3000]*$",
    re.MULTILINE,
)
# An answer in a compact key, as each question type writes it there (its key_pattern).
_CHOICE = "|".join(dict.fromkeys(rules.key_pattern for rules in TYPES.values() if rules.key_pattern))
_RUN_RE = re.compile(
    r"(?<!\d)(\d+)[ \t\u3000]*[-~～—–][ \t\u3000]*(\d+)[ \t\u3000]*[.．、:：]?[ \t\u3000]*"
    r"((?:[A-Ha-h√×✓✗](?:[ \t\u3000,，、]*[A-Ha-h√×✓✗])*))"
)
_TOKEN_RE = re.compile(
    rf"(?<!\d)(\d+)[ \t\u3000]*[.．、:：)）\-]?[ \t\u3000]*({_CHOICE})(?=[\s,，;；]|$)"
)
_NUMBERED_RE = re.compile(r"^[ \t\u3000]*[(（]?(\d+)[ \t\u3000]*[.．、)）:：][ \t\u3000]*", re.MULTILINE)
_SEPARATORS = re.compile(r"[\s,，;；、]*")
_SECTION_HEAD_RE = re.compile(
    rf"^[ \t\u3000]*(?:第?[{_NUMERAL}]+(?:部分)?[、.．]|[(（][{_NUMERAL}]+[)）]"
    r"|\S{0,8}题[ \t\u3000]*(?:答案)?[ \t\u3000]*[:：]?[ \t\u3000]*$)"
)
# Lines in a key that carry no answer but are expected there: a section title, a note.
_SECTION_LINE_RE = re.compile(rf"^[ \t\u3000]*(?:第?[{_NUMERAL}]+[、.．]|[(（]?[{_NUMERAL}]+[)）])|题")


@dataclass
class _Entry:
    number: int
    text: str
    start: int  # offset in the cleaned text
    end: int


@dataclass
class AnswerKey:
    """The key section found after the items: answers and explanations by item number."""

    start: int
    answers: list[_Entry] = field(default_factory=list)
    explanations: list[_Entry] = field(default_factory=list)

    def apply(self, drafts: list[Draft], doc: CleanText, report: Report) -> None:
        """Give each draft its answer (and explanation) from the key; what the key has for no
        item, and items the key skips, are reported."""
        by_number = {draft.number: draft for draft in drafts}
        for entry in _renumber(self.answers):
            draft = by_number.get(entry.number)
            if draft is None:
                report.warn("unplaced", "import.key.no_such_item", doc.where(entry.start),
                            answer=repr(entry.text), item=entry.number)
            elif draft.answer is None:
                draft.answer = entry.text
                draft.spans["answer"] = (entry.start, entry.end)
            elif draft.answer.strip() != entry.text:
                report.warn("unplaced", "import.key.disagrees", doc.where(entry.start), entry.number,
                            answer=repr(entry.text), own=repr(draft.answer.strip()))
        for entry in _renumber(self.explanations):
            draft = by_number.get(entry.number)
            if draft is None:
                report.warn("unplaced", "import.key.explanation_no_item", doc.where(entry.start),
                            item=entry.number, text=repr(entry.text[:30]))
            elif not draft.explanation:
                draft.explanation = entry.text
                draft.spans["explanation"] = (entry.start, entry.end)


def _renumber(entries: list[_Entry]) -> list[_Entry]:
    """Keys per section restart at 1 like the items (which the reader then numbers on): a
    number not above the previous one continues after the highest so far."""
    out, offset, last, highest = [], 0, 0, 0
    for entry in entries:
        if entry.number <= last - offset:
            offset = highest
        number = entry.number + offset
        highest, last = max(highest, number), number
        out.append(_Entry(number, entry.text, entry.start, entry.end))
    return out


def find_answer_key(doc: CleanText, report: Report) -> AnswerKey | None:
    """The answer key at the end of the paper, if it has one: the last key heading that comes
    after an item and is followed by numbered answers."""
    text = doc.text
    for head in reversed(list(_KEY_HEAD_RE.finditer(text))):
        rest = head.group("rest").strip()
        if rest and _choice_entries(rest, 0, doc, Report()) is None:
            continue  # `答案：C` or `答案：2.4`: an item's own answer
        if not _NUMBERED_RE.search(text, 0, head.start()) and not re.search(
                r"(?<!\d)1[ \t\u3000]*[.．、)）]", text[:head.start()]):
            continue
        own_answers = ANSWER_RE.search(text, 0, head.start()) is not None
        key = _read_key(doc, head.start("rest"), Report())
        if key.answers and (not own_answers or (not rest and len(key.answers) >= 2)):
            key = _read_key(doc, head.start("rest"), report)
            key.start = head.start()
            return key
    return None


def _read_key(doc: CleanText, start: int, report: Report) -> AnswerKey:
    text = doc.text
    key = AnswerKey(start)
    expl = _EXPL_HEAD_RE.search(text, start)
    answers_end = expl.start() if expl else len(text)
    key.answers = _answers(doc, start, answers_end, report)
    if expl:
        key.explanations = [
            _Entry(e.number, keep_lines(e.text), e.start, e.end)
            for e in _numbered_blocks(doc, expl.end(), len(text), report)
        ]
    return key


def _answers(doc: CleanText, start: int, end: int, report: Report) -> list[_Entry]:
    """Choice answers (`1.B 2.C`, `1-5 BCCBB`) line by line; a line that is not all choices is
    a numbered text answer, running on over unnumbered lines."""
    text = doc.text
    entries: list[_Entry] = []
    pos = start
    pending: _Entry | None = None
    for line in text[start:end].split("\n"):
        line_start, pos = pos, pos + len(line) + 1
        if not line.strip():
            continue
        choices = _choice_entries(line, line_start, doc, report)
        if choices is not None:
            pending = None
            entries.extend(choices)
            continue
        numbered = _NUMBERED_RE.match(line)
        if not numbered and _SECTION_HEAD_RE.match(line):
            pending = None  # `二、多选题`: a section of the key, not a continued answer
            continue
        if numbered:
            pending = _Entry(int(numbered.group(1)), line[numbered.end():].strip(),
                             line_start + numbered.end(), line_start + len(line))
            entries.append(pending)
        elif pending is not None:
            pending.text = join_lines(pending.text + "\n" + line)
            pending.end = line_start + len(line)
        elif not _SECTION_LINE_RE.search(line):
            skip = len(line) - len(line.lstrip())
            report.warn("unplaced", "import.key.text", doc.where(line_start + skip),
                        text=repr(line.strip()[:40]))
    return [e for e in entries if e.text]


def _choice_entries(line: str, line_start: int, doc: CleanText,
                    report: Report) -> list[_Entry] | None:
    """The entries of a line made only of choice answers and runs, else None."""
    found: list[tuple[int, _Entry]] = []
    covered = []
    for run in _RUN_RE.finditer(line):
        first, last = int(run.group(1)), int(run.group(2))
        letters = run.group(3)
        parts = [p for p in re.split(r"[ \t\u3000,，、]+", letters) if p]
        count = last - first + 1
        if count <= 0:
            continue
        if len(parts) != count:
            compact = "".join(parts)
            if len(compact) != count:
                report.warn("unplaced", "import.key.run_count", doc.where(line_start + run.start()),
                            run=repr(run.group(0).strip()), answers=len(compact), items=count)
                covered.append((run.start(), run.end()))
                continue
            parts = list(compact)
        at = line_start + run.start(3)
        for i, part in enumerate(parts):
            found.append((run.start(), _Entry(first + i, part.upper() if part.isalpha() else part,
                                              at, at + len(letters))))
        covered.append((run.start(), run.end()))
    for token in _TOKEN_RE.finditer(line):
        if any(a <= token.start() < b for a, b in covered):
            continue
        answer = token.group(2)
        answer = answer.upper() if re.fullmatch(r"[A-Ha-h]+", answer) else answer
        found.append((token.start(), _Entry(int(token.group(1)), answer,
                                            line_start + token.start(2), line_start + token.end(2))))
        covered.append((token.start(), token.end()))
    if not found:
        return None
    rest = list(line)
    for a, b in covered:
        rest[a:b] = [" "] * (b - a)
    if not _SEPARATORS.fullmatch("".join(rest)):
        return None
    return [entry for _, entry in sorted(found, key=lambda pair: pair[0])]


def _numbered_blocks(doc: CleanText, start: int, end: int, report: Report) -> list[_Entry]:
    text = doc.text
    marks = [m for m in _NUMBERED_RE.finditer(text, start, end)]
    if marks and text[start:marks[0].start()].strip():
        lead = text[start:marks[0].start()]
        at = doc.where(start + len(lead) - len(lead.lstrip()))
        report.warn("unplaced", "import.key.explanations_text", at,
                    text=repr(lead.strip()[:40]))
    out = []
    for i, m in enumerate(marks):
        stop = marks[i + 1].start() if i + 1 < len(marks) else end
        out.append(_Entry(int(m.group(1)), text[m.end():stop].strip(), m.end(), stop))
    return out
