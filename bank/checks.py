"""Validate one parsed bank text against the bank schema (bank/schema.py) and the per-question
rules of its type (bot/domain/question_types), collecting every error and warning as a BankProblem
with its file, line and question id."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema

from bank.answers import answer_problems, got_phrase
from bank.schema import SCHEMA_PATH, bank_schema
from bank.yaml_io import Located
from bot.domain.question_types import TYPES
from bot.domain.questions import QuestionType
from bot.domain.reading.option_letters import LETTERS

__all__ = ["SCHEMA_PATH", "BankChecker", "BankProblem"]
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


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(bank_schema())


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


class BankChecker:
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
        # jsonschema types these as possibly unset; a reported error always has them.
        value: Any = err.instance
        kind: Any = err.validator
        expected: Any = err.validator_value
        if kind == "additionalProperties" and isinstance(value, dict):
            schema: Any = err.schema
            known = list(schema.get("properties", {}))
            for key in (k for k in value if k not in known):
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.error((*path, key), f"unknown key '{key}'{hint}")
            return
        if kind == "required":
            for key in (k for k in expected if isinstance(value, dict) and k not in value):
                self.error(path, f"missing required key '{key}'")
            return
        if kind == "pattern" and "propertyNames" in err.absolute_schema_path and path == ("tag_names",):
            self.error((*path, value), f"tag {value!r} in tag_names must be a tag: a-z, 0-9 and '-'")
            return
        if kind == "pattern" and "propertyNames" in err.absolute_schema_path:
            self.error((*path, value), f"option letter {value!r} must be one of A–H")
            return
        if kind == "type" and not path:
            message = "a bank file must be a mapping with id, title, language, source, questions"
        elif (kind == "type" and value is None) or (kind == "pattern" and expected == r"\S"):
            message = f"{name} is empty"
        elif kind == "type" and expected == "string":
            message = f"{name} must be text, {got_phrase(value, quote=True)}"
        elif kind == "type":
            message = f"{name} must be {_TYPE_NAMES.get(expected, expected)}, {got_phrase(value)}"
        elif kind == "enum" and inside == ("type",):
            names = ", ".join(str(qtype) for qtype in TYPES)
            message = f"unknown question type {value!r} (use one of {names})"
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
        for key, owners in _KEY_OWNERS.items():
            if key in q and kind not in owners:
                items = " or ".join(str(owner) for owner in owners)
                self.error((*path, key), f"{key} is for {items} items, not {kind}")
        options = q.get("options")
        if not TYPES[kind].takes_options:
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
            for message in answer_problems(kind, q["answer"], letters):
                self.error((*path, "answer"), message)

    def check_tag_names(self) -> None:
        """`tag_names:` two tags with one display name (typing it could mean either: an error),
        or a name for a tag no item uses (a warning)."""
        names = self.data.get("tag_names") if isinstance(self.data, dict) else None
        if not isinstance(names, dict):
            return
        used = {tag for _, q, _ in self._questions() for tag in (q.get("tags") or ()) if isinstance(tag, str)}
        first: dict[str, str] = {}
        for slug, name in names.items():
            if not isinstance(slug, str) or not isinstance(name, str):
                continue
            folded = " ".join(name.split()).casefold()
            other = first.get(folded)
            if other is not None:
                message = f"tags {other!r} and {slug!r} have the same display name {name!r}"
                self.error(("tag_names", slug), message)
            elif folded in names and folded != slug:
                message = f"the display name of {slug!r} is another tag's slug {name!r}"
                self.error(("tag_names", slug), message)
            else:
                first[folded] = slug
            if slug not in used:
                self.warn(("tag_names", slug), f"tag_names names {slug!r}, which no question is tagged with")

    def check_warnings(self) -> None:
        self.check_tag_names()
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


_TYPES = {t.value for t in TYPES}
# The keys only some types take (fill's tolerance, short's key_points), and those types.
_KEY_OWNERS: dict[str, list[QuestionType]] = {}
for _qtype, _rules in TYPES.items():
    for _key in _rules.own_keys:
        _KEY_OWNERS.setdefault(_key, []).append(_qtype)


def _rule_key(err: jsonschema.ValidationError) -> str:
    """The question key that an allOf rule reported at the question's level is about."""
    expected: Any = err.validator_value
    if err.validator == "required":
        return str(expected[0])
    if err.validator == "not" and isinstance(err.validator_value, dict):
        return err.validator_value.get("required", [""])[0]
    return ""


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
