"""The fast path for loading a bank: PyYAML's C parser with the bank rules (YAML 1.2 scalars,
keys as written), and a direct check of the bank schema's rules (bank/schema.py, each type's
answer rules from bot/domain/question_types) that can only say "valid".

Line numbers matter only when a bank has a problem, so a bank is first read this way; on any
doubt (an alias, a duplicate key, an odd tag, a rule this check does not prove) or any problem
found, the loader reads it again the slow way, which keeps lines for every message.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode

from bank.yaml_io import BankLoader
from bot.domain.question_types import TYPES
from bot.domain.questions import QuestionType

__all__ = ["Doubt", "fast_parse", "surely_valid"]


class Doubt(Exception):
    """The fast path cannot vouch for this text; use the slow one."""


class _FastLoader(yaml.CSafeLoader):
    yaml_implicit_resolvers = BankLoader.yaml_implicit_resolvers

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        # No merge keys (`<<`), keys as written (an option `1` is the text "1"), and a
        # duplicate key is a doubt (the slow path reports it with its line).
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.value in result:
                raise Doubt
            result[key_node.value] = self.construct_object(value_node, deep=True)
        return result


_FastLoader.add_constructor("tag:yaml.org,2002:map", _FastLoader.construct_mapping)
_FastLoader.add_constructor("tag:yaml.org,2002:int", BankLoader.construct_yaml_int)
_FastLoader.add_constructor("tag:yaml.org,2002:float", BankLoader.construct_yaml_float)
# An anchor or alias anywhere (or text that merely looks like one): the slow path refuses them.
_MAYBE_ALIAS = re.compile(r"(?:^|[\s,\[{:-])[&*][^\s,\[\]{}]")


def fast_parse(text: str) -> Any:
    """The data of a bank text, read with the C parser; raises Doubt whenever the slow path
    might read it differently or has a message to give."""
    if _MAYBE_ALIAS.search(text) or not hasattr(yaml, "CSafeLoader"):
        raise Doubt
    try:
        return yaml.load(text, Loader=_FastLoader)
    except Doubt:
        raise
    except Exception as exc:  # any parser complaint: the slow path words it with its line
        raise Doubt from exc


# ---------------------------------------------------------------- schema rules

_BANK_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
_QID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_TAG = re.compile(r"^[a-z0-9-]+$")
_LETTER = re.compile(r"^[A-H]$")
_TEXT = re.compile(r"\S")
_IMAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.(png|jpg|jpeg|gif|webp)$")
_BANK_KEYS = {"id", "title", "language", "source", "questions"}
# The keys every type shares, then those only some take (each type's module says which).
_OWN_KEYS = frozenset(key for rules in TYPES.values() for key in rules.own_keys)
_QUESTION_KEYS = {"id", "number", "type", "points", "tags", "stem", "options", "answer",
                  "explanation", "errata", "completed_by_editor", "doubt", "images", *_OWN_KEYS}
_TYPE_IDS = frozenset(str(qtype) for qtype in TYPES)
_REQUIRED = {"id", "number", "type", "stem", "answer"}
_ERRATUM_KEYS = {"field", "was", "now", "why"}


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(_TEXT.search(value))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def surely_valid(data: Any) -> bool:
    """True only if `data` passes the bank schema (False means: ask jsonschema)."""
    if not isinstance(data, dict) or set(data) != _BANK_KEYS:
        return False
    if not (isinstance(data["id"], str) and _BANK_ID.search(data["id"]) and _text(data["title"])
            and isinstance(data["language"], str) and _LANGUAGE.search(data["language"])
            and isinstance(data["source"], str)):
        return False
    questions = data["questions"]
    return isinstance(questions, list) and bool(questions) and all(map(_question, questions))


def _question(q: Any) -> bool:
    if not isinstance(q, dict) or not _REQUIRED <= q.keys() or not q.keys() <= _QUESTION_KEYS:
        return False
    number, kind = q["number"], q["type"]
    if not (isinstance(q["id"], str) and _QID.search(q["id"]) and isinstance(number, int)
            and not isinstance(number, bool) and number >= 1 and _text(q["stem"])):
        return False
    if "points" in q and not (_number(q["points"]) and q["points"] > 0):
        return False
    tags = q.get("tags", [])
    if not (isinstance(tags, list) and all(isinstance(t, str) and _TAG.search(t) for t in tags)
            and len(set(tags)) == len(tags)):
        return False
    if "explanation" in q and not isinstance(q["explanation"], str):
        return False
    if "doubt" in q and not _text(q["doubt"]):
        return False
    if "images" in q and not _images(q["images"]):
        return False
    if "completed_by_editor" in q and not isinstance(q["completed_by_editor"], bool):
        return False
    if q.get("completed_by_editor") is True and not q.get("errata"):
        return False
    if "errata" in q and not _errata(q["errata"]):
        return False
    rules = TYPES[QuestionType(kind)] if isinstance(kind, str) and kind in _TYPE_IDS else None
    if rules is None:
        return False
    for key in _OWN_KEYS & q.keys():
        if key not in rules.own_keys or not _own_key_valid(rules.own_keys[key], q[key]):
            return False
    options, answer = q.get("options"), q["answer"]
    if not rules.takes_options:
        return "options" not in q and not rules.answer_problems(answer, None)
    if not (isinstance(options, dict) and len(options) >= 2
            and all(isinstance(k, str) and _LETTER.search(k) and _text(v) for k, v in options.items())):
        return False
    return not rules.answer_problems(answer, list(options))


_SIMPLE_TYPES: dict[str, Any] = {"number": _number, "string": lambda v: isinstance(v, str),
                                 "array": lambda v: isinstance(v, list),
                                 "object": lambda v: isinstance(v, dict)}
_SIMPLE_KEYWORDS = frozenset({"type", "minimum", "exclusiveMinimum", "items", "minItems", "pattern",
                              "properties", "required", "additionalProperties"})


def _own_key_valid(schema: dict[str, Any], value: Any) -> bool:
    """value against a type's own-key schema, for the few keywords such schemas use (type,
    minimum, items, pattern, an object's properties, if/then/else); any other keyword: False, and
    jsonschema decides."""
    if schema.keys() == {"if", "then", "else"}:
        return _own_key_valid(schema["then" if _own_key_valid(schema["if"], value) else "else"], value)
    if not schema.keys() <= _SIMPLE_KEYWORDS or schema.get("type") not in _SIMPLE_TYPES:
        return False
    if not _SIMPLE_TYPES[schema["type"]](value):
        return False
    if "minimum" in schema and not value >= schema["minimum"]:
        return False
    if "exclusiveMinimum" in schema and not value > schema["exclusiveMinimum"]:
        return False
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return False
    if "minItems" in schema and len(value) < schema["minItems"]:
        return False
    if schema["type"] == "object":
        properties = schema.get("properties", {})
        if not set(schema.get("required", ())) <= value.keys():
            return False
        if schema.get("additionalProperties", True) is False and not value.keys() <= properties.keys():
            return False
        return all(_own_key_valid(properties[k], v) for k, v in value.items() if k in properties)
    return "items" not in schema or all(_own_key_valid(schema["items"], item) for item in value)


def _images(images: Any) -> bool:
    return (isinstance(images, list) and bool(images) and len(set(map(str, images))) == len(images)
            and all(isinstance(name, str) and _IMAGE.search(name) for name in images))


def _errata(errata: Any) -> bool:
    return isinstance(errata, list) and all(
        isinstance(e, dict) and set(e) == _ERRATUM_KEYS and _text(e["field"]) and _text(e["why"])
        and isinstance(e["was"], str) and isinstance(e["now"], str) for e in errata
    )
