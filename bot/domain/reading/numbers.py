"""Reading a typed number: Arabic in the spellings people use (1,000 · 5e-4 · 5×10⁻⁴ · 1/2) and
Chinese numerals (二, 两, 十五, 一百零五, 两千, 二〇二四)."""

from __future__ import annotations

import math
import re

from bot.domain.reading.folding import normalize_text

__all__ = ["chinese_number", "numbers_close", "parse_folded", "parse_number"]

# Comma grouping is read as thousands only in its unambiguous shape: a first group of 1-3 digits
# not starting with 0, then groups of exactly three ("1,000", "12,345.6"). "1,5" or "0,001" are
# not numbers here (they stay text), since a comma may be a decimal mark or a list separator.
_PLAIN = r"(?:[1-9]\d{0,2}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+"
_POWER = r"10(?:\^|\*\*)(?:(?P<{0}>[+-]?\d+)|\((?P<{0}p>[+-]?\d+)\)|\{{(?P<{0}b>[+-]?\d+)\}})"
_TIMES = "x*×·∙⋅∗✕"
_NUMBER = re.compile(
    rf"(?P<sign>[+-]?)"
    rf"(?:(?P<mant>{_PLAIN})(?:e(?P<e>[+-]?\d+)|[{_TIMES}]{_POWER.format('p')})?"
    rf"|{_POWER.format('q')})"
    r"%?"
)
_FRACTION_RE = re.compile(r"(?P<sign>[+-]?)(?P<num>\d+(?:\.\d+)?)/(?P<den>\d+(?:\.\d+)?)%?")


def parse_folded(s: str) -> float | None:
    """parse_number for text already folded by normalize_text."""
    m = _NUMBER.fullmatch(s)
    if m:
        groups = m.groupdict()
        mantissa = (groups["mant"] or "1").replace(",", "")
        exponent = next((groups[k] for k in ("e", "p", "pp", "pb", "q", "qp", "qb") if groups[k]), "0")
        # float() of the assembled string, not mantissa * 10**exponent: exact, and a huge
        # exponent gives inf instantly instead of building a huge int.
        value = float(f"{groups['sign']}{mantissa}e{exponent}")
    elif f := _FRACTION_RE.fullmatch(s):
        denominator = float(f["den"])
        if denominator == 0:
            return None
        value = float(f["sign"] + f["num"]) / denominator
    else:
        return None
    return value if math.isfinite(value) else None


def parse_number(s: str) -> float | None:
    """Read s as one number, or None if it is anything else.

    Accepts what normalize_text folds (full-width digits, − minus, trailing 。), a leading +,
    decimals, e-notation, m×10^n / m*10^n / m·10^n / mx10^n / m×10ⁿ / 10^n, a/b fractions and
    thousands commas (see above). A trailing % is ignored, not divided out: "3.125%" reads as
    3.125 (bot.domain.reading.quantities gives the % its meaning). Chinese numerals are not read here.
    """
    return parse_folded(normalize_text(s))


def numbers_close(a: float, b: float) -> bool:
    # rel_tol alone already makes 0 equal only to 0 (and -0), which is the intended zero rule.
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


# --- Chinese numerals ---------------------------------------------------------------------------

_DIGITS = {"零": 0, "〇": 0, "两": 2} | {c: n for n, c in enumerate("一二三四五六七八九", 1)}
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = {"万": 10**4, "亿": 10**8}
CHINESE_NUMERAL_CHARS = "".join(_DIGITS) + "".join(_SMALL_UNITS) + "".join(_BIG_UNITS)
# Digit-by-digit readings (二〇二四 = 2024) need three digits: 一一 ("one by one") is a word.
_MIN_POSITIONAL_DIGITS = 3


def chinese_number(s: str) -> int | None:
    """The integer a Chinese numeral spells, or None.

    Hand-written rather than cn2an: that library costs a quarter second at import and reads
    forms refused here on purpose. 百, 千, 万 and 亿 count only after a digit (一百, 两千):
    alone they start words (百度, 百科, 千万, 万一). 两 counts only before a unit or alone
    (两千, 两), not as a last digit (十两 is a weight). 十 may lead (十五 = 15). A digit right
    after 百/千/万/亿 is refused (一百一, 三万五 mean 110 and 35000 in speech).
    """
    if not s or s[0] in "百千万亿" or any(c not in CHINESE_NUMERAL_CHARS for c in s):
        return None
    if s in ("零", "〇"):
        return 0
    if all(c in _DIGITS and c != "两" for c in s):
        if len(s) < _MIN_POSITIONAL_DIGITS:
            return None if len(s) > 1 else _DIGITS[s]
        return int("".join(str(_DIGITS[c]) for c in s))
    total = section = 0
    digit: int | None = None
    last_digit_char = ""
    for c in s:
        if c in ("零", "〇"):
            if digit is not None:
                return None
        elif c in _DIGITS:
            if digit is not None:
                return None
            digit, last_digit_char = _DIGITS[c], c
        elif c in _SMALL_UNITS:
            if digit is None and not (c == "十" and section == 0):
                return None
            section += (1 if digit is None else digit) * _SMALL_UNITS[c]
            digit = None
        else:
            section += digit or 0
            digit = None
            if section == 0:
                return None
            total += section * _BIG_UNITS[c]
            section = 0
    if digit is not None and last_digit_char == "两" and len(s) > 1:
        return None
    if digit is not None and len(s) > 1 and s[-2] in "百千万亿":
        return None  # 一百一 and 三万五 are said for 110 and 35000: too loose to read
    return total + section + (digit or 0)
