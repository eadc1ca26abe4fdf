"""Bot API spec checks for the fake Telegram server: decode PTB's form/multipart/JSON parameters
and validate them (recursively, object by object) against /work/shared/specs/telegram-bot-api.json."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

# shared/ lies beside the checkout (CI clones elsewhere and copies shared/ beside the clone).
_BESIDE = Path(__file__).resolve().parents[3] / "shared" / "specs" / "telegram-bot-api.json"
SPEC_PATH = Path(
    os.environ.get("STUDYBOT_TELEGRAM_SPEC")
    or (_BESIDE if _BESIDE.exists() else "/work/shared/specs/telegram-bot-api.json")
)

SCALARS = frozenset({"Integer", "String", "Boolean", "Float", "True", "InputFile"})
# Subtypes of a union are told apart by this field's literal ("must be chat", 'always "creator"').
_DISCRIMINATORS = ("type", "status", "source")
_LITERAL_RE = re.compile(r"(?:must be|always)\s+[\"“]?([a-z_]+)")


@dataclass(frozen=True)
class SpecIssue:
    """One way a request (or a response) departs from the spec."""

    path: str
    problem: str

    def describe(self) -> str:
        return f"{self.path}: {self.problem}" if self.path else self.problem


class TelegramSpec:
    """Case-insensitive method lookup plus value validation for the Bot API spec."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.version: str = data.get("version", "?")
        self.methods: dict[str, dict[str, Any]] = dict(data["methods"])
        self.types: dict[str, dict[str, Any]] = dict(data["types"])
        self._by_lower = {name.lower(): name for name in self.methods}
        self._literals: dict[str, tuple[str, str]] = {}
        for name, spec in self.types.items():
            fields = spec.get("fields") or []
            for field in fields:
                if field["name"] in _DISCRIMINATORS and field["types"] == ["String"]:
                    match = _LITERAL_RE.search(field.get("description", ""))
                    if match:
                        self._literals[name] = (field["name"], match.group(1))
                    break

    def canonical_method(self, name: str) -> str | None:
        return self._by_lower.get(name.lower())

    def method_fields(self, method: str) -> dict[str, dict[str, Any]]:
        return {f["name"]: f for f in self.methods[method].get("fields") or []}

    # -- request decoding -------------------------------------------------------------------

    def decode_params(
        self, method: str, raw: Mapping[str, Any], *, typed: bool
    ) -> tuple[dict[str, Any], list[SpecIssue]]:
        """Decode and check one request's parameters.

        ``typed`` is True for a JSON body (values already typed); otherwise every value is the
        form text PTB sent: strings as they are, everything else as JSON text.
        """
        fields = self.method_fields(method)
        params: dict[str, Any] = {}
        issues: list[SpecIssue] = []
        for name, value in raw.items():
            field = fields.get(name)
            if field is None:
                issues.append(SpecIssue("", f"unknown parameter {name}"))
                params[name] = value
                continue
            decoded, problems = self._decode_top(field["types"], value, name, typed=typed)
            params[name] = decoded
            issues.extend(problems)
        for name, field in fields.items():
            if field["required"] and name not in raw:
                issues.append(SpecIssue("", f"{name} is empty"))
        return params, issues

    def _decode_top(
        self, types: list[str], value: Any, path: str, *, typed: bool
    ) -> tuple[Any, list[SpecIssue]]:
        if typed:
            return value, self.check_value(types, value, path)
        if not isinstance(value, str):  # an uploaded file (multipart)
            if "InputFile" in types:
                return value, []
            return value, [SpecIssue(path, f"a file was uploaded but the type is {_alts(types)}")]
        first_problems: list[SpecIssue] | None = None
        for type_expr in sorted(types, key=lambda t: t == "String"):
            if type_expr in ("String", "InputFile"):
                return value, []
            try:
                candidate = json.loads(value)
            except ValueError:
                problems = [SpecIssue(path, f"expected {_alts(types)}, got text {value[:40]!r}")]
            else:
                problems = self.check_value([type_expr], candidate, path)
                if not problems:
                    return candidate, []
            if first_problems is None:
                first_problems = problems
        return value, first_problems or []

    # -- value validation -------------------------------------------------------------------

    def check_value(self, types: list[str], value: Any, path: str) -> list[SpecIssue]:
        """Issues of ``value`` against the alternatives ``types`` (empty list: it fits one)."""
        best: list[SpecIssue] | None = None
        for type_expr in types:
            problems = self._check_one(type_expr, value, path)
            if not problems:
                return []
            if best is None or _closeness(problems) < _closeness(best):
                best = problems
        return best or []

    def _check_one(self, type_expr: str, value: Any, path: str) -> list[SpecIssue]:
        if type_expr.startswith("Array of "):
            if not isinstance(value, list):
                return [SpecIssue(path, f"expected {type_expr}, got {_kind(value)}")]
            inner = type_expr.removeprefix("Array of ")
            issues: list[SpecIssue] = []
            for i, item in enumerate(value):
                issues.extend(self._check_one(inner, item, f"{path}[{i}]"))
            return issues
        if type_expr in SCALARS:
            return [] if _scalar_ok(type_expr, value) else [
                SpecIssue(path, f"expected {type_expr}, got {_kind(value)}")
            ]
        spec = self.types.get(type_expr)
        if spec is None:
            return [SpecIssue(path, f"the spec has no type {type_expr}")]
        if spec.get("subtypes"):
            return self._check_union(type_expr, spec["subtypes"], value, path)
        return self.check_object(type_expr, value, path)

    def _check_union(
        self, name: str, subtypes: list[str], value: Any, path: str
    ) -> list[SpecIssue]:
        if isinstance(value, dict):
            for sub in subtypes:
                key_literal = self._literals.get(sub)
                if key_literal and value.get(key_literal[0]) == key_literal[1]:
                    return self._check_one(sub, value, path)
            if any(sub in self._literals and self._literals[sub][0] in value for sub in subtypes):
                key = next(self._literals[s][0] for s in subtypes if s in self._literals)
                return [SpecIssue(f"{path}.{key}", f"no {name} has {key}={value.get(key)!r}")]
        return self.check_value(subtypes, value, path)

    def check_object(self, type_name: str, value: Any, path: str = "") -> list[SpecIssue]:
        """Field names, required fields and field types of one object of type ``type_name``."""
        if not isinstance(value, dict):
            return [SpecIssue(path, f"expected a {type_name} object, got {_kind(value)}")]
        fields = {f["name"]: f for f in self.types[type_name].get("fields") or []}
        if not fields:  # placeholder types such as CallbackGame take any object
            return []
        issues: list[SpecIssue] = []
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            field = fields.get(key)
            if field is None:
                issues.append(SpecIssue(where, f"unknown field {key} in {type_name}"))
            else:
                issues.extend(self.check_value(field["types"], item, where))
        for key, field in fields.items():
            if field["required"] and key not in value:
                where = f"{path}.{key}" if path else key
                issues.append(SpecIssue(where, f"{type_name} needs field {key}"))
        literal = self._literals.get(type_name)
        if literal and literal[0] in value and value[literal[0]] != literal[1]:
            issues.append(SpecIssue(f"{path}.{literal[0]}", f"must be {literal[1]!r}"))
        return issues


def _scalar_ok(type_name: str, value: Any) -> bool:
    if type_name == "Integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "Float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "Boolean":
        return isinstance(value, bool)
    if type_name == "True":
        return value is True
    return isinstance(value, str)


def _closeness(problems: list[SpecIssue]) -> tuple[int, int]:
    """Rank a failed alternative: the one with fewer unknown fields is what the caller meant."""
    unknown = sum("unknown field" in p.problem for p in problems)
    return unknown, len(problems)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "Boolean"
    return {int: "Integer", float: "Float", str: "String", list: "Array", dict: "object"}.get(
        type(value), type(value).__name__
    )


def _alts(types: list[str]) -> str:
    return " or ".join(types)


@cache
def load_spec(path: str | os.PathLike[str] = SPEC_PATH) -> TelegramSpec:
    with open(path, encoding="utf-8") as fh:
        return TelegramSpec(json.load(fh))
