"""Typed command arguments: what each kind accepts, read from text once for every platform.

A platform with typed options (Discord) hands over strings and numbers; a text platform
(Telegram, the console) hands over words. Both end in `Arg.read`, so a bad value gets the same
localized sentence everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import time
from enum import StrEnum
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.daily_times import parse_duration, parse_local_time
from bot.i18n import LANGUAGES, match_language, t
from bot.model import QuestionType
from bot.question_types import TYPES, type_for_word
from bot.quiz_settings import QuizError


class ArgKind(StrEnum):
    INT = "int"  # a whole number within [minimum, maximum]
    CHOICE = "choice"  # one of `choices` (values or their aliases)
    TIME = "time"  # a time of day, HH:MM (or HH:MM:SS)
    DURATION = "duration"  # 12h, 30m, 90s
    TIMEZONE = "timezone"  # an IANA zone name
    LANGUAGE = "language"  # a catalog language (zh-CN, en, …)
    QTYPE = "qtype"  # a question type, by its id or a Chinese name
    WORD = "word"  # one word (a tag, a bank id): checked by the use case
    TEXT = "text"  # the rest of the line
    USER = "user"  # another member (platforms with a user picker only)
    # A file sent with the command (bot.attachments.Attachment). Discord: an attachment option;
    # Telegram: the document the command is the caption of; the console: the rest of the line,
    # a path on this machine, opened by the adapter (Application.run_text's `open_file`).
    FILE = "file"


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label_key: str  # catalog key of what a menu shows
    aliases: tuple[str, ...] = ()


# The words a person may type for a question type, besides its id: each type's module says
# (bot/question_types), and the importers read the same words.
QTYPE_WORDS: dict[QuestionType, tuple[str, ...]] = {qtype: rules.words for qtype, rules in TYPES.items()}


_CLAIMS = {
    ArgKind.INT: re.compile(r"[+-]?\d+(\.\d*)?"),
    ArgKind.TIME: re.compile(r"\d{1,2}[:：]\d{1,2}"),
    ArgKind.DURATION: re.compile(r"\d+(\.\d+)?\s*[a-z]+", re.IGNORECASE),
    ArgKind.TIMEZONE: re.compile(r"[A-Za-z_]+/[A-Za-z_/+-]+"),
}


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of a command: its name and description (catalog keys), kind and bounds."""

    name: str  # the id use cases receive it under
    kind: ArgKind
    required: bool = False
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Choice, ...] = field(default=())

    @property
    def name_key(self) -> str:
        return f"cmd.opt.{self.name}.name"

    @property
    def desc_key(self) -> str:
        return f"cmd.opt.{self.name}.desc"

    def read(self, raw: object) -> object:
        """The typed value of `raw`, or QuizError("error.bad_arg") naming the argument. A FILE
        argument takes a platform's attachment as it is, or the words naming a file."""
        if self.kind is ArgKind.FILE and not isinstance(raw, str):
            return raw
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
        if self.kind is ArgKind.LANGUAGE:
            return self._language(text)
        if self.kind is ArgKind.QTYPE:
            return self._qtype(text)
        if not text:
            raise self._error("arg.empty")
        return text

    def claims(self, text: str) -> bool:
        """Whether `text` is plainly meant for this kind even when its value is wrong (a number
        for a number, HH:MM for a time), so the parser names this argument instead of trying the
        next optional one."""
        pattern = _CLAIMS.get(self.kind)
        return pattern is not None and pattern.fullmatch(text.strip()) is not None

    # ------------------------------------------------------------ kinds

    def _int(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        low, high = self.minimum, self.maximum
        if value is None or (low is not None and value < low) or (high is not None and value > high):
            raise self._error("arg.int", low="-∞" if low is None else low, high="∞" if high is None else high)
        return value

    def _choice(self, text: str) -> str:
        folded = text.casefold()
        for choice in self.choices:
            if folded == choice.value.casefold() or folded in (a.casefold() for a in choice.aliases):
                return choice.value
        raise self._error("arg.choice", choices=" | ".join(c.value for c in self.choices))

    def _timezone(self, text: str) -> str:
        try:
            ZoneInfo(text)
        except (ZoneInfoNotFoundError, ValueError):
            raise self._error("arg.timezone") from None
        return text

    def _language(self, text: str) -> str:
        language = match_language(text)
        if language is None:
            raise self._error("arg.choice", choices=" | ".join(LANGUAGES))
        return language

    def _qtype(self, text: str) -> QuestionType:
        qtype = type_for_word(text)
        if qtype is None:
            raise self._error("arg.choice", choices=" | ".join(q.value for q in QuestionType))
        return qtype

    def _parsed(self, text: str, parse: Callable[[], object], key: str) -> object:
        try:
            return parse()
        except ValueError:
            raise self._error(key) from None

    def _error(self, key: str, **params: object) -> ArgumentError:
        return ArgumentError(self, key, **params)


class ArgumentError(QuizError):
    """A value an argument does not accept: rendered as "bad <argument>: <why>", with the
    command's usage once the parser knows which command it was."""

    def __init__(self, arg: Arg, detail_key: str, **params: object) -> None:
        super().__init__("error.bad_arg", **params)
        self.arg = arg
        self.detail_key = detail_key
        self.usage: Callable[[str], str] | None = None

    def render(self, language: str) -> str:
        params = dict(self.params)
        if self.detail_key == "arg.choice" and self.arg.kind is ArgKind.CHOICE and self.arg.choices:
            # In the chat's words when each choice's name there is a word it takes (粗心 | 记错 …);
            # else the values, one kind of word for the whole list.
            words = [_typed_word(c, language) for c in self.arg.choices]
            if all(w is not None for w in words):
                params["choices"] = " | ".join(w for w in words if w is not None)
        detail = t(language, self.detail_key, **params)
        text = t(language, "error.bad_arg", arg=t(language, self.arg.name_key), detail=detail)
        if self.usage is not None:
            text += "\n" + t(language, "error.usage", usage=self.usage(language))
        return text


def _typed_word(choice: Choice, language: str) -> str | None:
    """`choice`'s name in the chat's language when it is also a word the choice takes (粗心 in a
    Chinese chat), else None."""
    label = t(language, choice.label_key)
    typed = label.casefold()
    known = typed == choice.value.casefold() or typed in (a.casefold() for a in choice.aliases)
    return label if known else None


def _time_of_day(value: time) -> str:
    """HH:MM, or HH:MM:SS when seconds were given (a daily set to the second, as tests do)."""
    return value.strftime("%H:%M:%S" if value.second else "%H:%M")
