"""Logging while the console runs: the log goes to a file, the conversation stays clean.

On a terminal stderr and stdout share one screen, so an INFO line about a daily or a contest
would land in the middle of a question. In console mode the root logger's handlers keep only
errors (our own bugs, which the person should see), and everything at the configured level goes
to `studybot.log` in the data directory, rotated so it cannot grow without bound. On a full
disk the lines that cannot be written are dropped: Python's logging would print a "Logging
error" traceback on the screen for each one (the person is told of the full disk in the chat).
"""

from __future__ import annotations

import logging
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

LOG_FILE = "studybot.log"
SCREEN_LEVEL = logging.ERROR
FALLBACK_LEVEL = logging.WARNING  # no log file could be opened: keep warnings on the screen


class LogFile(RotatingFileHandler):
    """The rotated log file, quiet when the disk refuses a line (full, or failing)."""

    def flush(self) -> None:
        try:
            super().flush()
        except OSError:  # what was buffered is dropped; the next line tries again
            pass

    def close(self) -> None:
        try:
            super().close()
        except OSError:  # closing flushes what the full disk refused
            pass

    def handleError(self, record: logging.LogRecord) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handleError(record)


def log_to_file(data_dir: Path) -> Path | None:
    """Send the log to data_dir/studybot.log; return its path, or None if it cannot be written."""
    root = logging.getLogger()
    screen = list(root.handlers)
    path = data_dir / LOG_FILE
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        handler = LogFile(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    except OSError:  # a read-only or missing data directory is reported by start-up itself
        for existing in screen:
            existing.setLevel(max(existing.level, FALLBACK_LEVEL))
        return None
    if screen:  # the same format and filters (token redaction) as the screen's
        handler.setFormatter(screen[0].formatter)
        for log_filter in screen[0].filters:
            handler.addFilter(log_filter)
    for existing in screen:
        existing.setLevel(max(existing.level, SCREEN_LEVEL))
    root.addHandler(handler)
    return path
