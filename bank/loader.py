"""Load and validate bank files (docs/bank-format.md) into `bot.domain.questions.Bank`, reporting every
problem with its file, line and question id; a bank with any error is refused as a whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from bank.checks import SCHEMA_PATH, BankChecker, BankProblem
from bank.fast_load import Doubt, fast_parse, surely_valid
from bank.images import attach_images
from bank.yaml_io import Located, YamlSyntaxError, parse_located
from bot.domain.key_points import key_point_entries
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Erratum, Paper, PaperSection, Question, QuestionType

__all__ = [
    "SCHEMA_PATH",
    "BankError",
    "BankProblem",
    "BankReport",
    "bank_files",
    "check_data",
    "load_bank",
    "load_bank_report",
    "load_bank_text",
    "load_bank_text_report",
    "with_images",
]


class BankError(Exception):
    """A bank (or set of banks) was refused; `problems` lists every error found."""

    def __init__(self, problems: list[BankProblem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class BankReport(NamedTuple):
    bank: Bank | None  # None if there were errors
    errors: list[BankProblem]
    warnings: list[BankProblem]


def _build(data: dict) -> Bank:
    """The Bank for data that passed every check."""
    questions = []
    for q in data["questions"]:
        kind = QuestionType(q["type"])
        answer = TYPES[kind].bank_answer(q["answer"])
        key_points, marks = key_point_entries(q.get("key_points"))
        questions.append(
            Question(
                id=q["id"],
                number=int(q["number"]),
                type=kind,
                stem=q["stem"],
                answer=answer,
                points=float(q.get("points", 1)),
                options=tuple(q.get("options", {}).items()),
                explanation=q.get("explanation", ""),
                tags=tuple(q.get("tags", ())),
                key_points=key_points,
                key_point_marks=marks,
                errata=tuple(Erratum(**e) for e in q.get("errata", ())),
                completed_by_editor=q.get("completed_by_editor", False),
                tolerance=float(q["tolerance"]) if "tolerance" in q else None,
                doubt=q.get("doubt", ""),
                images=tuple(q.get("images", ())),
            )
        )
    head = {key: data[key] for key in ("id", "title", "language", "source")}
    tag_names = tuple((str(slug), str(name)) for slug, name in (data.get("tag_names") or {}).items())
    return Bank(**head, questions=tuple(questions), paper=build_paper(data.get("paper")), tag_names=tag_names)


def build_paper(data: dict | None) -> Paper | None:
    """The declared paper (already checked by the schema), or None."""
    if data is None:
        return None
    sections = tuple(
        PaperSection(QuestionType(s["type"]), int(s["count"]), float(s["points"])) for s in data["sections"]
    )
    return Paper(sections, float(data["minutes"]), float(data["pass_mark"]))


def _by_line(problem: BankProblem) -> tuple[int, str]:
    return (problem.line or 0, problem.message)


def _fast_report(text: str, filename: str) -> BankReport | None:
    """The report of a bank with no problem at all, read on the fast path (bank/fast_load.py);
    None when the slow path must speak (a doubt, an error or a warning to place on a line)."""
    try:
        data = fast_parse(text)
    except Doubt:
        return None
    report = check_data(data, filename)
    return report if report.bank is not None and not report.warnings else None


def check_data(data: dict, filename: str = "<data>") -> BankReport:
    """Validate bank data already in memory (no lines to give): the schema, fast when it can
    be proven valid directly, then the per-question rules; the Bank if there is no error."""
    checker = BankChecker(Located(value=data), filename)
    if surely_valid(data):
        for path, q, kind in checker._questions():
            checker.check_question(path, q, kind)
    else:
        checker.check_schema()
    checker.check_unique()
    checker.check_warnings()
    return BankReport(None if checker.errors else _build(data), checker.errors, checker.warnings)


def load_bank_text_report(text: str, filename: str = "<string>") -> BankReport:
    """Validate bank text and build the Bank if there is no error; never raises for a bad bank.
    Errors and warnings come sorted by line."""
    fast = _fast_report(text, filename)
    if fast is not None:
        return fast
    try:
        located = parse_located(text)
    except YamlSyntaxError as exc:
        return BankReport(None, [BankProblem(filename, exc.line, None, exc.message)], [])
    checker = BankChecker(located, filename)
    for line, path, message in located.problems:
        checker.error(path, message, line)
    if located.value is None:
        checker.error((), "the file is empty", 1)
    else:
        checker.check_schema()
        checker.check_unique()
        checker.check_warnings()
    errors, warnings = sorted(checker.errors, key=_by_line), sorted(checker.warnings, key=_by_line)
    return BankReport(None if errors else _build(located.value), errors, warnings)


def load_bank_report(path: str | Path) -> BankReport:
    """load_bank_text_report for a file; an unreadable file is an error, not an exception."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return BankReport(None, [BankProblem(str(path), None, None, f"cannot read: {exc}")], [])
    return with_images(load_bank_text_report(text, str(path)), path)


def with_images(report: BankReport, path: str | Path) -> BankReport:
    """The report with the bank's pictures read from the folder beside `path` (bank/images.py);
    a picture that cannot be used is an error, and then there is no bank."""
    if report.bank is None or not any(q.images for q in report.bank.questions):
        return report
    bank, problems = attach_images(report.bank, path)
    return BankReport(bank, report.errors + problems, report.warnings)


def _bank_or_raise(report: BankReport) -> Bank:
    if report.bank is None:
        raise BankError(report.errors)
    return report.bank


def load_bank_text(text: str, filename: str = "<string>") -> Bank:
    """The bank in `text`; raises BankError listing every error."""
    return _bank_or_raise(load_bank_text_report(text, filename))


def load_bank(path: str | Path) -> Bank:
    """The bank in the file at `path`; raises BankError listing every error."""
    return _bank_or_raise(load_bank_report(path))


def bank_files(dir_or_paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """The files named: a directory stands for its *.yaml files (not recursive)."""
    items = [dir_or_paths] if isinstance(dir_or_paths, str | Path) else list(dir_or_paths)
    files: list[Path] = []
    for item in map(Path, items):
        files.extend(sorted(item.glob("*.yaml")) if item.is_dir() else [item])
    return files


