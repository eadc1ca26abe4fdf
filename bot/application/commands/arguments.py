"""Typed command arguments: what each kind accepts, read from text once for every platform.

A platform with typed options (Discord) hands over strings and numbers; a text platform
(Telegram, the console) hands over words. Both end in `Arg.read`, so a bad value gets the same
localized sentence everywhere.

Reading is total: any string is either a valid value of its kind or an `ArgumentError` naming the
argument with a catalog sentence — never another exception (tests/test_argument_properties.py).
Numbers have both bounds, time zones come from the tz database's own list (a folder such as
`America/Argentina` or `Etc`, or a name longer than a file name may be, is a refusal, not an
`OSError` out of `ZoneInfo`), durations are bounded before they are multiplied out, and words
and free text have a length and no control characters (nothing a store or a platform refuses).
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
import zoneinfo
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import time
from enum import StrEnum

from bot.application.quiz_settings import QuizError
from bot.domain.daily_times import parse_duration, parse_local_time
from bot.domain.question_types import TYPES, type_for_word
from bot.domain.questions import QuestionType
from bot.domain.reading.day_values import MINUTES_HIGH, MINUTES_LOW, parse_date, parse_minutes
from bot.locales.i18n import LANGUAGES, catalog, match_language, normalize_language, t


class ArgKind(StrEnum):
    INT = "int"  # a whole number within [minimum, maximum]
    CHOICE = "choice"  # one of `choices` (values or their aliases)
    TIME = "time"  # a time of day, HH:MM (or HH:MM:SS)
    DURATION = "duration"  # 12h, 30m, 90s
    DATE = "date"  # a calendar date, year first: 2026-12-20, 2026年12月20日
    MINUTES = "minutes"  # a time per day: 30min, 1.5h, 90 (minutes), between 5 min and 16 h
    TIMEZONE = "timezone"  # an IANA zone name, or a common zone's name in Chinese (ZONE_WORDS)
    LANGUAGE = "language"  # a catalog language (zh-CN, en, …)
    QTYPE = "qtype"  # a question type, by its id or a Chinese name
    WORD = "word"  # one word (a tag, a bank id): checked by the use case
    TEXT = "text"  # the rest of the line
    USER = "user"  # another member (platforms with a user picker only)
    # A file sent with the command (bot.application.attachments.Attachment). Discord: an attachment option;
    # Telegram: the document the command is the caption of; the console: the rest of the line,
    # a path on this machine, opened by the adapter (Application.run_text's `open_file`).
    FILE = "file"


# The longest word and text when the catalog names none: a tag or bank id is short; free text
# fits in one Telegram message (4096) and one Discord option (6000) with room to spare.
WORD_MAX, TEXT_MAX = 64, 2000
# The largest whole number any argument takes when its entry forgot a maximum: Discord's integer
# options stop at 2**53, SQLite's INTEGER at 2**63 - 1.
INT_CEILING = 2**53 - 1


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label_key: str  # catalog key of what a menu shows
    aliases: tuple[str, ...] = ()

    @property
    def word_key(self) -> str:
        """Catalog key of the word a person types for it in each language (cmd.word.<name>):
        what a choice list in that language shows, and one more word the parser accepts."""
        return "cmd.word." + self.label_key.rsplit(".", 1)[-1]

    def word(self, language: str) -> str:
        """The word for this choice in `language` (its value while the catalog has none)."""
        template = catalog(normalize_language(language)).messages.get(self.word_key)
        return template if isinstance(template, str) and template else self.value

    def words(self) -> Iterator[str]:
        """Every word that selects it: its value, aliases, and its word and label in every language."""
        yield self.value
        yield from self.aliases
        for language in LANGUAGES:
            yield self.word(language)
            label = catalog(language).messages.get(self.label_key)
            if isinstance(label, str):
                yield label


# The words a person may type for a question type, besides its id: each type's module says
# (bot/domain/question_types), and the importers read the same words.
QTYPE_WORDS: dict[QuestionType, tuple[str, ...]] = {qtype: rules.words for qtype, rules in TYPES.items()}


_CLAIMS = {
    ArgKind.INT: re.compile(r"[+-]?\d+(\.\d*)?"),
    ArgKind.TIME: re.compile(r"\d{1,2}[:：]\d{1,2}"),
    ArgKind.DURATION: re.compile(r"\d+(\.\d+)?\s*[a-z]*", re.IGNORECASE),  # a bare number: hours
    ArgKind.TIMEZONE: re.compile(r"[A-Za-z_]+/[A-Za-z0-9_/+-]+"),
    ArgKind.DATE: re.compile(r"\d{4}\s*[-/.年].*"),
    ArgKind.MINUTES: re.compile(
        r"\d+(\.\d+)?\s*(m|min|mins|minutes?|h|hrs?|hours?|分|分钟|分鐘|小时|小時)?", re.IGNORECASE
    ),
}
# What an IANA name is made of (and how long one can be): anything else is no zone, and is not
# even looked up.
_ZONE_NAME = re.compile(r"[A-Za-z0-9_+\-/]{1,64}")
# Names in the tz database's list that are not zones a chat may choose: the host's own zone.
_NOT_ZONES = frozenset({"localtime", "posixrules"})
# What people call the common zones in their own words (simplified and traditional, and a few
# English city names that are no IANA name), read before the tz database's names: /tz 上海.
ZONE_WORDS: dict[str, str] = {
    word: zone
    for zone, words in {
        "Asia/Shanghai": ("北京", "上海", "北京时间", "北京時間", "中国", "中國", "中国时间", "中國時間",
                          "东八区", "東八區", "beijing", "shanghai", "china"),
        "Asia/Taipei": ("台北", "臺北", "台湾", "台灣", "臺灣", "台北时间", "台北時間", "taipei", "taiwan"),
        "Asia/Hong_Kong": ("香港", "香港时间", "香港時間", "hongkong", "hong_kong"),
        "Asia/Macau": ("澳门", "澳門"),
        "Asia/Tokyo": ("东京", "東京", "日本", "tokyo", "japan"),
        "Asia/Seoul": ("首尔", "首爾", "韩国", "韓國", "seoul", "korea"),
        "Asia/Singapore": ("新加坡", "singapore"),
        "Asia/Kuala_Lumpur": ("吉隆坡", "马来西亚", "馬來西亞"),
        "Europe/London": ("伦敦", "倫敦", "英国", "英國", "london"),
        "Europe/Paris": ("巴黎", "paris"),
        "Europe/Berlin": ("柏林", "德国", "德國", "berlin"),
        "America/New_York": ("纽约", "紐約", "newyork", "new_york"),
        "America/Los_Angeles": ("洛杉矶", "洛杉磯", "旧金山", "舊金山", "硅谷", "矽谷", "los_angeles"),
        "America/Vancouver": ("温哥华", "溫哥華"),
        "America/Toronto": ("多伦多", "多倫多"),
        "Australia/Sydney": ("悉尼", "雪梨"),
        "UTC": ("协调世界时", "協調世界時", "世界时", "世界時", "格林尼治时间", "格林威治時間"),
    }.items()
    for word in words
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of a command: its name and description (catalog keys), kind and bounds."""

    name: str  # the id use cases receive it under
    kind: ArgKind
    required: bool = False
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Choice, ...] = field(default=())
    max_length: int | None = None  # WORD and TEXT: the most characters taken (WORD_MAX, TEXT_MAX)
    # INT: a question's number. Its bounds only keep out what a store cannot hold: the use case
    # checks it against the bank or the paper, whose own range its refusal names (第 0 题不在试卷里：
    # 本卷 1–62 题), and /help says "a question number", not a range no bank has.
    item: bool = False

    @property
    def name_key(self) -> str:
        return f"cmd.opt.{self.name}.name"

    @property
    def desc_key(self) -> str:
        return f"cmd.opt.{self.name}.desc"

    @property
    def low(self) -> int:
        return self.minimum if self.minimum is not None else -INT_CEILING

    @property
    def high(self) -> int:
        return self.maximum if self.maximum is not None else INT_CEILING

    @property
    def longest(self) -> int:
        if self.max_length is not None:
            return self.max_length
        return TEXT_MAX if self.kind in (ArgKind.TEXT, ArgKind.FILE) else WORD_MAX

    def read(self, raw: object) -> object:
        """The typed value of `raw`, or QuizError("error.bad_arg") naming the argument. A FILE
        argument takes a platform's attachment as it is, or the words naming a file."""
        if self.kind is ArgKind.FILE and not isinstance(raw, str):
            return raw
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise self._error("arg.empty")  # nothing a person typed (a platform's odd value)
        text = str(raw).strip()
        if self.kind is ArgKind.INT:
            return self._int(text)
        if self.kind is ArgKind.CHOICE:
            return self._choice(text)
        if self.kind is ArgKind.TIME:
            return self._parsed(text, lambda: _time_of_day(parse_local_time(text)), "arg.time")
        if self.kind is ArgKind.DURATION:
            return self._parsed(text, lambda: parse_duration(text), "arg.duration")
        if self.kind is ArgKind.TIMEZONE:
            return self._timezone(text)
        if self.kind is ArgKind.DATE:
            return self._parsed(text, lambda: parse_date(text), "arg.date")
        if self.kind is ArgKind.MINUTES:
            return self._minutes(text)
        if self.kind is ArgKind.LANGUAGE:
            return self._language(text)
        if self.kind is ArgKind.QTYPE:
            return self._qtype(text)
        return self._text(text)

    def claims(self, text: str) -> bool:
        """Whether `text` is plainly meant for this kind even when its value is wrong (a number
        for a number, HH:MM for a time), so the parser names this argument instead of trying the
        next optional one."""
        pattern = _CLAIMS.get(self.kind)
        return pattern is not None and pattern.fullmatch(text.strip()) is not None

    def choice_words(self, language: str) -> list[str]:
        """What a choice list shows in `language`: the words the parser takes in it."""
        if self.kind is ArgKind.LANGUAGE:
            return list(LANGUAGES)
        if self.kind is ArgKind.QTYPE:
            return [_qtype_choice(q).word(language) for q in QuestionType]
        return [c.word(language) for c in self.choices]

    # ------------------------------------------------------------ kinds

    def _int(self, text: str) -> int:
        low, high = self.low, self.high
        value: int | None = None
        if len(text) <= 24:  # a longer number is out of any bound; int() of 5,000 digits is slow
            try:
                value = int(text)
            except ValueError:
                value = None
        if value is None or not low <= value <= high:
            raise self._error("arg.int", low=low, high=high)
        return value

    def _choice(self, text: str) -> str:
        folded = text.casefold()
        for choice in self.choices:
            if any(folded == word.casefold() for word in choice.words()):
                return choice.value
        raise self._choices_error()

    def _minutes(self, text: str) -> int:
        try:
            return parse_minutes(text)
        except ValueError:
            raise self._error("arg.minutes", low=MINUTES_LOW, high=MINUTES_HIGH // 60) from None

    def _timezone(self, text: str) -> str:
        named = ZONE_WORDS.get(text.casefold())
        if named is not None:  # 上海, 北京时间, 台北
            return named
        zones = _zones()
        if _ZONE_NAME.fullmatch(text) is None:
            raise self._error("arg.timezone")
        if not zones:  # no list of zones on this machine (no tzdata): ask the zone itself
            return self._zone_by_lookup(text)
        found = zones.get(text.casefold())
        if found is not None:
            return found
        near = _near_zone(text, zones)
        if near is not None:
            raise self._error("arg.timezone_near", zone=near)
        raise self._error("arg.timezone")

    def _zone_by_lookup(self, text: str) -> str:
        try:
            zoneinfo.ZoneInfo(text)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):  # a folder, a bad name
            raise self._error("arg.timezone") from None
        return text

    def _language(self, text: str) -> str:
        language = match_language(text) if len(text) <= 32 else None
        if language is None:
            raise self._choices_error()
        return language

    def _qtype(self, text: str) -> QuestionType:
        qtype = type_for_word(text) if len(text) <= 32 else None
        if qtype is None:
            folded = text.casefold()
            named = (q for q in QuestionType if any(folded == w.casefold() for w in _qtype_choice(q).words()))
            qtype = next(named, None)
        if qtype is None:
            raise self._choices_error()
        return qtype

    def _text(self, text: str) -> str:
        if not text:
            raise self._error("arg.empty")
        if len(text) > self.longest:
            raise self._error("arg.too_long", length=self.longest)
        allowed = "\n\t" if self.kind is ArgKind.TEXT else ""
        if any(_unstorable(ch) and ch not in allowed for ch in text):
            raise self._error("arg.bad_characters")
        return text

    def _parsed(self, text: str, parse: Callable[[], object], key: str) -> object:
        try:
            return parse()
        except (ValueError, OverflowError):
            raise self._error(key) from None

    def _choices_error(self) -> ArgumentError:
        return ArgumentError(self, "arg.choice", choices=self.choice_words)

    def _error(self, key: str, **params: object) -> ArgumentError:
        return ArgumentError(self, key, **params)


def _unstorable(ch: str) -> bool:
    """A control character or a lone surrogate: no store or platform takes it as text."""
    return unicodedata.category(ch) in ("Cc", "Cs")


@functools.cache
def _zones() -> dict[str, str]:
    """The tz database's zone names, by their case-folded form."""
    return {name.casefold(): name for name in zoneinfo.available_timezones() - _NOT_ZONES}


def _near_zone(text: str, zones: dict[str, str]) -> str | None:
    """The zone a near miss was meant as: inside a folder that was given (America/Argentina →
    America/Argentina/Buenos_Aires), or the closest spelling (Asia/Shangai → Asia/Shanghai)."""
    folded = text.casefold().rstrip("/")
    inside = sorted(name for key, name in zones.items() if key.startswith(folded + "/"))
    if inside:
        return inside[0]
    close = difflib.get_close_matches(folded, list(zones), n=1, cutoff=0.75)
    return zones[close[0]] if close else None


@functools.cache
def _qtype_choice(qtype: QuestionType) -> Choice:
    return Choice(str(qtype), f"type.{qtype}")


class ArgumentError(QuizError):
    """A value an argument does not accept: rendered as "bad <argument>: <why>", with the
    command's usage once the parser knows which command it was. A choice list is filled in the
    language it is shown in (`choices` is then a function of the language)."""

    def __init__(self, arg: Arg, detail_key: str, **params: object) -> None:
        super().__init__("error.bad_arg", **params)
        self.arg = arg
        self.detail_key = detail_key
        self.usage: Callable[[str], str] | None = None

    def render(self, language: str) -> str:
        params = {k: (v(language) if callable(v) else v) for k, v in self.params.items()}
        choices = params.get("choices")
        if isinstance(choices, list):
            params["choices"] = " | ".join(str(c) for c in choices)
        detail = t(language, self.detail_key, **params)
        text = t(language, "error.bad_arg", arg=t(language, self.arg.name_key), detail=detail)
        if self.usage is not None:
            text += "\n" + t(language, "error.usage", usage=self.usage(language))
        return text



def _time_of_day(value: time) -> str:
    """HH:MM, or HH:MM:SS when seconds were given (a daily set to the second, as tests do)."""
    return value.strftime("%H:%M:%S" if value.second else "%H:%M")
