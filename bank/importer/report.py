"""What an import found besides questions: warnings with their position in the source, per-type
counts and the printable summary.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.model import Bank, QuestionType

__all__ = ["ImportResult", "ImportWarning", "Report", "SectionInfo"]


@dataclass(frozen=True, slots=True)
class ImportWarning:
    """One thing the curator should look at. `where` is `line:col` in the source text."""

    kind: str  # short code: lost-char, duplicate-option, truncated, missing-item, ...
    message: str
    where: str = ""
    number: int | None = None  # the item concerned, if any

    def __str__(self) -> str:
        parts = [self.where] if self.where else []
        if self.number is not None:
            parts.append(f"item {self.number}")
        head = " ".join(parts)
        return f"{head}: [{self.kind}] {self.message}" if head else f"[{self.kind}] {self.message}"


@dataclass(frozen=True, slots=True)
class SectionInfo:
    """A section header of the paper and how many items were found under it."""

    title: str
    type: QuestionType | None
    points: float | None
    declared: int | None
    found: int
    where: str


@dataclass
class Report:
    """Collects warnings while a paper is read, and errors that refuse the whole file."""

    warnings: list[ImportWarning] = field(default_factory=list)
    errors: list[ImportWarning] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # progress(stage, done, total), for a progress bar; readers call tick() now and then
    progress: Callable[[str, int, int], None] | None = None

    def tick(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def warn(self, kind: str, message: str, where: str = "", number: int | None = None) -> None:
        self.warnings.append(ImportWarning(kind, message, where, number))

    def fail(self, kind: str, message: str, where: str = "", number: int | None = None) -> None:
        """A problem that refuses the file: nothing is written (an unclosed GIFT brace...)."""
        self.errors.append(ImportWarning(kind, message, where, number))

    def note(self, message: str) -> None:
        """Something done to the whole source (decoded as GB18030, characters converted)."""
        self.notes.append(message)


def _where_key(warning: ImportWarning) -> tuple[int, int]:
    """Sort key: `line:col`, `row R` / `cell C3` (by row), else last."""
    numbers = [int(n) for n in re.findall(r"\d+", warning.where)]
    if ":" in warning.where and len(numbers) == 2:
        return numbers[0], numbers[1]
    return (numbers[-1], 0) if numbers else (1 << 30, 0)


@dataclass(frozen=True)
class ImportResult:
    """What an import gives back: the bank, what to review, and whether it may be written.

    `errors` refuse the file (nothing may be written); `notes` say what was done to the whole
    source; `format` is the reader used.
    """

    bank: Bank
    warnings: tuple[ImportWarning, ...] = ()
    sections: tuple[SectionInfo, ...] = ()
    errors: tuple[ImportWarning, ...] = ()
    notes: tuple[str, ...] = ()
    format: str = "paper"

    @property
    def ok(self) -> bool:
        """True if the bank may be written: items found and no error."""
        return bool(self.bank.questions) and not self.errors

    @property
    def counts(self) -> dict[QuestionType, int]:
        """Items per type, every type present (possibly 0), in QuestionType order."""
        found = Counter(q.type for q in self.bank.questions)
        return {t: found.get(t, 0) for t in QuestionType}

    @property
    def total_points(self) -> float:
        return sum(q.points for q in self.bank.questions)

    def summary(self) -> str:
        """Human-readable summary: totals, per type, sections, then every warning."""
        counts = ", ".join(f"{n} {t.value}" for t, n in self.counts.items())
        points = self.total_points
        points_text = f"{points:g}"
        lines = [
            f"{len(self.bank.questions)} items ({counts}), {points_text} points"
            f" -> bank {self.bank.id!r} {self.bank.title!r}",
            f"  read as {self.format}" + "".join(f"; {note}" for note in self.notes),
        ]
        if self.errors:
            lines.append(f"{len(self.errors)} error(s), the file is refused:")
            lines.extend(f"  {e}" for e in sorted(self.errors, key=_where_key))
        for s in self.sections:
            kind = s.type.value if s.type else "by shape"
            declared = "?" if s.declared is None else str(s.declared)
            each = "" if s.points is None else f", {s.points:g} pt each"
            lines.append(f"  section {s.title} [{kind}{each}]: {s.found}/{declared} items")
        ordered = sorted(self.warnings, key=_where_key)
        lines.append(f"{len(ordered)} warning(s)" + (":" if ordered else ""))
        lines.extend(f"  {w}" for w in ordered)
        return "\n".join(lines)
