"""Fitting the console's output to a terminal: lines wrapped by display width.

Width is measured in terminal cells (wcwidth), so a line of Chinese, where each character takes
two cells and there are no spaces to break at, wraps where the terminal would cut it, not at
twice the width. Output to a pipe is left unwrapped: scripts and tests search it for whole
sentences, and a reader of a log file has their own window.
"""

from __future__ import annotations

import re
import shutil

import wcwidth

MIN_WIDTH = 20  # narrower than this, wrapping makes things worse, not better
# Unicode line breaking may break after a slash ("and/or"), which cut "/help" into "/" at the end
# of one line and "help" at the start of the next. A command's slash is wrapped as a letter
# (this stand-in, one cell wide) so the command moves to the next line whole.
_COMMAND_SLASH = re.compile(r"(?<![\w/])/(?=[a-z])")
_SLASH_STAND_IN = "\u01c2"
# A list marker at the start of a line ("• ", "A. ", "1. ", "🥇 1. "): continuation lines are
# indented to the text after it.
_MARKER = re.compile(r"^\s*(?:[•\-*]|[A-Z][.、]|\d+[.)、]|[🥇🥈🥉] \d+\.)\s+")


def terminal_width() -> int:
    return shutil.get_terminal_size().columns


def wrap(text: str, width: int) -> str:
    """Wrap each line of `text` to `width` cells; blank lines and short lines stay as they are."""
    if width < MIN_WIDTH:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if wcwidth.width(line) <= width:
            out.append(line)
            continue
        marker = _MARKER.match(line)
        indent = " " * wcwidth.width(marker.group()) if marker else ""
        lead = line[: len(line) - len(line.lstrip())]
        if not marker:
            indent = lead
        kept = (
            line.lstrip() if _SLASH_STAND_IN in line else _COMMAND_SLASH.sub(_SLASH_STAND_IN, line.lstrip())
        )
        lines = wcwidth.wrap(kept, width, initial_indent=lead, subsequent_indent=indent) or [line]
        out += [part.replace(_SLASH_STAND_IN, "/") for part in lines]
    return "\n".join(out)
