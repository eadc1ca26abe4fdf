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


def _got(value: Any, quote: bool = False) -> str:
    """'got the boolean true', plus a hint to quote it where text was expected."""
    if value is None:
        return "got nothing (an empty value)"
    if isinstance(value, str):
        return f"got the string {value!r}"
    if not isinstance(value, bool | int | float):
        return "got a list" if isinstance(value, list) else "got a mapping"
    text = str(value).lower() if isinstance(value, bool) else str(value)
    kind = "boolean" if isinstance(value, bool) else "number"
    hint = f'; quote it ("{text}") if it is meant as text' if quote else ""
    return f"got the {kind} {text}{hint}"


def _field_name(path: tuple, whole: str = "the bank") -> str:
    """('options', 'B') -> 'options.B'; ('errata', 0, 'why') -> 'errata#1.why'."""
    name = ""
    for part in path:
        name += f"#{part + 1}" if isinstance(part, int) else (f".{part}" if name else part)
    return name or whole


_TYPE_NAMES = {
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping (key: value lines)",
}


class _Checker:
    """Collects the problems of one parsed bank text."""

    def __init__(self, located: Located, filename: str) -> None:
        self.doc = located
        self.data = located.value
        self.file = filename
        self.errors: list[BankProblem] = []
        self.warnings: list[BankProblem] = []
        self.reported: set[tuple[int, str]] = set()  # (question index, key) with an error

    def _qid(self, path: tuple) -> str | None:
        if len(path) < 2 or path[0] != "questions" or not isinstance(path[1], int):
            return None
        q = self.data["questions"][path[1]]
        qid = q.get("id") if isinstance(q, dict) else None
        return qid if isinstance(qid, str) and qid.strip() else f"#{path[1] + 1}"

    def error(self, path: tuple, message: str, line: int | None = None) -> None:
        """Record an error at `path`: on `line`, else the line of its key, else of its value
        (or of its nearest ancestor: a missing key is reported on its mapping's first line)."""
        line = line or self.doc.key_lines.get(path) or self.doc.line_of(path)
        problem = BankProblem(self.file, line, self._qid(path), message)
        if problem not in self.errors:
            self.errors.append(problem)
        if len(path) >= 3 and path[0] == "questions":
            self.reported.add((path[1], path[2]))

    def warn(self, path: tuple, message: str) -> None:
        self.warnings.append(BankProblem(self.file, self.doc.line_of(path), self._qid(path), message))

    def check_schema(self) -> None:
        # Type-dependent rules (the schema's allOf) get friendlier messages from check_question;
        # their schema errors are shown only when check_question said nothing about that key.
        deferred = []
        for err in _validator().iter_errors(self.data):
            path = tuple(err.absolute_path)
            if "allOf" in err.absolute_schema_path and len(path) >= 2:
                deferred.append((path, path[2] if len(path) >= 3 else _rule_key(err), err))
            else:
                self._schema_error(path, err)
        for path, q, kind in self._questions():
            self.check_question(path, q, kind)
        for path, key, err in deferred:
            if (path[1], key) not in self.reported:
                self._schema_error(path, err)

    def _schema_error(self, path: tuple, err: jsonschema.ValidationError) -> None:
        in_question = path[:1] == ("questions",) and len(path) >= 2
        inside = path[2:] if in_question else path
        name = _field_name(inside, "the question" if in_question else "the bank")
        value, kind, expected = err.instance, err.validator, err.validator_value
        if kind == "additionalProperties" and isinstance(value, dict):
            known = list(err.schema.get("properties", {}))
            for key in (k for k in value if k not in known):
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.error((*path, key), f"unknown key '{key}'{hint}")
            return
        if kind == "required":
            for key in (k for k in expected if isinstance(value, dict) and k not in value):
                self.error(path, f"missing required key '{key}'")
            return
        if kind == "pattern" and "propertyNames" in err.absolute_schema_path:
            self.error((*path, value), f"option letter {value!r} must be one of A–H")
            return
        if kind == "type" and not path:
            message = "a bank file must be a mapping with id, title, language, source, questions"
        elif (kind == "type" and value is None) or (kind == "pattern" and expected == r"\S"):
            message = f"{name} is empty"
        elif kind == "type" and expected == "string":
            message = f"{name} must be text, {_got(value, quote=True)}"
        elif kind == "type":
            message = f"{name} must be {_TYPE_NAMES.get(expected, expected)}, {_got(value)}"
        elif kind == "enum" and inside == ("type",):
            message = f"unknown question type {value!r} (use single, multi, judge, fill or short)"
        elif kind == "pattern":
            message = f"{name} {value!r} does not match {expected}"
        elif kind in ("minimum", "exclusiveMinimum"):
            message = f"{name} must be positive, got {value}"
        elif kind == "minItems" and path == ("questions",):
            message = "the bank has no questions"
        elif kind in ("minItems", "minProperties"):
            message = f"{name} needs at least {expected} entries, got {len(value)}"
        elif kind == "uniqueItems":
            message = f"{name} has duplicate entries"
        else:
            message = f"{name}: {err.message}"
        self.error(path, message)

    def _questions(self) -> Iterable[tuple[tuple, dict, QuestionType | None]]:
        questions = self.data.get("questions") if isinstance(self.data, dict) else None
        for i, q in enumerate(questions if isinstance(questions, list) else ()):
            if isinstance(q, dict):
                kind = q.get("type")
                yield (
                    ("questions", i),
                    q,
                    QuestionType(kind) if isinstance(kind, str) and kind in _TYPES else None,
                )

    def check_unique(self) -> None:
        first_line: dict[tuple[str, Any], int | None] = {}
        for path, q, _ in self._questions():
            for key in ("id", "number"):
                value = q.get(key)
                if isinstance(value, bool) or not isinstance(value, str | int):
                    continue
                if (key, value) in first_line:
                    where = f"first on line {first_line[key, value]}"
                    self.error((*path, key), f"duplicate question {key} {value!r} ({where})")
                else:
                    first_line[key, value] = self.doc.line_of((*path, key))

    def check_question(self, path: tuple, q: dict, kind: QuestionType | None) -> None:
        points = q.get("points")
        if isinstance(points, float) and not math.isfinite(points):
            self.error((*path, "points"), f"points must be a finite number, got {points}")
        if q.get("completed_by_editor") is True and not q.get("errata"):
            message = "completed_by_editor is true but there are no errata saying what was added"
            self.error((*path, "errata"), message, self.doc.line_of((*path, "completed_by_editor")))
        if kind is None:
            return
        if "key_points" in q and kind is not QuestionType.SHORT:
            self.error((*path, "key_points"), f"key_points are for short items, not {kind}")
        options = q.get("options")
        if not kind.has_options:
            if "options" in q:
                self.error((*path, "options"), f"{kind} items take no options")
        elif options is None:
            self.error((*path, "options"), f"{kind} items need options (A, B, ...)")
        elif isinstance(options, dict) and all(len(k) == 1 and k in LETTERS for k in options):
            expected = list(LETTERS[: len(options)])
            if list(options) != expected:
                got, want = ", ".join(options), ", ".join(expected)
                self.error((*path, "options"), f"option letters must run {want} in order, got {got}")
        if "answer" in q:
            letters = list(options) if isinstance(options, dict) else None
            for message in _answer_problems(kind, q["answer"], letters):
                self.error((*path, "answer"), message)

    def check_warnings(self) -> None:
        for path, q, _ in self._questions():
            options = q.get("options")
            seen: dict[str, str] = {}
            for letter, text in options.items() if isinstance(options, dict) else ():
                norm = " ".join(text.split()) if isinstance(text, str) else ""
                if norm in seen:
                    message = f"options {seen[norm]} and {letter} have the same text {text!r}"
                    self.warn((*path, "options", letter), message)
                elif norm:
                    seen[norm] = letter
            for sub, text in _texts(q):
                if isinstance(text, str) and (match := _LOST_CHARACTER.search(text)):
                    start = max(0, match.start() - 12)
                    excerpt = ("…" if start else "") + repr(text[start : start + 30])
                    message = f"{_field_name(sub)} may have lost characters ('?' or '\ufffd'): "
                    self.warn((*path, *sub), message + excerpt)


_TYPES = {t.value for t in QuestionType}


def _rule_key(err: jsonschema.ValidationError) -> str:
    """The question key that an allOf rule reported at the question's level is about."""
    if err.validator == "required":
        return err.validator_value[0]
    if err.validator == "not" and isinstance(err.validator_value, dict):
        return err.validator_value.get("required", [""])[0]
    return ""


def _is_letter(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 1 and value in LETTERS


def _answer_problems(kind: QuestionType, answer: Any, letters: list[str] | None) -> list[str]:
    """What is wrong with `answer` for an item of type `kind` whose option letters are given."""
    if answer is None:
        return [f"{kind} answer is empty"]
    among = f"the options {', '.join(letters)}" if letters else "the options"
    if kind is QuestionType.JUDGE:
        ok = isinstance(answer, bool)
        return [] if ok else [f"judge answer must be true or false, {_got(answer)}"]
    if kind is QuestionType.SINGLE:
        if not isinstance(answer, str):
            return [f"single answer must be one option letter, {_got(answer, quote=True)}"]
        if not _is_letter(answer):
            return [f"single answer must be one option letter A–H, got {answer!r}"]
        return [f"answer {answer} is not among {among}"] if letters and answer not in letters else []
    if kind is QuestionType.MULTI:
        picked = _multi_letters(answer)
        if picked is None:
            return [f"multi answer must be a list of option letters, {_got(answer)}"]
        if bad := [x for x in picked if not _is_letter(x)]:
            return [f"multi answer must be option letters A–H, got {', '.join(map(repr, bad))}"]
        problems, distinct = [], list(dict.fromkeys(picked))
        if repeated := [x for x in distinct if picked.count(x) > 1]:
            problems.append(f"multi answer repeats {', '.join(repeated)}")
        if len(distinct) < 2:
            problems.append(
                f"multi answer needs at least 2 different letters, got {len(distinct)} "
                f"({', '.join(distinct)}); use type single for one correct option"
            )
        if letters and (missing := [x for x in distinct if x not in letters]):
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
                problems.append(f"{which} must be text, {_got(item, quote=True)}")
            elif not item.strip():
                problems.append(f"{which} is empty")
        return problems
    if not isinstance(answer, str):
        return [f"short answer must be one reference text, {_got(answer, quote=True)}"]
    return [] if answer.strip() else ["short answer is empty"]


def _multi_letters(answer: Any) -> list[Any] | None:
    """A multi answer as a list: "ABD", "A,B,D", "A、B、D" and [A, B, D] all give [A, B, D]."""
    if isinstance(answer, str):
        joined = _MULTI_SEPARATORS.sub("", answer)
        return list(joined) if re.fullmatch(r"[A-Z]+", joined) else [answer]
    return list(answer) if isinstance(answer, list) else None


def _texts(q: dict) -> Iterable[tuple[tuple, Any]]:
    """(key path, text) of the parts of a question that are checked for lost characters."""
    for key in ("stem", "options", "answer", "explanation", "key_points"):
        value = q.get(key)
        if isinstance(value, dict):
            yield from (((key, k), v) for k, v in value.items())
        elif isinstance(value, list):
            yield from (((key, i), v) for i, v in enumerate(value))
        else:
            yield (key,), value


def _build(data: dict) -> Bank:
    """The Bank for data that passed every check."""
    questions = []
    for q in data["questions"]:
        kind, answer = QuestionType(q["type"]), q["answer"]
        if kind is QuestionType.MULTI:
            answer = tuple(sorted(_multi_letters(answer)))  # canonical: option order
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
                options=tuple(q.get("options", {}).items()),
                explanation=q.get("explanation", ""),
                tags=tuple(q.get("tags", ())),
                key_points=tuple(q.get("key_points", ())),
                errata=tuple(Erratum(**e) for e in q.get("errata", ())),
                completed_by_editor=q.get("completed_by_editor", False),
            )
        )
    head = {key: data[key] for key in ("id", "title", "language", "source")}
    return Bank(**head, questions=tuple(questions))


def _by_line(problem: BankProblem) -> tuple[int, str]:
    return (problem.line or 0, problem.message)


def load_bank_text_report(text: str, filename: str = "<string>") -> BankReport:
    """Validate bank text and build the Bank if there is no error; never raises for a bad bank.
    Errors and warnings come sorted by line."""
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
    return load_bank_text_report(text, str(path))


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


def load_banks(dir_or_paths: str | Path | Iterable[str | Path]) -> list[Bank]:
    """Every bank named (see bank_files); raises BankError listing the errors of all files,
    including two files with the same bank id."""
    banks: list[Bank] = []
    problems: list[BankProblem] = []
    first_file: dict[str, str] = {}
    for path in bank_files(dir_or_paths):
        bank, errors, _ = load_bank_report(path)
        problems.extend(errors)
        if bank is not None and bank.id in first_file:
            message = f"bank id {bank.id!r} is also used by {first_file[bank.id]}"
            problems.append(BankProblem(str(path), None, None, message))
        elif bank is not None:
            first_file[bank.id] = str(path)
            banks.append(bank)
    if problems:
        raise BankError(problems)
    return banks
