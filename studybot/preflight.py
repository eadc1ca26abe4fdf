"""Checks before start-up: token variables spelled nearly right, and whether a console would have
anything to read (stdin closed or /dev/null, as under `docker run` without `-it` or a service)."""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Mapping
from typing import TextIO

from studybot.config import TOKEN_VARIABLES

_PLATFORM_WORDS = {"DISCORD_TOKEN": ("DISCORD",), "TELEGRAM_TOKEN": ("TELEGRAM", "TG_", "TGBOT")}
_BARE = ("TOKEN", "BOT_TOKEN", "API_TOKEN")


def near_misses(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(variable set, variable meant) for each set variable that looks like a token variable
    studybot reads but is not one: TELEGRAM_BOT_TOKEN, discord_token, DISCORD_TOKN, BOT_TOKEN."""
    found: list[tuple[str, str]] = []
    for name, value in sorted(environ.items()):
        if name in TOKEN_VARIABLES or not value.strip():
            continue
        upper = name.upper()
        if upper in _BARE:
            found.append((name, " / ".join(TOKEN_VARIABLES)))
            continue
        for expected, words in _PLATFORM_WORDS.items():
            tokenish = "TOK" in upper and any(word in upper for word in words)
            if tokenish or difflib.get_close_matches(upper, [expected], n=1, cutoff=0.8):
                found.append((name, expected))
                break
    return found


def console_has_no_input(stdin: TextIO | None) -> bool:
    """True when stdin is closed or is /dev/null: a console there would read nothing at all.
    A terminal, a pipe or a file (even an empty one) may carry input, so they are not refused."""
    try:
        fd = stdin.fileno()  # type: ignore[union-attr]
        mode = os.fstat(fd)
    except (AttributeError, OSError, ValueError):
        return True
    if os.isatty(fd) or not stat.S_ISCHR(mode.st_mode):
        return False
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return mode.st_rdev == null.st_rdev
