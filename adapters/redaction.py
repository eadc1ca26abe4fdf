"""Keeps secrets out of every output: log records, tracebacks and error lines.

Two kinds of secret are scrubbed. Known ones (the bot tokens read at start-up, registered with
`add_secret`) are replaced wherever they appear. Unknown ones are found by their shape: a
Telegram bot token (`123456:AA…`), a Discord bot token, and Discord interaction tokens — 15-minute
webhook credentials that discord.py logs at DEBUG in URLs (`/interactions/{id}/{token}/callback`,
`/webhooks/{app_id}/{token}`) and in gateway payloads (`'token': '…'`).

`install_record_factory()` scrubs every log record as it is made; `Redaction.install()` also puts
one filter on every root handler and on the libraries' loggers (for records made before, or by
a factory set later); `install_excepthooks()` redacts uncaught exceptions in the main thread and
in other threads.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import traceback
from types import TracebackType
from typing import Any

REDACTED = "<token>"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Discord REST: interaction callbacks and webhook (follow-up) URLs carry the token in the path
    (re.compile(r"(/(?:interactions|webhooks)/\d+/)[A-Za-z0-9._~%-]{16,}"), r"\1" + REDACTED),
    # Gateway payloads logged as dicts or JSON: an interaction's "token" field
    (re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]+"""), r"\1" + REDACTED),
    # A Telegram bot token anywhere (even under a variable name we do not read)
    (re.compile(r"(?<![0-9])\d{5,}:[A-Za-z0-9_-]{30,}"), REDACTED),
    # The web app's one-time sign-in link, its session cookie, and a Mini App initData's
    # signature (adapters/web): each is a credential while it lasts
    (re.compile(r"(/app/login#)[A-Za-z0-9_-]{20,}"), r"\1" + REDACTED),
    (re.compile(r"(studybot_session=)[A-Za-z0-9_-]{20,}"), r"\1" + REDACTED),
    (re.compile(r"((?:^|[&?#\s'\"]|%26)hash(?:=|%3D))[0-9a-f]{64}", re.IGNORECASE), r"\1" + REDACTED),
    # A Discord bot token anywhere: three base64url parts joined by dots
    (re.compile(r"\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}"), REDACTED),
)
# Loggers whose records are filtered where they are made, so a handler attached directly to
# them (not only the root's) never sees a secret either.
_LIBRARY_PREFIXES = ("httpx", "httpcore", "telegram", "discord", "apscheduler", "aiohttp", "asyncio")
_MIN_SECRET = 6  # shorter values would blank out ordinary words

_known: set[str] = set()


def add_secret(value: str) -> None:
    """Scrub `value` from every output of this process from now on."""
    if value and len(value) >= _MIN_SECRET:
        _known.add(value)


def redact(text: str, extra: tuple[str, ...] = ()) -> str:
    """`text` with every known secret, every `extra` one and every token-shaped string replaced."""
    for secret in sorted(_known.union(s for s in extra if len(s) >= _MIN_SECRET), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class TokenFilter(logging.Filter):
    """Redacts a record's message, arguments, traceback text and stack; `token` is one more
    secret for this filter only (the registered ones always apply)."""

    def __init__(self, token: str = "") -> None:
        super().__init__()
        self.token = token

    def redact(self, text: str) -> str:
        return redact(text, (self.token,) if self.token else ())

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep the raw parts, redacted
            message = f"{record.msg} {record.args}"
        clean = self.redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class Redaction:
    """Installs one TokenFilter on the root handlers and the library loggers; `remove()` undoes it."""

    def __init__(self, token: str = "") -> None:
        self.filter = TokenFilter(token)
        self._targets: list[logging.Handler | logging.Logger] = []

    def install(self) -> None:
        targets: list[logging.Handler | logging.Logger] = list(logging.getLogger().handlers)
        for name in list(logging.root.manager.loggerDict):
            if name.split(".")[0] in _LIBRARY_PREFIXES:
                targets.append(logging.getLogger(name))
        targets += [logging.getLogger(prefix) for prefix in _LIBRARY_PREFIXES]
        for target in targets:
            if self.filter not in target.filters:
                target.addFilter(self.filter)
                self._targets.append(target)

    def remove(self) -> None:
        for target in self._targets:
            target.removeFilter(self.filter)
        self._targets.clear()


def install_record_factory() -> None:
    """Redact every log record where it is made, so a handler added at any time (by a library or
    an adapter) never sees a secret, whatever filters it has."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "redacting", False):
        return
    scrub = TokenFilter()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        scrub.filter(record)
        return record

    factory.redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def format_exception(exc: BaseException) -> str:
    """A traceback as text, redacted."""
    return redact("".join(traceback.format_exception(exc)))


def install_excepthooks() -> None:
    """Uncaught exceptions (main thread and others) are printed redacted."""

    def main_hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        sys.stderr.write(redact("".join(traceback.format_exception(kind, exc, tb))))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        text = "".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback))
        sys.stderr.write(redact(f"Exception in thread {name}:\n{text}"))

    sys.excepthook = main_hook
    threading.excepthook = thread_hook
