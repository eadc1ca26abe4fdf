"""The bank checker's problems (bank/checks.py, the answer rules of bot/domain/question_types, the YAML
reader) in the CLI's language, for `studybot bank check`, `import` and `export`.

The checker states its problems as English sentences of a fixed set of shapes; each shape is a
pattern here with the catalog sentence (`check.*`) it becomes, its parts (field names, question
types, "got the string 'x'") translated in turn. English is shown as the checker wrote it. A
message of no known shape is shown with the generic `check.other` sentence and its own words
(tests/test_cli_language.py runs every broken bank fixture and a fuzzed bank through this, so a
new checker sentence without its pattern fails there).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import cast

from bank.checks import BankProblem
from bot.domain.file_problems import os_error_text
from bot.domain.question_types import TYPES
from bot.locales.i18n import t

__all__ = ["check_line", "check_text"]

_Part = Callable[[str, str], str]  # (language, text) -> text


def _same(language: str, text: str) -> str:
    return text


_FIELDS = {
    "the bank": "bank",
    "the question": "question",
    "stem": "stem",
    "answer": "answer",
    "options": "options",
    "explanation": "explanation",
    "tags": "tags",
    "points": "points",
    "number": "number",
    "id": "id",
    "title": "title",
    "language": "language",
    "source": "source",
    "questions": "questions",
    "key_points": "key_points",
    "point": "point",  # a key point's parts (bot/domain/key_points.py)
    "words": "words",
    "share": "share",
    "errata": "errata",
    "type": "type",
    "tolerance": "tolerance",
    "paper": "paper",
    "sections": "sections",
    "minutes": "minutes",
    "pass_mark": "pass_mark",
    "count": "count",
    "completed_by_editor": "completed_by_editor",
    "doubt": "doubt",
    "images": "images",
    "tag_names": "tag_names",
}
_FIELD_PART = re.compile(r"([^.#]+)((?:#\d+)?)")


def _field(language: str, name: str) -> str:
    """`options.B`, `tags#2`, `errata#1.why`, `the bank` in `language`; unknown keys as written."""
    if language == "en":
        return name
    if name in _FIELDS:
        return t(language, f"check.field.{_FIELDS[name]}")
    parts = []
    for match in _FIELD_PART.finditer(name):
        key, index = match.group(1), match.group(2)
        text = t(language, f"check.field.{_FIELDS[key]}") if key in _FIELDS else key
        if index:
            text = t(language, "check.field.item", field=text, n=index[1:])
        parts.append(text)
    return t(language, "check.field.sep").join(parts) if parts else name


def _type(language: str, word: str) -> str:
    key = f"import.type.{word}"
    return t(language, key) if word in TYPES else word


def _types(language: str, words: str) -> str:
    return t(language, "import.summary.list_sep").join(_type(language, w) for w in words.split(", "))


_GOT = (
    (re.compile(r"got nothing \(an empty value\)"), "check.got.nothing"),
    (re.compile(r"got the string (?P<value>.*)"), "check.got.string"),
    (re.compile(r"got a list"), "check.got.list"),
    (re.compile(r"got a mapping"), "check.got.mapping"),
    (
        re.compile(r'got the boolean (?P<value>\S+); quote it \("\S+"\) if it is meant as text'),
        "check.got.boolean_quote",
    ),
    (
        re.compile(r'got the number (?P<value>\S+); quote it \("\S+"\) if it is meant as text'),
        "check.got.number_quote",
    ),
    (re.compile(r"got the boolean (?P<value>\S+)"), "check.got.boolean"),
    (re.compile(r"got the number (?P<value>\S+)"), "check.got.number"),
)


def _got(language: str, phrase: str) -> str:
    for pattern, key in _GOT:
        match = pattern.fullmatch(phrase)
        if match is not None:
            return t(language, key, **match.groupdict())
    return phrase


_KINDS = {"an integer": "integer", "a number": "number", "true or false": "boolean", "a list": "list",
          "a mapping (key: value lines)": "mapping"}  # fmt: skip


def _kind(language: str, text: str) -> str:
    return t(language, f"check.kind.{_KINDS[text]}") if text in _KINDS else text


def _yaml(language: str, text: str) -> str:
    """PyYAML's own words (`mapping values are not allowed here`) are not ours to translate:
    in another language the sentence says where, and only the known ones are named."""
    known = {
        "anchors and aliases (*name) are not allowed in bank files": "check.yaml.aliases",
        "mapping values are not allowed here": "check.yaml.mapping_values",
        "found character that cannot start any token": "check.yaml.bad_character",
    }
    keys = [known[p] for p in known if p in text]
    return t(language, keys[0]) if keys else t(language, "check.yaml.other")


_GOT_PART: dict[str, _Part] = {"got": _got}
_TYPE_SHAPES: list[tuple[str, str, dict[str, _Part]]] = [
    (pattern, key, _GOT_PART if "(?P<got>" in pattern else {})
    for rules in TYPES.values()
    for pattern, key in rules.check_texts
]
# (pattern, catalog key, how each named group is shown); first match wins. {ids} is any type id.
_IDS = "|".join(re.escape(str(qtype)) for qtype in TYPES)
_SHAPES: tuple[tuple[re.Pattern[str], str, dict[str, _Part]], ...] = tuple(
    (re.compile(pattern.replace("{ids}", _IDS)), key, dict(cast("dict[str, _Part]", parts)))
    for pattern, key, parts in (
        (r"YAML syntax error: (?P<detail>.*)", "check.yaml_syntax", {"detail": _yaml}),
        (
            r"YAML error: character U\+(?P<code>[0-9A-F]+) is not allowed; write it as an escape in "
            r"double quotes",
            "check.yaml_character",
            {},
        ),
        (r"YAML error: (?P<detail>.*)", "check.yaml_syntax", {"detail": _yaml}),
        (r"YAML nesting is too deep", "check.yaml_deep", {}),
        (r"unsupported tag or value (?P<tag>\S+) (?P<value>.*)", "check.tag_value", {}),
        (r"unsupported tag (?P<tag>.*)", "check.tag", {}),
        (r"mapping keys must be plain text", "check.plain_keys", {}),
        (r"duplicate key (?P<key>'.*') \(first on line (?P<first>\d+)\)", "check.duplicate_key", {}),
        (r"the file is empty", "import.refused.empty", {}),
        (r"cannot read: (?P<detail>.*)", "check.cannot_read", {}),
        (r"bank id (?P<id>'.*') is also used by (?P<other>.*)", "check.bank_id_twice", {}),
        # the pictures beside a bank (bank/images.py)
        (r"picture (?P<file>\S+) is missing \(the item names it in images\)", "check.picture_missing", {}),
        (
            r"picture (?P<file>\S+) is (?P<size>\d+) bytes; at most (?P<limit>\d+) are allowed",
            "check.picture_too_big",
            {},
        ),
        (r"cannot read picture (?P<file>\S+): (?P<detail>.*)", "check.picture_unreadable", {}),
        (r"(?P<file>\S+) is not a PNG, JPEG, GIF or WebP picture", "check.picture_kind", {}),
        # tag_names: (bank/checks.py check_tag_names and the schema's key pattern)
        (r"tag (?P<tag>'.*') in tag_names must be a tag: a-z, 0-9 and '-'", "check.tag_names_slug", {}),
        (
            r"tags (?P<first>'[^']*') and (?P<tag>'[^']*') have the same display name (?P<name>'.*')",
            "check.tag_names_same",
            {},
        ),
        (
            r"the display name of (?P<tag>'[^']*') is another tag's slug (?P<name>'.*')",
            "check.tag_names_slug_name",
            {},
        ),
        (r"tag_names names (?P<tag>'.*'), which no question is tagged with", "check.tag_names_unused", {}),
        (r"unknown key (?P<key>'[^']*') \(did you mean (?P<close>'[^']*')\?\)", "check.unknown_key_hint", {}),
        (r"unknown key (?P<key>'.*')", "check.unknown_key", {}),
        (r"missing required key (?P<key>'.*')", "check.missing_key", {}),
        (r"option letter (?P<letter>.*) must be one of A–H", "check.option_letter", {}),
        (
            r"a bank file must be a mapping with id, title, language, source, questions",
            "check.not_mapping",
            {},
        ),
        (
            r"unknown question type (?P<value>.*) \(use one of (?P<names>.*)\)",
            "check.unknown_type",
            {"names": _types},
        ),
        (r"the bank has no questions", "check.no_questions", {}),
        (
            r"duplicate question (?P<key>id|number) (?P<value>.*) \(first on line (?P<first>\S+)\)",
            "check.duplicate_question",
            {"key": _field},
        ),
        (r"points must be a finite number, got (?P<value>.*)", "check.points_finite", {}),
        (r"completed_by_editor is true but there are no errata saying what was added", "check.completed", {}),
        (
            r"(?P<key>\S+) is for (?P<items>.*) items, not (?P<kind>\S+)",
            "check.key_owner",
            {"key": _field, "items": _types, "kind": _type},
        ),
        (
            r"(?P<kind>{ids}) items take no options",
            "check.no_options",
            {"kind": _type},
        ),
        (
            r"(?P<kind>{ids}) items need options \(A, B, \.\.\.\)",
            "check.needs_options",
            {"kind": _type},
        ),
        (r"option letters must run (?P<want>.*) in order, got (?P<got>.*)", "check.letter_order", {}),
        (
            r"options (?P<first>\S+) and (?P<second>\S+) have the same text (?P<text>.*)",
            "check.same_options",
            {},
        ),
        (
            r"(?P<field>\S+) may have lost characters \('\?' or '\ufffd'\): (?P<excerpt>.*)",
            "check.lost",
            {"field": _field},
        ),
        # the answer rules of the question types: each type's own sentences (its check_texts),
        # a `got` group read as a got-phrase
        (r"(?P<kind>{ids}) answer is empty", "check.answer_empty", {"kind": _type}),
        *_TYPE_SHAPES,
        (r"answer (?P<answer>.*) is not among the options (?P<letters>.*)", "check.not_among", {}),
        (r"answer (?P<answer>.*) not among the options (?P<letters>.*)", "check.not_among", {}),
        (r"answer (?P<answer>.*) is not among the options", "check.not_among_none", {}),
        (r"answer (?P<answer>.*) not among the options", "check.not_among_none", {}),
        # schema shapes, with a field name first: these come last, they match widely
        (r"(?P<field>.+) is empty", "check.empty", {"field": _field}),
        (r"(?P<field>.+) must be text, (?P<got>.*)", "check.must_be_text", {"field": _field, "got": _got}),
        (r"(?P<field>.+) must be positive, got (?P<value>.*)", "check.positive", {"field": _field}),
        (
            r"(?P<field>.+) needs at least (?P<n>\d+) entries, got (?P<got>\d+)",
            "check.min_entries",
            {"field": _field},
        ),
        (r"(?P<field>.+) has duplicate entries", "check.duplicate_entries", {"field": _field}),
        (
            r"(?P<field>.+) must be (?P<kind>an integer|a number|true or false|a list|a mapping \(key: value "
            r"lines\)|\S+), (?P<got>.*)",
            "check.must_be",
            {"field": _field, "kind": _kind, "got": _got},
        ),
        (
            r"(?P<field>\S+) (?P<value>.*) does not match (?P<pattern>\S+)",
            "check.no_match",
            {"field": _field},
        ),
    )
)


def check_text(language: str, message: str) -> str:
    """One checker message in `language` (as it is in English)."""
    if language == "en":
        return message
    text = message.removeprefix("warning: ")
    warning = text is not message
    for pattern, key, parts in _SHAPES:
        match = pattern.fullmatch(text)
        if match is not None:
            params = {
                name: parts.get(name, _same)(language, value) for name, value in match.groupdict().items()
            }
            if key in ("check.cannot_read", "check.picture_unreadable"):
                params["detail"] = _reason(language, params["detail"])
            said = t(language, key, **params) if params else t(language, key)
            return t(language, "check.warning", text=said) if warning else said
    return t(language, "check.other")


def _reason(language: str, detail: str) -> str:
    """`[Errno 2] No such file or directory: 'x'` (an OSError's str) as the catalog's sentence."""
    match = re.match(r"\[Errno (\d+)\]", detail)
    if match is None:
        return (
            t(language, "check.not_utf8")
            if "codec can't decode" in detail
            else t(language, "oserror.unknown")
        )
    return os_error_text(language, OSError(int(match.group(1)), ""))


def check_line(language: str, problem: BankProblem) -> str:
    """`file:line: [id] message` in `language`."""
    if language == "en":
        return str(problem)
    place = (
        t(language, "check.at_line", file=problem.file, line=problem.line)
        if problem.line is not None
        else problem.file
    )
    item = f"[{problem.question_id}] " if problem.question_id else ""
    return t(language, "check.line", place=place, item=item, text=check_text(language, problem.message))
