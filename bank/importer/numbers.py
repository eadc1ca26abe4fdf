"""Numbers a source gives (a question's number, points, a tolerance), read so that anything a
file holds — `inf`, `nan`, `1e400`, 300 digits — is either a usable number or None, never an
exception or a value the checker or the database would refuse."""

from __future__ import annotations

import math

__all__ = ["MAX_NUMBER", "finite_number", "whole_number"]

MAX_NUMBER = 1_000_000  # question numbers above this are a damaged cell, not a paper's


def finite_number(text: str) -> float | None:
    """The finite number `text` spells, else None."""
    try:
        value = float(text)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def whole_number(text: str) -> int | None:
    """A question number: a whole number from 1 to MAX_NUMBER (`12`, `12.0`), else None."""
    value = finite_number(text)
    if value is None or not value.is_integer() or not 1 <= value <= MAX_NUMBER:
        return None
    return int(value)
