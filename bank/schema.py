"""The bank schema: bank/schema.json (what every question type shares) with each question type's
rule from its module in bot/domain/question_types — its id among the type names (of an item and of a
paper's section), its answer form, options required or refused, and the keys only it takes
(fill's tolerance, short's key_points). The file names no type: a new type changes it not."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from bot.domain.question_types import TYPES

__all__ = ["SCHEMA_PATH", "bank_schema"]

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def _is(ids: list[str]) -> dict[str, Any]:
    """The `if` of a rule for items whose type is one of ids."""
    return {"type": "object", "required": ["type"], "properties": {"type": {"enum": ids}}}


@cache
def _built() -> str:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    question = schema["$defs"]["question"]
    ids = [str(qtype) for qtype in TYPES]
    question["properties"]["type"] = {"enum": ids}
    section = schema["$defs"]["paper"]["properties"]["sections"]["items"]
    section["properties"]["type"] = {"enum": ids}
    rules: list[dict[str, Any]] = []
    owners: dict[str, list[str]] = {}
    for qtype, rule in TYPES.items():
        then = copy.deepcopy(rule.schema)
        if rule.takes_options:
            then["required"] = [*then.get("required", []), "options"]
        else:
            then["not"] = {"required": ["options"]}
        rules.append({"if": _is([str(qtype)]), "then": then})
        for key, value in rule.own_keys.items():
            question["properties"][key] = value
            owners.setdefault(key, []).append(str(qtype))
    for key, ids in owners.items():
        others = [str(qtype) for qtype in TYPES if str(qtype) not in ids]
        rules.append({"if": _is(others), "then": {"not": {"required": [key]}}})
    question["allOf"] = rules + question.get("allOf", [])
    return json.dumps(schema)


def bank_schema() -> dict[str, Any]:
    """The whole bank schema (a fresh copy)."""
    result: dict[str, Any] = json.loads(_built())
    return result
