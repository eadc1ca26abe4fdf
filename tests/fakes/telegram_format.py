"""Telegram's parse_mode for the fake server: turn HTML or MarkdownV2 into plain text plus
MessageEntity dicts, rejecting what Telegram rejects ("can't parse entities: ...")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SIMPLE_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline",
    "ins": "underline", "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "tg-spoiler": "spoiler", "code": "code", "pre": "pre", "blockquote": "blockquote",
}
SUPPORTED_TAGS = frozenset(SIMPLE_TAGS) | {"span", "a", "tg-emoji", "tg-time"}
MD_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")

_HTML_ENTITY_RE = re.compile(r"&(?:(lt|gt|amp|quot)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_TAG_NAME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*")
_ATTR_RE = re.compile(r"""\s*([a-zA-Z][a-zA-Z0-9-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")


class EntityParseError(ValueError):
    """The text is not valid for its parse_mode; str() is Telegram's reason."""


class UnsupportedParseMode(ValueError):
    """parse_mode is none of HTML, MarkdownV2, Markdown."""


@dataclass
class FormattedText:
    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


class _Builder:
    """Collects output text and entities with UTF-16 offsets, as Telegram reports them."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.entities: list[dict[str, Any]] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def entity(self, kind: str, start: int, **extra: Any) -> None:
        if self.pos > start:
            self.entities.append({"type": kind, "offset": start, "length": self.pos - start, **extra})

    def result(self) -> FormattedText:
        return _strip(FormattedText("".join(self.parts), self.entities))


def _strip(formatted: FormattedText) -> FormattedText:
    """Telegram trims surrounding whitespace of a message and moves entities along."""
    text = formatted.text
    lead = utf16_len(text) - utf16_len(text.lstrip())
    stripped = text.strip()
    end = utf16_len(stripped)
    entities = []
    for ent in formatted.entities:
        start = max(ent["offset"] - lead, 0)
        stop = min(ent["offset"] + ent["length"] - lead, end)
        if stop > start:
            entities.append({**ent, "offset": start, "length": stop - start})
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return FormattedText(stripped, entities)


def parse_html(source: str) -> FormattedText:
    out = _Builder()
    stack: list[tuple[str, dict[str, str], int]] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch == "&":
            match = _HTML_ENTITY_RE.match(source, i)
            if not match:
                raise EntityParseError(
                    f"unescaped \"&\" at byte offset {_byte_offset(source, i)}; write &amp;"
                )
            named, dec, hexa = match.groups()
            out.add(_NAMED[named] if named else chr(int(dec) if dec else int(hexa, 16)))
            i = match.end()
        elif ch != "<":
            out.add(ch)
            i += 1
        elif source.startswith("</", i):
            i = _close_tag(source, i, stack, out)
        else:
            i = _open_tag(source, i, stack, out)
    if stack:
        raise EntityParseError(
            f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"'
        )
    return out.result()


def _open_tag(source: str, i: int, stack: list, out: _Builder) -> int:
    offset = _byte_offset(source, i)
    match = _TAG_NAME_RE.match(source, i + 1)
    name = match.group(0).lower() if match else ""
    if name not in SUPPORTED_TAGS:
        raise EntityParseError(f'Unsupported start tag "{name}" at byte offset {offset}')
    j = match.end()
    attrs: dict[str, str] = {}
    while True:
        if j >= len(source):
            raise EntityParseError(f"Unclosed start tag at byte offset {offset}")
        if source[j] == ">":
            break
        attr = _ATTR_RE.match(source, j)
        if not attr or attr.end() == j:
            if source[j].isspace():
                j += 1
                continue
            raise EntityParseError(
                f'Unexpected character in tag "{name}" at byte offset {_byte_offset(source, j)}'
            )
        value = next((v for v in attr.groups()[1:] if v is not None), "")
        attrs[attr.group(1).lower()] = _HTML_ENTITY_RE.sub(
            lambda m: _NAMED.get(m.group(1) or "", m.group(0)), value
        )
        j = attr.end()
    if name == "span" and attrs.get("class") != "tg-spoiler":
        raise EntityParseError('Tag "span" must have class "tg-spoiler"')
    if name == "tg-emoji" and not attrs.get("emoji-id"):
        raise EntityParseError(f'Tag "tg-emoji" must have attribute "emoji-id" at {offset}')
    stack.append((name, attrs, out.pos))
    return j + 1


def _close_tag(source: str, i: int, stack: list, out: _Builder) -> int:
    offset = _byte_offset(source, i)
    end = source.find(">", i)
    if end < 0:
        raise EntityParseError(f"Unclosed end tag at byte offset {offset}")
    name = source[i + 2 : end].strip().lower()
    if not stack:
        raise EntityParseError(f"Unexpected end tag at byte offset {offset}")
    open_name, attrs, start = stack.pop()
    if open_name != name:
        raise EntityParseError(
            f'Unmatched end tag at byte offset {offset}, expected "</{open_name}>", '
            f'found "</{name}>"'
        )
    language = attrs.get("class", "")
    if name == "code" and stack and stack[-1][0] == "pre" and language.startswith("language-"):
        stack[-1][1]["language"] = language.removeprefix("language-")
    elif name == "a":
        if attrs.get("href"):
            out.entity("text_link", start, url=attrs["href"])
    elif name == "pre" and attrs.get("language"):
        out.entity("pre", start, language=attrs["language"])
    elif name == "blockquote" and "expandable" in attrs:
        out.entity("expandable_blockquote", start)
    elif name == "tg-emoji":
        out.entity("custom_emoji", start, custom_emoji_id=attrs["emoji-id"])
    elif name == "tg-time":
        extra = {"unix_time": int(attrs["unix"])} if attrs.get("unix", "").isdigit() else {}
        out.entity("date_time", start, **extra)
    else:
        out.entity(SIMPLE_TAGS.get(name, "spoiler"), start)
    return end + 1


# "__" is always underline, as Telegram documents for the italic/underline ambiguity.
_MD_MARKERS = (
    ("```", "pre"), ("`", "code"), ("__", "underline"), ("_", "italic"), ("*", "bold"),
    ("~", "strikethrough"), ("||", "spoiler"), ("![", "custom_emoji"), ("[", "text_link"),
)


def parse_markdown_v2(source: str) -> FormattedText:
    """MarkdownV2 as Telegram documents it; blockquote markers are accepted but not reported."""
    out = _Builder()
    stack: list[tuple[str, int, int]] = []  # (entity type, output start, source index)
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        top = stack[-1][0] if stack else None
        if ch == "\\" and i + 1 < n and 0 < ord(source[i + 1]) <= 126:
            out.add(source[i + 1])
            i += 2
            continue
        if top in ("code", "pre"):
            closer = "`" if top == "code" else "```"
            if source.startswith(closer, i):
                out.entity(top, stack.pop()[1])
                i += len(closer)
            else:
                out.add(ch)
                i += 1
            continue
        if ch not in MD_RESERVED:
            out.add(ch)
            i += 1
            continue
        line_start = i == 0 or source[i - 1] == "\n"
        if line_start and (ch == ">" or source.startswith("**>", i)):
            i += 1 if ch == ">" else 3
            continue
        if ch == "]" and top in ("text_link", "custom_emoji"):
            start = stack.pop()[1]
            url, i = _md_url(source, i + 1)
            if top == "text_link":
                out.entity(top, start, url=url)
            else:
                out.entity(top, start, custom_emoji_id=url.rpartition("id=")[2])
            continue
        kind, width = next(((k, len(m)) for m, k in _MD_MARKERS if source.startswith(m, i)),
                           (None, 0))
        if kind == "spoiler" and top != "spoiler" and _ends_quote_line(source, i + 2):
            i += 2  # the expandable-blockquote mark
            continue
        if kind is None:
            raise EntityParseError(
                f"Character '{ch}' is reserved and must be escaped with the preceding '\\'"
            )
        i += width
        if kind == top:
            out.entity(kind, stack.pop()[1])
            continue
        if kind == "pre":
            newline = source.find("\n", i)
            if newline >= 0 and re.fullmatch(r"[\w+#-]*", source[i:newline]):
                i = newline + 1
        stack.append((kind, out.pos, i))
    if stack:
        kind, _, where = stack[-1]
        raise EntityParseError(
            f"Can't find end of {kind.replace('_', ' ').title()} entity at byte offset "
            f"{_byte_offset(source, where)}"
        )
    return out.result()


def _ends_quote_line(source: str, i: int) -> bool:
    line = source[source.rfind("\n", 0, i) + 1 :]
    return (i == len(source) or source[i] == "\n") and line.startswith((">", "**>"))


def _md_url(source: str, i: int) -> tuple[str, int]:
    if not source.startswith("(", i):
        return "", i
    chars: list[str] = []
    j = i + 1
    while j < len(source):
        if source[j] == "\\" and j + 1 < len(source):
            chars.append(source[j + 1])
            j += 2
            continue
        if source[j] == ")":
            return "".join(chars), j + 1
        chars.append(source[j])
        j += 1
    raise EntityParseError(f"Can't find end of a URL at byte offset {_byte_offset(source, i)}")


def format_text(text: str, parse_mode: str | None) -> FormattedText:
    """Apply ``parse_mode`` (None, HTML, MarkdownV2, Markdown) like Telegram does."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode in ("", "markdown"):  # legacy Markdown is not modelled: its text is kept as sent
        return _strip(FormattedText(text))
    raise UnsupportedParseMode(parse_mode)
