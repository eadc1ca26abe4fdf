"""Key points (得分点) of a short answer as a paper lists them, for the importers.

Two layouts are read, in the answer or the explanation:
- a marker (得分点 / 采分点 / 评分要点 / 评分标准 / 要点 and a colon) followed by points
  numbered ①②③…, (1)(2)…, 1. 2. … or separated by ；: `得分点：①分块计算；②online softmax`;
- an answer that is itself numbered parts, `1. … 2. …` (at least two, numbered from 1 in
  order): each part is a point.

A point's share of the item's points is read from a note after it, `（2分）` or `(2 分)`, and
taken out of the point's text. The marker and what follows it are taken out of the reference
answer when something is left before them.
"""

from __future__ import annotations

import re

from bot.domain.questions import KeyPointMark

__all__ = ["listed_points"]

_MARKER = re.compile(r"(?:得分点|采分点|评分要点|评分标准|答题要点|要点)\s*[：:]")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_CIRCLED_RE = re.compile(f"[{_CIRCLED}]")
_PAREN_RE = re.compile(r"[（(]\s*(\d{1,2})\s*[)）]")
# `1.` `1、` `1．` `1)` not inside a number or a word (`2.5`, `O(n2)`); the parts must be
# numbered 1, 2, 3… in order from the start, which keeps a stray `3.` in the text out.
_NUMBERED_RE = re.compile(r"(?<![\d.A-Za-z])(\d{1,2})\s*[.．、)）](?!\d)")
_SHARE_RE = re.compile(r"[（(]\s*(\d+(?:\.\d+)?)\s*分\s*[)）]")
_TRIM = " \t\u3000\n；;，,。."


def _clean(part: str) -> tuple[str, float | None]:
    share = None
    found = _SHARE_RE.search(part)
    if found:
        share = float(found.group(1))
        part = part[: found.start()] + part[found.end() :]
    return part.strip(_TRIM), share


def _numbered(text: str, pattern: re.Pattern[str]) -> list[str] | None:
    """The parts of `text` numbered 1, 2, 3… in order by `pattern` (None: fewer than two)."""
    marks = list(pattern.finditer(text))
    if pattern is _CIRCLED_RE:
        numbers = [_CIRCLED.index(m.group()) + 1 for m in marks]
    else:
        numbers = [int(m.group(1)) for m in marks]
    if len(marks) < 2 or numbers != list(range(1, len(marks) + 1)) or text[: marks[0].start()].strip(_TRIM):
        return None
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [text[m.end() : end] for m, end in zip(marks, ends, strict=True)]


def _split(text: str) -> list[str]:
    for pattern in (_CIRCLED_RE, _PAREN_RE, _NUMBERED_RE):
        parts = _numbered(text, pattern)
        if parts is not None:
            return parts
    return [p for p in re.split(r"[；;\n]", text) if p.strip(_TRIM)]


def listed_points(answer: str, explanation: str) -> tuple[str, tuple[str, ...], tuple[KeyPointMark, ...]]:
    """(reference answer, key points, their marks) from a short item's answer and explanation;
    no points: the answer unchanged and empty tuples. Marks are given only when a share is."""
    reference, listed = answer, None
    for text in (answer, explanation):
        marker = _MARKER.search(text)
        if marker:
            listed = _split(text[marker.end() :])
            if text is answer and answer[: marker.start()].strip(_TRIM):
                reference = answer[: marker.start()].strip()
            break
    if listed is None:
        listed = _numbered(answer.strip(), _NUMBERED_RE) or _numbered(answer.strip(), _CIRCLED_RE)
    if not listed:
        return answer, (), ()
    cleaned = [_clean(part) for part in listed]
    cleaned = [(text, share) for text, share in cleaned if text]
    if len(cleaned) < 2:
        return answer, (), ()
    points = tuple(text for text, _ in cleaned)
    if all(share is None for _, share in cleaned):
        return reference, points, ()
    return reference, points, tuple(KeyPointMark((), share or 1.0) for _, share in cleaned)
