"""Keeps the bot token out of logs: httpx and PTB log request URLs (`.../bot<token>/getUpdates`).

A filter rewrites every record passing the root logger's handlers and the library loggers,
replacing the token in the message, its arguments, the traceback text and the stack.
"""

from __future__ import annotations

import logging

REDACTED = "<token>"
# Loggers whose records are filtered where they are made, so a handler attached directly to
# them (not only the root's) never sees the token either.
_LIBRARY_PREFIXES = ("httpx", "httpcore", "telegram", "apscheduler", "aiohttp")


class TokenFilter(logging.Filter):
    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def redact(self, text: str) -> str:
        return text.replace(self.token, REDACTED) if self.token else text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.token:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep the raw parts, redacted
            message = f"{record.msg} {record.args}"
        if self.token in message or self.token in str(record.msg):
            record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class Redaction:
    """Installs one TokenFilter on the root handlers and the library loggers; `remove()` undoes it."""

    def __init__(self, token: str) -> None:
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
