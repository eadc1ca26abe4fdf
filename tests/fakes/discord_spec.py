"""Checks requests to the fake Discord against Discord's OpenAPI 3.1 description: the route must
exist, and query/body field names, types and length limits must be those the operation allows."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests.fakes.discord_rules import Finding

SPEC_ENV = "STUDYBOT_DISCORD_SPEC"
# shared/ lies beside the checkout (CI clones elsewhere and copies shared/ beside the clone).
_CANDIDATES = (
    Path(__file__).resolve().parents[3] / "shared" / "specs" / "discord-openapi.json",
    Path("/work/shared/specs/discord-openapi.json"),
)
_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}

# Fields missing from the OpenAPI file that Discord takes: documented ones, and ones it ignores
# but discord.py always sends (schema -> property -> schema).
SPEC_GAPS: dict[str, dict[str, Any]] = {
    # "nsfw" is in the documented JSON params of Create/Edit/Bulk Overwrite Application Command;
    # discord.py sends it with every command.
    "ApplicationCommandCreateRequest": {"nsfw": {"type": ["boolean", "null"]}},
    "ApplicationCommandUpdateRequest": {"nsfw": {"type": ["boolean", "null"]}},
    "ApplicationCommandPatchRequestPartial": {"nsfw": {"type": ["boolean", "null"]}},
    # discord.py puts "tts": false into every edit (message, webhook message, UPDATE_MESSAGE
    # callback); Discord ignores it there, so the fake tolerates exactly that value.
    "MessageEditRequestPartial": {"tts": {"type": ["boolean", "null"], "enum": [False, None]}},
    "IncomingWebhookUpdateRequestPartial": {"tts": {"type": ["boolean", "null"], "enum": [False, None]}},
    "IncomingWebhookUpdateForInteractionCallbackRequestPartial": {
        "tts": {"type": ["boolean", "null"], "enum": [False, None]}},
    # discord.py's Embed.to_dict() echoes the embed "flags" Discord returns; Discord ignores it.
    "RichEmbed": {"flags": {"type": ["integer", "null"]}},
}


def spec_path() -> Path:
    if os.environ.get(SPEC_ENV):
        return Path(os.environ[SPEC_ENV])
    for candidate in _CANDIDATES:
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"Discord OpenAPI spec not found; set {SPEC_ENV}")


BODIES_KEPT = 4096  # request bodies whose findings are remembered (then forgotten, all at once)


@lru_cache(maxsize=2)
def load_spec(path: str | None = None) -> OpenApiSpec:
    with open(path or spec_path(), encoding="utf-8") as fh:
        return OpenApiSpec(json.load(fh))


@dataclass(frozen=True)
class RouteMatch:
    template: str  # e.g. "/channels/{channel_id}/messages"
    params: dict[str, str]
    operation: dict[str, Any] | None  # None: the path exists but not with this method


class OpenApiSpec:
    """Route table and a pragmatic JSON-schema checker over `components.schemas`."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        for name, extra in SPEC_GAPS.items():
            schema = self.schemas[name]
            self.schemas[name] = {**schema, "properties": {**schema["properties"], **extra}}
        self.paths: dict[str, dict[str, Any]] = document["paths"]
        self._derefs: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        self._seen: dict[tuple[Any, ...], list[Finding]] = {}
        self._bodies: dict[tuple[int, str], list[Finding]] = {}
        self._templates = [(t, t.strip("/").split("/")) for t in self.paths]

    def match(self, method: str, path: str) -> RouteMatch | None:
        """Best template for `path` (literal segments beat `{param}` ones, so `@me` wins)."""
        parts = path.strip("/").split("/")
        best: tuple[int, str, dict[str, str]] | None = None
        for template, segments in self._templates:
            if len(segments) != len(parts):
                continue
            params: dict[str, str] = {}
            literal = 0
            for seg, part in zip(segments, parts, strict=True):
                if seg.startswith("{") and seg.endswith("}"):
                    params[seg[1:-1]] = part
                elif seg == part:
                    literal += 1
                else:
                    break
            else:
                if best is None or literal > best[0]:
                    best = (literal, template, params)
        if best is None:
            return None
        _, template, params = best
        return RouteMatch(template, params, self.paths[template].get(method.lower()))

    def methods(self, template: str) -> list[str]:
        return [m.upper() for m in self.paths[template] if m != "parameters"]

    def check_path_params(self, match: RouteMatch) -> list[Finding]:
        out = []
        for p in self.paths[match.template].get("parameters", []):
            schema = self._deref(p.get("schema", {}))
            value = match.params.get(p["name"], "")
            if schema.get("format") == "snowflake" and not value.isdigit():
                out.append(Finding((p["name"],), "NUMBER_TYPE_COERCE",
                                   f'Value "{value}" is not snowflake.', "shape"))
        return out

    def check_query(self, match: RouteMatch, query: dict[str, str]) -> list[Finding]:
        parameters = (match.operation or {}).get("parameters", [])
        allowed = {p["name"]: p for p in parameters if p.get("in") == "query"}
        out = []
        for name, value in query.items():
            if name not in allowed:
                out.append(Finding((name,), "UNKNOWN_QUERY_PARAMETER",
                                   f"'{name}' is not a query parameter of this route", "shape"))
                continue
            kind = self._deref(allowed[name].get("schema", {})).get("type")
            if kind == "boolean" and value.lower() not in ("true", "false", "1", "0"):
                out.append(Finding((name,), "BOOLEAN_TYPE_COERCE", f'Value "{value}" is not bool.', "shape"))
            if kind == "integer" and not value.lstrip("-").isdigit():
                out.append(Finding((name,), "NUMBER_TYPE_COERCE", f'Value "{value}" is not int.', "shape"))
        return out

    def body_schema(self, match: RouteMatch, content_type: str) -> dict[str, Any] | None:
        body = (match.operation or {}).get("requestBody")
        if not body:
            return None
        content = body.get("content", {})
        entry = content.get(content_type) or content.get("application/json")
        return entry.get("schema") if entry else None

    def check_body(
        self, match: RouteMatch, body: Any, content_type: str = "application/json"
    ) -> list[Finding]:
        schema = self.body_schema(match, content_type)
        if schema is None:
            if body in (None, b"", ""):
                return []
            return [Finding((), "UNEXPECTED_BODY", "This route takes no request body", "shape")]
        if body is None:
            required = (match.operation or {}).get("requestBody", {}).get("required", False)
            return [Finding((), "BASE_TYPE_REQUIRED", "This field is required", "shape")] if required else []
        # A body sent before (every test's bot syncs the same command list: ~60 ms to check)
        # has the findings it had: the check reads nothing but the body and the spec.
        try:  # keys in their order: the findings come in the order of the body's keys
            text = json.dumps(body)
        except (TypeError, ValueError):  # not JSON (a form's parts): checked afresh
            return self.validate(body, schema)
        key = (id(schema), text)  # the schema: a route's method and content type pick it
        if key not in self._bodies:
            if len(self._bodies) >= BODIES_KEPT:
                self._bodies.clear()
            self._bodies[key] = self.validate(body, schema)
        return list(self._bodies[key])

    def validate(self, value: Any, schema: dict[str, Any], path: tuple[str, ...] = ()) -> list[Finding]:
        # One body's checks, remembered while it is checked: nested oneOf branches (a message's
        # components inside each of its own branches) check the same part against the same
        # schema many times over, which made a message with buttons take ~35 ms.
        self._seen: dict[tuple[Any, ...], list[Finding]] = {}
        try:
            out: list[Finding] = []
            self._validate(value, schema, path, out, closed=True)
            return out
        finally:
            self._seen = {}

    def _deref(self, schema: dict[str, Any]) -> dict[str, Any]:
        known = self._derefs.get(id(schema))
        if known is not None and known[0] is schema:
            return known[1]
        if len(schema) == 1 and "$ref" in schema:  # a bare reference: one schema wherever it is
            plain = self._deref(self.schemas[schema["$ref"].rsplit("/", 1)[-1]])
            self._derefs[id(schema)] = (schema, plain)
            return plain
        plain = schema
        while "$ref" in plain:
            target = self.schemas[plain["$ref"].rsplit("/", 1)[-1]]
            siblings = {k: v for k, v in plain.items() if k != "$ref"}
            plain = {**target, **siblings}
        self._derefs[id(schema)] = (schema, plain)  # the node kept: its id stays its own
        return plain

    def _property_names(self, schema: dict[str, Any]) -> set[str] | None:
        """Allowed keys of an object schema (own + allOf); None when any key is allowed."""
        schema = self._deref(schema)
        if schema.get("additionalProperties") not in (None, False):
            return None
        names = set(schema.get("properties", {}))
        for branch in schema.get("allOf", []):
            sub = self._property_names(branch)
            if sub is None:
                return None
            names |= sub
        return names

    def _validate(self, value: Any, schema: dict[str, Any], path: tuple[str, ...],
                  out: list[Finding], closed: bool) -> None:
        # The same part (the value at this path) against the same schema: the same findings.
        schema = self._deref(schema)
        key = (id(value), id(schema), path, closed)
        found = self._seen.get(key)
        if found is None:
            found = []
            self._check(value, schema, path, found, closed)
            self._seen[key] = found
        out.extend(found)

    def _check(self, value: Any, schema: dict[str, Any], path: tuple[str, ...],
               out: list[Finding], closed: bool) -> None:
        for branch in schema.get("allOf", []):
            self._validate(value, branch, path, out, closed=False)
        union = schema.get("oneOf") or schema.get("anyOf")
        if union:
            out.extend(self._best_branch(value, union, path))
            if "properties" not in schema and "type" not in schema:
                return
        if not self._type_ok(value, schema):
            out.append(Finding(path, "BASE_TYPE_BAD_TYPE",
                               f"Must be of type {schema['type']}, not {type(value).__name__}.", "shape"))
            return
        if "const" in schema and value != schema["const"]:
            out.append(Finding(path, "BASE_TYPE_CHOICES", f"Value must be {schema['const']!r}.", "shape"))
        if "enum" in schema and value not in schema["enum"]:
            out.append(Finding(path, "BASE_TYPE_CHOICES", f"Value must be one of {schema['enum']}.", "shape"))
        if isinstance(value, str):
            self._check_string(value, schema, path, out)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if "maximum" in schema and value > schema["maximum"]:
                out.append(Finding(path, "NUMBER_TYPE_MAX",
                                   f"int value should be less than or equal to {schema['maximum']}."))
            if "minimum" in schema and value < schema["minimum"]:
                out.append(Finding(path, "NUMBER_TYPE_MIN",
                                   f"int value should be greater than or equal to {schema['minimum']}."))
        elif isinstance(value, list):
            low, high = schema.get("minItems", 0), schema.get("maxItems")
            if len(value) < low or (high is not None and len(value) > high):
                text = f"between {low} and {high}" if high is not None else f"{low} or more"
                out.append(Finding(path, "BASE_TYPE_BAD_LENGTH", f"Must be {text} in length."))
            if "items" in schema:
                for i, item in enumerate(value):
                    self._validate(item, schema["items"], (*path, str(i)), out, closed=True)
        elif isinstance(value, dict):
            self._check_object(value, schema, path, out, closed)

    def _check_string(
        self, value: str, schema: dict[str, Any], path: tuple[str, ...], out: list[Finding]
    ) -> None:
        longest, shortest = schema.get("maxLength"), schema.get("minLength")
        if longest is not None and len(value) > longest:
            out.append(Finding(path, "BASE_TYPE_MAX_LENGTH", f"Must be {longest} or fewer in length."))
        if shortest is not None and len(value) < shortest:
            out.append(Finding(path, "BASE_TYPE_MIN_LENGTH", f"Must be {shortest} or more in length."))
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(Finding(path, "STRING_TYPE_REGEX", "String value did not match validation regex.",
                               "shape"))

    def _check_object(self, value: dict, schema: dict[str, Any], path: tuple[str, ...],
                      out: list[Finding], closed: bool) -> None:
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                out.append(Finding((*path, name), "BASE_TYPE_REQUIRED", "This field is required", "shape"))
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                self._validate(item, props[key], (*path, key), out, closed=True)
            elif isinstance(extra, dict):
                self._validate(item, extra, (*path, key), out, closed=True)
        allowed = self._property_names(schema) if closed else None
        if allowed:
            for key in value:
                if key not in allowed:
                    out.append(Finding((*path, key), "UNKNOWN_FIELD",
                                       "Field is not in the OpenAPI schema for this request", "shape"))

    def _type_ok(self, value: Any, schema: dict[str, Any]) -> bool:
        kinds = schema.get("type")
        if kinds is None:
            return True
        kinds = [kinds] if isinstance(kinds, str) else kinds
        # Discord accepts snowflakes as JSON numbers too, and discord.py sends them that way.
        if schema.get("format") == "snowflake" and isinstance(value, int) and not isinstance(value, bool):
            return True
        return any(_TYPE_CHECKS[k](value) for k in kinds if k in _TYPE_CHECKS)

    def _best_branch(
        self, value: Any, branches: list[dict[str, Any]], path: tuple[str, ...]
    ) -> list[Finding]:
        """oneOf/anyOf: a branch without shape errors wins (fewest limit errors first); otherwise
        report the branch with the fewest shape errors, which is normally the intended one."""
        scored = []
        for branch in branches:
            found: list[Finding] = []
            self._validate(value, branch, path, found, closed=True)
            shape = [f for f in found if f.kind == "shape"]
            wrong_type = any(f.path == path for f in shape)
            wrong_discriminator = any(f.path == (*path, "type") for f in shape)
            scored.append((wrong_type, wrong_discriminator, len(shape), len(found), found))
        scored.sort(key=lambda s: s[:4])
        return scored[0][4]
