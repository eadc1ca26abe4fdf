"""What an import found besides questions: warnings with their position in the source, per-type
counts and the printable summary.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.domain.file_problems import FileProblem, Term
from bot.domain.questions import Bank, QuestionType
from bot.locales.i18n import t

__all__ = ["ImportResult", "ImportWarning", "Report", "SectionInfo", "Term", "field_term"]


# One thing the curator should look at: a catalog key with its parameters, `where` its place
# in the source (`line:col`, `cell C3`, ...), so every language reads it (bot/domain/file_problems.py).
ImportWarning = FileProblem


def field_term(name: str) -> Term:
    """A draft's field (`stem`, `answer`, `explanation`, `options.B`) as a catalog term."""
    if name.startswith("options."):
        return Term("import.field.option", (("letter", name.split(".", 1)[1]),))
    return Term(f"import.field.{name}")


def _params(params: dict[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(params.items())


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
    notes: list[ImportWarning] = field(default_factory=list)
    # progress(stage, done, total), for a progress bar; readers call tick() now and then
    progress: Callable[[str, int, int], None] | None = None

    def tick(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def warn(self, kind: str, key: str, where: str = "", number: int | None = None,
             **params: object) -> None:  # fmt: skip
        """Something to look at: `key` names the catalog sentence, `params` fill it."""
        self.warnings.append(ImportWarning(kind, key, _params(params), where, number))

    def fail(self, kind: str, key: str, where: str = "", number: int | None = None,
             **params: object) -> None:  # fmt: skip
        """A problem that refuses the file: nothing is written (an unclosed GIFT brace...)."""
        self.errors.append(ImportWarning(kind, key, _params(params), where, number))

    def note(self, key: str, **params: object) -> None:
        """Something done to the whole source (decoded as GB18030, characters converted)."""
        self.notes.append(ImportWarning("note", key, _params(params)))


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
    notes: tuple[ImportWarning, ...] = ()
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

    def summary(self, language: str = "en") -> str:
        """Readable summary in `language`: totals, per type, sections, then every warning."""
        counts = t(language, "import.summary.list_sep").join(
            t(language, "import.summary.per_type", count=n, type=t(language, f"import.type.{k.value}"))
            for k, n in self.counts.items() if n)  # the types found (as `bank check` says them)
        head = (
            t(language, "import.summary.head", count=len(self.bank.questions), counts=counts,
              points=f"{self.total_points:g}", id=repr(self.bank.id), title=repr(self.bank.title))
            if counts  # nothing imported: no empty brackets
            else t(language, "import.summary.head_none", id=repr(self.bank.id), title=repr(self.bank.title))
        )
        lines = [
            head,
            "  " + t(language, "import.summary.read_as", format=t(language, f"import.format.{self.format}"))
            + "".join(t(language, "import.summary.note", note=n.text(language)) for n in self.notes),
        ]
        if self.errors:
            lines.append(t(language, "import.summary.errors", count=len(self.errors)))
            lines.extend(f"  {e.line(language)}" for e in sorted(self.errors, key=_where_key))
        for s in self.sections:
            kind = t(language, f"import.type.{s.type.value}" if s.type else "import.summary.by_shape")
            declared = "?" if s.declared is None else str(s.declared)
            each = "" if s.points is None else t(language, "import.summary.each", points=f"{s.points:g}")
            lines.append("  " + t(language, "import.summary.section", title=s.title, kind=kind, each=each,
                                  found=s.found, declared=declared))
        ordered = sorted(self.warnings, key=_where_key)
        lines.append(t(language, "import.summary.warnings", count=len(ordered)) if ordered
                     else t(language, "import.summary.no_warnings"))
        lines.extend(f"  {w.line(language)}" for w in ordered)
        return "\n".join(lines)
