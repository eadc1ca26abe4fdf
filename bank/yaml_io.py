"""YAML reading and writing for bank files: a safe, line-keeping loader with YAML 1.2 scalars,
and `dump_bank`, which writes a `Bank` back in the documented layout (docs/bank-format.md).
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.domain.key_points import key_point_yaml
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Paper, Question

__all__ = [
    "BankLoader",
    "Located",
    "YamlSyntaxError",
    "bank_to_dict",
    "dump_bank",
    "load_yaml",
    "paper_to_dict",
    "parse_located",
    "question_to_dict",
]

KeyPath = tuple[str | int, ...]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"

# The YAML 1.2 core schema. PyYAML implements 1.1, where yes/no/on/off/y/n are booleans,
# 1:30 is sexagesimal 90 and 2025-01-01 a date -- all of which would silently corrupt answers.
_BOOL_RE = re.compile(r"^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$")
_INT_RE = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")


def _parse_int(text: str) -> int:
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # "017" is 17 in YAML 1.2, not octal


def _parse_float(text: str) -> float:
    lowered = text.lower()
    if lowered.endswith(".inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered == ".nan":
        return math.nan
    return float(text)


class BankLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema scalars and no anchors/aliases.

    Only true/false (any case) are booleans, so `no`, `off`, `Y` stay text; dates stay text.
    Aliases are refused: bank files never need them and they make billion-laughs files possible.
    """

    yaml_implicit_resolvers: dict = {}  # noqa: RUF012 -- replaces, not extends, the 1.1 table

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None,
                None,
                "anchors and aliases (*name) are not allowed in bank files",
                event.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        return _parse_int(self.construct_scalar(node))

    def construct_yaml_float(self, node: ScalarNode) -> float:
        return _parse_float(self.construct_scalar(node))


BankLoader.add_implicit_resolver(_BOOL, _BOOL_RE, list("tTfF"))
BankLoader.add_implicit_resolver(_INT, _INT_RE, list("-+0123456789"))
BankLoader.add_implicit_resolver(_FLOAT, _FLOAT_RE, list("-+.0123456789"))
BankLoader.add_implicit_resolver(_NULL, _NULL_RE, ["~", "n", "N", ""])
BankLoader.add_constructor(_INT, BankLoader.construct_yaml_int)
BankLoader.add_constructor(_FLOAT, BankLoader.construct_yaml_float)


def _plain_tag(text: str) -> str:
    """The tag BankLoader gives `text` written as a plain scalar."""
    for tag, regex in ((_BOOL, _BOOL_RE), (_INT, _INT_RE), (_FLOAT, _FLOAT_RE), (_NULL, _NULL_RE)):
        if regex.match(text):
            return tag
    return _STR


class YamlSyntaxError(Exception):
    """The text is not well-formed YAML (or uses a refused feature); `line` is 1-based."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class Located:
    """A parsed YAML document plus where each part of it came from.

    Paths are tuples of mapping keys and list indices, as in jsonschema's `absolute_path`.
    `lines[path]` is the 1-based line of the value at `path`; `key_lines[path]` is the line of
    the mapping key that introduced it. `problems` are (line, path, message) for things that
    parse but are never acceptable in a bank: duplicate keys, unsupported tags, complex keys.
    """

    value: Any
    lines: dict[KeyPath, int] = field(default_factory=dict)
    key_lines: dict[KeyPath, int] = field(default_factory=dict)
    problems: list[tuple[int, KeyPath, str]] = field(default_factory=list)

    def line_of(self, path: KeyPath) -> int | None:
        """Line of `path`, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)


def _convert(node: Node, path: KeyPath, out: Located) -> Any:
    out.lines[path] = node.start_mark.line + 1
    if isinstance(node, ScalarNode):
        return _convert_scalar(node, path, out)
    if isinstance(node, SequenceNode):
        if node.tag != _SEQ:
            out.problems.append((node.start_mark.line + 1, path, f"unsupported tag {node.tag}"))
        return [_convert(item, (*path, i), out) for i, item in enumerate(node.value)]
    assert isinstance(node, MappingNode)
    if node.tag != _MAP:
        out.problems.append((node.start_mark.line + 1, path, f"unsupported tag {node.tag}"))
    result: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key_line = key_node.start_mark.line + 1
        if not isinstance(key_node, ScalarNode):
            out.problems.append((key_line, path, "mapping keys must be plain text"))
            continue
        # Keys are taken as written: an option key `1` or `N` is the text "1" / "N".
        key = key_node.value
        child = (*path, key)
        if key in result:
            first = out.key_lines[child]
            out.problems.append((key_line, child, f"duplicate key '{key}' (first on line {first})"))
            continue
        out.key_lines[child] = key_line
        result[key] = _convert(value_node, child, out)
    return result


def _convert_scalar(node: ScalarNode, path: KeyPath, out: Located) -> Any:
    text = node.value
    try:
        if node.tag == _STR:
            return text
        if node.tag == _BOOL and _BOOL_RE.match(text):
            return text.lower() == "true"
        if node.tag == _INT:
            return _parse_int(text)
        if node.tag == _FLOAT:
            return _parse_float(text)
        if node.tag == _NULL and _NULL_RE.match(text):
            return None
    except ValueError:
        pass
    out.problems.append((node.start_mark.line + 1, path, f"unsupported tag or value {node.tag} {text!r}"))
    return text


def parse_located(text: str) -> Located:
    """Parse one YAML document with BankLoader, keeping lines. Raises YamlSyntaxError."""
    loader = None
    try:
        loader = BankLoader(text)  # the reader already checks the characters here
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        parts = [p for p in (exc.context, exc.problem) if p]
        raise YamlSyntaxError("YAML syntax error: " + ", ".join(parts), line) from exc
    except yaml.reader.ReaderError as exc:  # a bad character: a position, not a mark
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        message = f"YAML error: character U+{code:04X} is not allowed; write it as an escape in double quotes"
        raise YamlSyntaxError(message, line) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"YAML error: {exc}", None) from exc
    except RecursionError as exc:
        raise YamlSyntaxError("YAML nesting is too deep", None) from exc
    finally:
        if loader is not None:
            loader.dispose()
    out = Located(value=None)
    if root is None:
        return out
    out.value = _convert(root, (), out)
    return out


def load_yaml(text: str) -> Any:
    """Plain Python data from YAML text with bank-file rules (1.2 booleans, no aliases).

    Raises YamlSyntaxError; duplicate keys and odd tags are tolerated here (see parse_located).
    """
    return parse_located(text).value


# ---------------------------------------------------------------- dumping


class _Flow(list):
    """A list written in flow style: `[a, b]`."""


class _FlowMap(dict):
    """A mapping written in flow style: `{type: single, count: 30, points: 1}`."""


class _BankDumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # Indent sequences under their key; PyYAML's default puts "- " flush with the key.
        super().increase_indent(flow, False)

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        tag = super().resolve(kind, value, implicit)
        # A string must be quoted if either YAML 1.1 tools or BankLoader would read it as
        # something else ("no", "0o17", "tRuE", "2025-01-01"...).
        if kind is ScalarNode and implicit[0] and tag == _STR:
            return _plain_tag(value)
        return tag


_ODD_BREAKS = re.compile("[\r\x85\u2028\u2029]")


def _represent_str(dumper: yaml.SafeDumper, data: str) -> ScalarNode:
    if _ODD_BREAKS.search(data):
        style = '"'  # PyYAML folds these inside plain/single-quoted/block text; escape them
    elif "\n" in data:
        style = "|"  # the emitter falls back to quotes if a block can't hold the text exactly
    else:
        style = None
    return dumper.represent_scalar(_STR, data, style=style)


def _represent_flow(dumper: yaml.SafeDumper, data: list) -> SequenceNode:
    return dumper.represent_sequence(_SEQ, data, flow_style=True)


def _represent_flow_map(dumper: yaml.SafeDumper, data: dict) -> MappingNode:
    return dumper.represent_mapping(_MAP, data.items(), flow_style=True)


_BankDumper.add_representer(str, _represent_str)
_BankDumper.add_representer(_Flow, _represent_flow)
_BankDumper.add_representer(_FlowMap, _represent_flow_map)


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def question_to_dict(q: Question) -> dict[str, Any]:
    """The YAML mapping for one question, keys in the documented order."""
    out: dict[str, Any] = {
        "id": q.id,
        "number": q.number,
        "type": q.type.value,
        "points": _number(q.points),
        "tags": _Flow(q.tags),
        "stem": q.stem,
    }
    rules = TYPES[q.type]
    if rules.takes_options:
        out["options"] = {letter: text for letter, text in q.options}
    answer = rules.yaml_answer(q)
    out["answer"] = _Flow(answer) if isinstance(answer, tuple) else answer
    if q.tolerance is not None:
        out["tolerance"] = _number(q.tolerance)
    out["explanation"] = q.explanation
    if q.key_points:
        out["key_points"] = [
            {**e, "words": _Flow(e["words"])} if isinstance(e, dict) and "words" in e else e
            for e in key_point_yaml(q)
        ]
    if q.errata:
        out["errata"] = [{"field": e.field, "was": e.was, "now": e.now, "why": e.why} for e in q.errata]
    if q.completed_by_editor:
        out["completed_by_editor"] = True
    if q.doubt:
        out["doubt"] = q.doubt
    if q.images:
        out["images"] = _Flow(q.images)
    return out


def paper_to_dict(paper: Paper) -> dict[str, Any]:
    """The `paper:` mapping of a bank, as the shipped bank writes it: minutes, pass mark, then
    one flow-style line per section."""
    return {
        "minutes": _number(paper.minutes),
        "pass_mark": _number(paper.pass_mark),
        "sections": [_FlowMap(type=s.type.value, count=s.count, points=_number(s.points))
                     for s in paper.sections],
    }


def _head(bank: Bank) -> dict[str, Any]:
    """The bank's own keys, in the documented order (id, title, language, source, tag_names,
    paper); `paper` and `tag_names` only when the bank has them."""
    head: dict[str, Any] = {"id": bank.id, "title": bank.title, "language": bank.language,
                            "source": bank.source}
    if bank.tag_names:
        head["tag_names"] = dict(bank.tag_names)
    if bank.paper is not None:
        head["paper"] = paper_to_dict(bank.paper)
    return head


def bank_to_dict(bank: Bank) -> dict[str, Any]:
    """The data `dump_bank(bank)` writes, as plain Python values."""
    head = _head(bank)
    if "paper" in head:
        head["paper"] = {**head["paper"], "sections": [dict(s) for s in head["paper"]["sections"]]}
    questions = []
    for question in bank.questions:
        item = question_to_dict(question)
        questions.append({k: list(v) if isinstance(v, _Flow) else v for k, v in item.items()})
    return {**head, "questions": questions}


def dump_bank(bank: Bank) -> str:
    """The bank as YAML text in the documented layout; `load_bank_text` of it gives `bank` back.

    Block style, keys in documented order, Unicode kept as is, strings never folded, multi-line
    strings as `|` blocks, text that would read as a bool/number/null quoted, and a blank line
    between questions. It does not validate: a bank that breaks a rule (say completed_by_editor
    without errata) is written as is, and loading it back reports the problem.
    """
    header_text, _ = _dump(_head(bank))
    if not bank.questions:
        return header_text + "questions: []\n"
    parts = [header_text, "questions:\n"]
    separate = False
    for question in bank.questions:
        fast = _fast_question(question)
        if fast is not None:
            parts.append(("\n" if separate else "") + fast)
            separate = True
            continue
        # Dumped one by one so a blank line can separate them; every non-empty line is indented
        # the same, which leaves block scalars' contents unchanged.
        item, open_ended = _dump([question_to_dict(question)])
        parts.append(("\n" if separate else "") + textwrap.indent(item, "  ", _not_empty))
        separate = not open_ended  # a blank line after a `|+` block would become part of it
    return "".join(parts)


# The fast path writes a question directly when every text in it is one PyYAML would write as
# a plain scalar anyway (most items of most banks): PyYAML's emitter took 1.5 ms an item.
# Anything less ordinary goes through PyYAML, so the output is the same either way
# (tests/test_bank_fast_paths.py compares them).
_UNSAFE_PLAIN = re.compile(r"[\x00-\x1f#:'\"\\`]|^[-?,\[\]{}&*!|>%@.\s]|\s$")
_LETTER_ONLY = re.compile(r"[A-H]")
_RESOLVER = yaml.resolver.Resolver()


def _plain(text: str) -> str | None:
    if text == "":
        return "''"
    if _UNSAFE_PLAIN.search(text) or not text.isprintable() or _plain_tag(text) != _STR:
        return None
    if _RESOLVER.resolve(ScalarNode, text, (True, False)) != _STR:
        return None
    return text


def _fast_question(q: Question) -> str | None:
    if q.errata or q.completed_by_editor or q.doubt or q.key_point_marks or not float(q.points).is_integer():
        return None
    if q.images:
        return None
    if q.tolerance is not None and not float(q.tolerance).is_integer():
        return None
    texts: list[str | None] = [_plain(q.id), _plain(q.stem), _plain(q.explanation)]
    lines = [f"  - id: {texts[0]}", f"    number: {q.number}", f"    type: {q.type.value}",
             f"    points: {int(q.points)}"]
    tags = [_plain(t) for t in q.tags]
    if any(t is None or "," in t or "[" in t or "]" in t or "{" in t or "}" in t for t in tags):
        return None
    lines.append(f"    tags: [{', '.join(tags)}]")  # type: ignore[arg-type]
    lines.append(f"    stem: {texts[1]}")
    rules = TYPES[q.type]
    if rules.takes_options:
        lines.append("    options:")
        for letter, text in q.options:
            texts.append(plain := _plain(text))
            lines.append(f"      {letter}: {plain}")
    answer = rules.yaml_answer(q)
    if isinstance(answer, bool):
        lines.append(f"    answer: {'true' if answer else 'false'}")
    elif isinstance(answer, tuple) and all(_LETTER_ONLY.fullmatch(item) for item in answer):
        lines.append(f"    answer: [{', '.join(answer)}]")
    elif isinstance(answer, list):
        lines.append("    answer:")
        for item in answer:
            texts.append(plain := _plain(item))
            lines.append(f"      - {plain}")
    elif isinstance(answer, str):
        texts.append(plain := _plain(answer))
        lines.append(f"    answer: {plain}")
    else:
        return None
    if q.tolerance is not None:
        lines.append(f"    tolerance: {int(q.tolerance)}")
    lines.append(f"    explanation: {texts[2]}")
    if q.key_points:
        lines.append("    key_points:")
        for point in q.key_points:
            texts.append(plain := _plain(point))
            lines.append(f"      - {plain}")
    if any(t is None or (t == "''" and i < 2) for i, t in enumerate(texts)):
        return None
    return "\n".join(lines) + "\n"


def _not_empty(line: str) -> bool:
    return line != "\n"


def _dump(data: Any) -> tuple[str, bool]:
    """YAML for `data` and whether it ends with a `|+` block scalar that keeps trailing blank
    lines (PyYAML then appends a `...` document end, removed here as more text follows)."""
    text = yaml.dump(
        data,
        Dumper=_BankDumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1_000_000,
        indent=2,
    )
    if text.endswith("\n...\n"):
        return text[: -len("...\n")], True
    return text, False
