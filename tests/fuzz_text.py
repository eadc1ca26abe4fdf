"""Random text for the platform fuzz tests: any valid Unicode, the troublesome characters often."""

from __future__ import annotations

import random


def unicode_text(rng: random.Random, spice: str, longest: int = 60) -> str:
    """Up to `longest` characters: a third from `spice` (controls, bidi marks, full-width digits,
    the bot's own words), a third printable ASCII, the rest any code point but a lone surrogate
    (neither platform sends one)."""
    out = []
    for _ in range(rng.randint(1, longest)):
        roll = rng.random()
        if roll < 0.3:
            out.append(rng.choice(spice))
        elif roll < 0.6:
            out.append(chr(rng.randint(0x20, 0x7E)))
        else:
            point = rng.randint(0xA0, 0x10FFFF)
            out.append(chr(point) if not 0xD800 <= point <= 0xDFFF else "?")
    return "".join(out)
