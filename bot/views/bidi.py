"""Bidirectional text in user-supplied strings (names, typed answers, tags) shown inside the
bot's own sentences.

A name with U+202E (right-to-left override) or an unclosed embedding would reorder everything
after it on the line — the points, the next names — and a right-to-left name can pull
neighbouring digits into its run. `isolate` removes the explicit direction controls (a name needs
none of them to show its own letters) and wraps what can reorder in a first-strong isolate
(U+2068 … U+2069), so the string is laid out on its own and the text around it is untouched.
Plain left-to-right strings are returned as they are.
"""

from __future__ import annotations

import unicodedata

FSI, PDI = "\u2068", "\u2069"
CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]  # LRE RLE PDF LRO RLO
    + [chr(c) for c in range(0x2066, 0x206A)]  # LRI RLI FSI PDI
    + ["\u200e", "\u200f", "\u061c"]  # LRM RLM ALM
)
_STRIP = {ord(c): None for c in CONTROLS}
_RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})


def needs_isolation(text: str) -> bool:
    if text.isascii():
        return False
    return any(c in CONTROLS or unicodedata.bidirectional(c) in _RIGHT_TO_LEFT for c in text)


def isolate(text: str) -> str:
    """`text` without direction controls, isolated if it can reorder what surrounds it."""
    if not needs_isolation(text):
        return text
    cleaned = text.translate(_STRIP)
    return FSI + cleaned + PDI if cleaned else cleaned
