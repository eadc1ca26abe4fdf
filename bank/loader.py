"""Load and validate bank files (docs/bank-format.md) into `bot.model.Bank`, reporting every
problem with its file, line and question id; a bank with any error is refused as a whole.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema

from bank.yaml_io import Located, YamlSyntaxError, parse_located
from bot.model import Bank, Erratum, Question, QuestionType

__all__ = [
    "BankError",
    "BankProblem",
    "BankReport",
    "bank_files",
    "load_bank",
    "load_bank_report",
    "load_bank_text",
    "load_bank_text_report",
    "load_banks",
]

SCHEMA_PATH = Path(__file__).with_name("schema.json")
LETTERS = "ABCDEFGH"
_MULTI_SEPARATORS = re.compile(r"[\s,，、]+")
# A question mark that does not end a sentence: followed by a letter, digit, symbol or another
# question mark, rather than by the end, a space, closing punctuation or a （ ） blank.
_LOST_CHARACTER = re.compile(r"\ufffd|[?？](?![\s)）\]】」』\"”'’（(]|$)")


@dataclass(frozen=True, slots=True)
class BankProblem:
    file: str
    line: int | None  # 1-based; None when the problem has no place in the text
    question_id: str | None  # the item's id, "#n" for the n-th item without a usable id
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:" if self.line is not None else f"{self.file}:"
        item = f" [{self.question_id}]" if self.question_id else ""
        return f"{where}{item} {self.message}"


class BankError(Exception):
    """A bank (or set of banks) was refused; `problems` lists every error found."""

    def __init__(self, problems: list[BankProblem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class BankReport(NamedTuple):
    bank: Bank | None  # None if there were errors
    errors: list[BankProblem]
    warnings: list[BankProblem]


@cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return "a list" if isinstance(value, list) else "a mapping"


def _quote_hint(value: Any) -> str:
    if isinstance(value, bool | int | float):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return f'; quote it ("{text}") if it is meant as text'
    return ""


def _field_name(path: tuple, whole: str = "the bank") -> str:
    """('options', 'B') -> 'options.B'; ('errata', 0, 'why') -> 'errata#1.why'."""
    name = ""
    for part in path:
        name += f"#{part + 1}" if isinstance(part, int) else (f".{part}" if name else part)
    return name or whole


class _Checker:
    """Collects the problems of one bank text."""

    def __init__(self, located: Located, filename: str) -> None:
        self.doc = located
        self.data = located.value
        self.file = filename
        self.errors: list[BankProblem] = []
        self.warnings: list[BankProblem] = []
        self.reported: set[tuple[int, str]] = set()  # (question index, field) with an error

    def _qid(self, path: tuple) -> str | None:
        if len(path) < 2 or path[0] != "questions" or not isinstance(path[1], int):
            return None
        q = self.data["questions"][path[1]]
        qid = q.get("id") if isinstance(q, dict) else None
        return qid if isinstance(qid, str) and qid.strip() else f"#{path[1] + 1}"

    def error(self, path: tuple, message: str, line: int | None = None, *, key: bool = False):
        if line is None:
            line = self.doc.key_lines.get(path) if key else None
            line = line or self.doc.line_of(path)
        problem = BankProblem(self.file, line, self._qid(path), message)
        if problem not in self.errors:
            self.errors.append(problem)
        if len(path) >= 3 and path[0] == "questions":
            self.reported.add((path[1], path[2]))

    def warn(self, path: tuple, message: str) -> None:
        line = self.doc.line_of(path)
        self.warnings.append(BankProblem(self.file, line, self._qid(path), message))

    # ------------------------------------------------------------ schema

    def check_schema(self) -> None:
        # Type-dependent rules (the schema's allOf) have friendlier messages in check_question;
        # their schema errors are shown only if check_question said nothing about that field.
        deferred: list[tuple[tuple, str, jsonschema.ValidationError]] = []
        for err in _validator().iter_errors(self.data):
            path = tuple(err.absolute_path)
            if "allOf" in err.absolute_schema_path and len(path) >= 2:
                field = path[2] if len(path) >= 3 else _rule_field(err)
                deferred.append((path, field, err))
            else:
                self._schema_error(path, err)
        for question in self._questions():
            self.check_question(*question)
        for path, field, err in deferred:
            if (path[1], field) not in self.reported:
                self._schema_error(path, err)

    def _schema_error(self, path: tuple, err: jsonschema.ValidationError) -> None:
        in_question = path[:1] == ("questions",) and len(path) >= 2
        inside = path[2:] if in_question else path
        name = _field_name(inside, "the question" if in_question else "the bank")
        value, kind = err.instance, err.validator
        if kind == "additionalProperties" and isinstance(value, dict):
            known = list(err.schema.get("properties", {}))
            for key in value:
                if key not in known:
                    close = difflib.get_close_matches(key, known, n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    self.error((*path, key), f"unknown key '{key}'{hint}", key=True)
            return
        if kind == "required":
            for key in err.validator_value:
                if isinstance(value, dict) and key not in value:
                    self.error(path, f"missing required key '{key}'")
            return
        if kind == "type" and not path:
            message = "a bank file must be a mapping with id, title, language, source, questions"
        elif kind == "type" and value is None:
            message = f"{name} is empty"
        elif kind == "type" and err.validator_value == "string":
            message = f"{name} must be text, got {_describe(value)}{_quote_hint(value)}"
        elif kind == "type":
            message = f"{name} must be {_article(err.validator_value)}, got {_describe(value)}"
        elif kind == "enum" and inside == ("type",):
            message = f"unknown question type {value!r} (use single, multi, judge, fill or short)"
        elif kind == "pattern" and err.validator_value == r"\S":
            message = f"{name} is empty"
        elif kind == "pattern" and "propertyNames" in err.absolute_schema_path:
            self.error((*path, value), f"option letter {value!r} must be one of A–H", key=True)
            return
        elif kind == "pattern":
            message = f"{name} {value!r} does not match {err.validator_value}"
        elif kind in ("minimum", "exclusiveMinimum"):
            message = f"{name} must be positive, got {value}"
        elif kind == "minItems" and path == ("questions",):
            message = "the bank has no questions"
        elif kind in ("minItems", "minProperties"):
            message = f"{name} needs at least {err.validator_value} entries, got {len(value)}"
        elif kind == "uniqueItems":
            message = f"{name} has duplicate entries"
        else:
            message = f"{name}: {err.message}"
        self.error(path, message)

    # ------------------------------------------------------------ semantic rules

    def _questions(self) -> Iterable[tuple[tuple, dict, QuestionType | None]]:
        questions = self.data.get("questions") if isinstance(self.data, dict) else None
        if not isinstance(questions, list):
            return
        for i, q in enumerate(questions):
            if isinstance(q, dict):
                kind = q.get("type")
                kind = QuestionType(kind) if kind in set(QuestionType) else None
                yield ("questions", i), q, kind

    def check_bank(self) -> None:
        seen: dict[str, dict[Any, int]] = {"id": {}, "number": {}}
        for path, q, _ in self._questions():
            for key, label in (("id", "question id"), ("number", "question number")):
                value = q.get(key)
                if not isinstance(value, str | int) or isinstance(value, bool):
                    continue
                if value in seen[key]:
                    first = seen[key][value]
                    self.error((*path, key), f"duplicate {label} {value!r} (first on line {first})")
                else:
                    seen[key][value] = self.doc.line_of((*path, key)) or 0

    def check_question(self, path: tuple, q: dict, kind: QuestionType | None) -> None:
        points = q.get("points")
        if isinstance(points, float) and not math.isfinite(points):
            self.error((*path, "points"), f"points must be a finite number, got {points}")
        if q.get("completed_by_editor") is True and not q.get("errata"):
            self.error(
                (*path, "errata"),
                "completed_by_editor is true but there are no errata saying what was added",
                self.doc.line_of((*path, "completed_by_editor")),
            )
        if kind is None:
            return
        if "key_points" in q and kind is not QuestionType.SHORT:
            self.error((*path, "key_points"), f"key_points are for short items, not {kind}")
        options = q.get("options")
        if kind.has_options:
            if options is None:
                self.error((*path, "options"), f"{kind} items need options (A, B, ...)")
            elif isinstance(options, dict) and all(len(k) == 1 and k in LETTERS for k in options):
                expected = list(LETTERS[: len(options)])
                if list(options) != expected and len(options) <= len(LETTERS):
                    self.error(
                        (*path, "options"),
                        f"option letters must run {', '.join(expected)} in order, "
                        f"got {', '.join(options)}",
                    )
        elif "options" in q:
            self.error((*path, "options"), f"{kind} items take no options", key=True)
        if "answer" in q:
            letters = list(options) if isinstance(options, dict) else None
            for message in _answer_problems(kind, q["answer"], letters):
                self.error((*path, "answer"), message)

    def check_warnings(self) -> None:
        for path, q, _ in self._questions():
            options = q.get("options")
            if isinstance(options, dict):
                seen: dict[str, str] = {}
                for letter, text in options.items():
                    if isinstance(text, str) and text.strip():
                        norm = " ".join(text.split())
                        if norm in seen:
                            self.warn(
                                (*path, "options", letter),
                                f"options {seen[norm]} and {letter} have the same text {text!r}",
                            )
                        seen.setdefault(norm, letter)
            for sub, text in _texts(q):
                if isinstance(text, str) and _LOST_CHARACTER.search(text):
                    self.warn(
                        (*path, *sub),
                        f"{_field_name(sub)} may have lost characters "
                        f"(a '?' or '\ufffd' inside the text): {_excerpt(text)}",
                    )


def _rule_field(err: jsonschema.ValidationError) -> str:
    """The question key an allOf rule reported at the question level is about."""
    value = err.validator_value
    if err.validator == "required":
        return value[0]
    if err.validator == "not" and isinstance(value, dict):
        return value.get("required", [""])[0]
    return ""


def _article(expected: Any) -> str:
    names = {
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "array": "a list",
        "object": "a mapping",
        "string": "text",
    }
    if isinstance(expected, list):
        return " or ".join(names.get(e, e) for e in expected)
    return names.get(expected, expected)


def _answer_problems(kind: QuestionType, answer: Any, letters: list[str] | None) -> list[str]:
    among = f"the options {', '.join(letters)}" if letters else "the options"
    if answer is None:
        return [f"{kind} answer is empty"]
    if kind is QuestionType.JUDGE:
        return (
            []
            if isinstance(answer, bool)
            else [f"judge answer must be true or false, got {_describe(answer)}"]
        )
    if kind is QuestionType.SINGLE:
        if not isinstance(answer, str):
            return [
                f"single answer must be one option letter, got {_describe(answer)}"
                + _quote_hint(answer)
            ]
        if not re.fullmatch(r"[A-H]", answer):
            return [f"single answer must be one option letter A–H, got {answer!r}"]
        if letters is not None and answer not in letters:
            return [f"answer {answer} is not among {among}"]
        return []
    if kind is QuestionType.MULTI:
        picked = _multi_letters(answer)
        if picked is None:
            return [f"multi answer must be a list of option letters, got {_describe(answer)}"]
        bad = [x for x in picked if not re.fullmatch(r"[A-H]", x)]
        if bad:
            return [f"multi answer has {', '.join(map(repr, bad))}, which are not letters A–H"]
        problems = []
        repeated = sorted({x for x in picked if picked.count(x) > 1})
        if repeated:
            problems.append(f"multi answer repeats {', '.join(repeated)}")
        if len(set(picked)) < 2:
            problems.append(
                f"multi answer needs at least 2 letters, got {len(set(picked))} "
                f"({', '.join(picked) or 'none'}); use type single for one correct option"
            )
        missing = [x for x in dict.fromkeys(picked) if letters is not None and x not in letters]
        if missing:
            problems.append(f"answer {', '.join(missing)} not among {among}")
        return problems
    if kind is QuestionType.FILL:
        items = answer if isinstance(answer, list) else [answer]
        if not items:
            return ["fill answer needs at least one accepted alternative"]
        problems = []
        for n, item in enumerate(items, 1):
            which = f"fill answer item {n}" if isinstance(answer, list) else "fill answer"
            if not isinstance(item, str):
                problems.append(f"{which} must be text, got {_describe(item)}{_quote_hint(item)}")
            elif not item.strip():
                problems.append(f"{which} is empty")
        return problems
    if not isinstance(answer, str):
        return [
            f"short answer must be one reference text, got {_describe(answer)}"
            + _quote_hint(answer)
        ]
    return [] if answer.strip() else ["short answer is empty"]


def _multi_letters(answer: Any) -> list[Any] | None:
    if isinstance(answer, str):
        joined = _MULTI_SEPARATORS.sub("", answer)
        return list(joined) if re.fullmatch(r"[A-Z]*", joined) else [answer.strip()]
    return list(answer) if isinstance(answer, list) else None


def _texts(q: dict) -> Iterable[tuple[tuple, Any]]:
    for key in ("stem", "explanation"):
        yield (key,), q.get(key)
    if isinstance(q.get("options"), dict):
        for letter, text in q["options"].items():
            yield ("options", letter), text
    for key in ("answer", "key_points"):
        value = q.get(key)
        if isinstance(value, list):
            yield from (((key, i), item) for i, item in enumerate(value))
        else:
            yield (key,), value


def _excerpt(text: str) -> str:
    match = _LOST_CHARACTER.search(text)
    start = max(0, match.start() - 12) if match else 0
    snippet = text[start : start + 30].replace("\n", " ")
    return ("…" if start else "") + repr(snippet)


def _build(data: dict) -> Bank:
    questions = []
    for q in data["questions"]:
        kind = QuestionType(q["type"])
        answer = q["answer"]
        if kind is QuestionType.SINGLE or kind is QuestionType.SHORT:
            answer = (answer,)
        elif kind is QuestionType.MULTI:
            answer = tuple(sorted(_multi_letters(answer)))
        elif kind is QuestionType.JUDGE:
            answer = ("true",) if answer else ("false",)
        else:
            answer = tuple(answer) if isinstance(answer, list) else (answer,)
        questions.append(
            Question(
                id=q["id"],
                number=int(q["number"]),
                type=kind,
                stem=q["stem"],
                answer=answer,
                points=float(q.get("points", 1)),
                options=tuple((k, v) for k, v in q.get("options", {}).items()),
                explanation=q.get("explanation", ""),
                tags=tuple(q.get("tags", ())),
                key_points=tuple(q.get("key_points", ())),
                errata=tuple(Erratum(**e) for e in q.get("errata", ())),
            )
        )
    return Bank(
        id=data["id"],
        title=data["title"],
        language=data["language"],
        source=data["source"],
        questions=tuple(questions),
    )


def _by_line(problem: BankProblem) -> tuple[int, str]:
    return (problem.line or 0, problem.message)


def load_bank_text_report(text: str, filename: str = "<string>") -> BankReport:
    """Validate bank text; never raises for a bad bank. Errors and warnings sorted by line."""
    try:
        located = parse_located(text)
    except YamlSyntaxError as exc:
        return BankReport(None, [BankProblem(filename, exc.line, None, exc.message)], [])
    checker = _Checker(located, filename)
    for line, path, message in located.problems:
        checker.error(path, message, line)
    if located.value is None:
        checker.error((), "the file is empty", 1)
    else:
        checker.check_schema()
        checker.check_bank()
        checker.check_warnings()
    errors = sorted(checker.errors, key=_by_line)
    warnings = sorted(checker.warnings, key=_by_line)
    return BankReport(None if errors else _build(located.value), errors, warnings)


def load_bank_report(path: str | Path) -> BankReport:
    """Like load_bank_text_report for a file; unreadable files are an error, not an exception."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return BankReport(None, [BankProblem(str(path), None, None, f"cannot read: {exc}")], [])
    return load_bank_text_report(text, str(path))


def load_bank_text(text: str, filename: str = "<string>") -> Bank:
    """The bank in `text`; raises BankError listing every error."""
    report = load_bank_text_report(text, filename)
    if report.errors:
        raise BankError(report.errors)
    assert report.bank is not None
    return report.bank


def load_bank(path: str | Path) -> Bank:
    """The bank in the file at `path`; raises BankError listing every error."""
    report = load_bank_report(path)
    if report.errors:
        raise BankError(report.errors)
    assert report.bank is not None
    return report.bank


def bank_files(dir_or_paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Bank files named by a directory (its *.yaml, not recursive) or a list of paths/dirs."""
    items = [dir_or_paths] if isinstance(dir_or_paths, str | Path) else list(dir_or_paths)
    files: list[Path] = []
    for item in map(Path, items):
        files.extend(sorted(item.glob("*.yaml")) if item.is_dir() else [item])
    return files


def load_banks(dir_or_paths: str | Path | Iterable[str | Path]) -> list[Bank]:
    """Every bank named (see bank_files); raises BankError listing the errors of all files,
    including two files with the same bank id."""
    banks: list[Bank] = []
    problems: list[BankProblem] = []
    first_file: dict[str, str] = {}
    for path in bank_files(dir_or_paths):
        report = load_bank_report(path)
        problems.extend(report.errors)
        if report.bank is None:
            continue
        if report.bank.id in first_file:
            message = f"bank id {report.bank.id!r} is also used by {first_file[report.bank.id]}"
            problems.append(BankProblem(str(path), None, None, message))
        first_file.setdefault(report.bank.id, str(path))
        banks.append(report.bank)
    if problems:
        raise BankError(problems)
    return banks
