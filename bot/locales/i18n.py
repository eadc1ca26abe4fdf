"""The message catalog: every user-facing sentence, one gettext catalog per language.

The catalogs are `bot/locales/<locale>/LC_MESSAGES/studybot.po` (zh_CN, en, zh_TW), keyed:
msgid is the message key, msgstr the sentence with `{name}` placeholders (`str.format`).
They are read with Babel when a language is first used and kept in memory; no compiled `.mo`
is shipped, so nothing can drift from the `.po` files. Adapters and the core look sentences up
with `t(language, key, **params)`; a sentence about a number of things takes `count=N` and is
picked by the language's CLDR plural rule (one msgstr per plural form, `msgid_plural`).

Adding a key (maintainers): add the same msgid to all three `.po` files, e.g.

    msgid "quiz.hint"                    # en/LC_MESSAGES/studybot.po
    msgstr "Hint: {text}"

and `msgstr "提示：{text}"` (zh_CN), `msgstr "提示：{text}"` (zh_TW — a first draft comes from
`opencc.OpenCC("s2twp").convert(zh_CN_sentence)`; read it, OpenCC picks Taiwan software terms).
For a count, give the key a `msgid_plural` (the same key) and `msgstr[0]`, `msgstr[1]` in
English (one, other) and only `msgstr[0]` in Chinese; call it with `count=`. Then run
`python -m bot.locales.check`: it fails on a key missing from a language, different
placeholders, wrong plural forms, or English words left in a Chinese catalog.

Bank text (questions, options, explanations) is simplified Chinese; `bank_text` shows it in
traditional characters for zh-TW chats and `simplified` folds typed answers back for grading.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import opencc
from babel import Locale
from babel.messages.pofile import read_po

DEFAULT_LANGUAGE = "zh-CN"
LANGUAGES = ("zh-CN", "zh-TW", "en")
LOCALES_DIR = Path(__file__).resolve().parent
DOMAIN = "studybot"
_TRADITIONAL_TAGS = frozenset({"tw", "hant", "hk", "mo"})
# CLDR plural categories in the order gettext numbers them (msgstr[0], msgstr[1], ...).
_PLURAL_ORDER = ("zero", "one", "two", "few", "many", "other")


def locale_name(language: str) -> str:
    """The catalog directory of a language: zh-CN → zh_CN."""
    return language.replace("-", "_")


def match_language(code: str | None) -> str | None:
    """The catalog language a language tag asks for (zh, zh-Hans, zh_TW, zh-Hant-HK, en-GB, …);
    None if it asks for one we do not have."""
    if not code:
        return None
    parts = code.strip().lower().replace("_", "-").split("-")
    if parts[0] == "zh":
        return "zh-TW" if _TRADITIONAL_TAGS.intersection(parts[1:]) else "zh-CN"
    if parts[0] == "en":
        return "en"
    return None


def normalize_language(language: str | None) -> str:
    """The catalog language for `language`, the default one when it is none we have."""
    return match_language(language) or DEFAULT_LANGUAGE


@dataclass(frozen=True, slots=True)
class Catalog:
    """One language's sentences: key → template, or key → one template per plural form."""

    language: str
    plural: Locale
    messages: dict[str, str | tuple[str, ...]]

    def plural_index(self, count: int) -> int:
        rule = self.plural.plural_form
        used = [tag for tag in _PLURAL_ORDER if tag in rule.tags or tag == "other"]
        return used.index(rule(count))


def catalog_path(language: str) -> Path:
    return LOCALES_DIR / locale_name(language) / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(path: Path, language: str) -> Catalog:
    with path.open("rb") as f:
        po = read_po(f, locale=locale_name(language), domain=DOMAIN)
    messages: dict[str, str | tuple[str, ...]] = {}
    for message in po:
        if not message.id:
            continue  # the header
        key = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
        if isinstance(message.string, (tuple, list)):
            messages[str(key)] = tuple(str(s) for s in message.string)
        else:
            messages[str(key)] = str(message.string)
    return Catalog(language, Locale.parse(locale_name(language)), messages)


@functools.cache
def catalog(language: str) -> Catalog:
    """The catalog of a known language, read from its `.po` file once."""
    return read_catalog(catalog_path(language), language)


def t(language: str, key: str, /, **params: object) -> str:
    """The sentence `key` in `language` (zh-CN when unknown), with params filled in; for a
    sentence with plural forms, the `count` param (an int) picks the form and fills `{count}`."""
    lang = normalize_language(language)
    messages = catalog(lang)
    template = messages.messages.get(key)
    if template is None and lang != DEFAULT_LANGUAGE:  # a key not translated yet
        messages = catalog(DEFAULT_LANGUAGE)
        template = messages.messages.get(key)
    if template is None:
        raise KeyError(f"message id {key!r} is not in the catalog")
    if isinstance(template, tuple):
        count = params.get("count")
        if not isinstance(count, int):
            raise TypeError(f"message id {key!r} has plural forms: pass count=<int>")
        template = template[min(messages.plural_index(count), len(template) - 1)]
    return template.format(**params) if params else template


def list_separator(language: str) -> str:
    """What a list in a sentence is joined with: 、 in Chinese, ", " in English."""
    return "、" if normalize_language(language).startswith("zh") else ", "


@dataclass(frozen=True, slots=True)
class Listed:
    """A list given as a sentence's param, joined in the language it is shown in (A、B、C in
    Chinese, A, B, C in English): called with the language, as the errors' params are."""

    items: tuple[str, ...]

    def __call__(self, language: str) -> str:
        return list_separator(language).join(self.items) if self.items else "-"


def keys() -> tuple[str, ...]:
    return tuple(catalog(DEFAULT_LANGUAGE).messages)


def format_points(points: float) -> str:
    return f"{points:g}"


@functools.cache
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


# OpenCC's phrase 先尝 (先嚐為快) also takes the 先 of 优先 + 尝试: "優先嚐試"; 嚐試 is never right.
_TRADITIONAL_FIXES = (("嚐試", "嘗試"),)


@functools.lru_cache(maxsize=8192)
def _to_traditional(text: str) -> str:
    out = str(_converter("s2twp").convert(text))
    for wrong, right in _TRADITIONAL_FIXES:
        out = out.replace(wrong, right)
    return out


def bank_text(language: str, text: str) -> str:
    """Bank text (simplified Chinese) as a chat in `language` reads it: traditional for zh-TW."""
    if language != "zh-TW" or not text or text.isascii():
        return text
    return _to_traditional(text)


def simplified(text: str) -> str:
    """A typed answer with traditional characters folded to simplified ones, as the bank has them."""
    if text.isascii():
        return text
    return str(_converter("t2s").convert(text))  # not cached: typed text is anyone's
