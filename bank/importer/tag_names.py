"""A bank's tag names (`tag_names:`, the display name of each tag) in the formats that have no
place for them: one `tag=name` a line (`distributed-training=分布式训练`) in a table's
`标签名称` / `tag names` column, in an Anki deck's description and, one comment line each, in
GIFT. `bank export` writes them (bank/exporters.py); every importer reads them back, so a
round trip keeps them. `:` and `：` are read as `=` too (a teacher types either).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .report import Report

__all__ = ["TagNames", "tag_names_text"]

_PAIR_RE = re.compile(r"([^=＝:：\s]+)\s*[=＝:：]\s*(\S.*?)\s*", re.S)  # GIFT escapes a line break
_TAG_RE = re.compile(r"[a-z0-9-]+")  # as the bank schema has it


def tag_names_text(pairs: Iterable[tuple[str, str]]) -> str:
    """`tag=name`, one a line, in the bank's order."""
    return "\n".join(f"{slug}={name}" for slug, name in pairs)


class TagNames:
    """The names read from a source, first one kept: a line that is not `tag=name` and a second,
    different name for a tag are reported, never dropped silently."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.names.items())

    def read(self, text: str, report: Report, where: str = "") -> None:
        """Every line of `text` (a table cell, a deck's record) as a `tag=name` pair."""
        for line in text.split("\n"):
            if line.strip():
                self.add_line(line.strip(), report, where)

    def add_line(self, line: str, report: Report, where: str = "") -> None:
        match = _PAIR_RE.fullmatch(line)
        slug = match.group(1).lower() if match else ""
        if match is None or not _TAG_RE.fullmatch(slug):
            report.warn("tags", "import.tag_names.bad", where, text=repr(line))
            return
        name = match.group(2)
        first = self.names.setdefault(slug, name)
        if first != name:
            report.warn("tags", "import.tag_names.twice", where, tag=repr(slug), first=first, second=name)
