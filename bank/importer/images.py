"""Pictures a reader found in a paper but does not keep: banks hold text only, so each one is
a warning naming the item it belongs to (the item whose text comes before it) and its place,
never a silent loss."""

from __future__ import annotations

from collections.abc import Callable

from .base import PaperDraft
from .report import Report

__all__ = ["report_images"]


def _line(where: str) -> int:
    head = where.split(":", 1)[0]
    return int(head) if head.isdigit() else 0


def report_images(paper: PaperDraft, lines: list[int], report: Report, place: Callable[[int], str]) -> None:
    """One warning per picture; `lines` holds, for each, the 1-based line of the text it follows
    (0 before the first line); `place(line)` is how that line's place is written."""
    starts = sorted((_line(draft.where), draft.number) for draft in paper.drafts)
    for line in lines:
        number = None
        for start, item in starts:
            if start > max(line, 1):
                break
            number = item
        report.warn("image", "import.image_dropped", place(max(line, 1)), number)
