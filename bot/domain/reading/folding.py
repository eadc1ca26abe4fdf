"""Text folding for comparing typed answers: the form in which 「ReLU。」, "re lu" and ＲｅＬＵ
are one answer (NFKC, casefold, no whitespace, ASCII punctuation, superscripts as ^n)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["drop_spaces", "normalize_text"]

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_SUPERSCRIPT_RUN = re.compile(r"\^?[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
# Applied after NFKC, which already folds full-width forms (，（）：；！？％ ...) to ASCII.
_PUNCT_TO_ASCII = str.maketrans(
    {
        "。": ".",
        "、": ",",
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "「": '"',
        "」": '"',
        "『": '"',
        "』": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "【": "[",
        "】": "]",
        "〔": "[",
        "〕": "]",
        "〖": "[",
        "〗": "]",
        "《": "<",
        "》": ">",
        "〈": "<",
        "〉": ">",
        "−": "-",
        "‐": "-",
        "–": "-",
        "〜": "~",
        "⋯": "...",
    }
)
_TRAILING_PUNCT = ".,;:!?"
_MAX_PASSES = 8


def drop_spaces(s: str) -> str:
    """s without whitespace and without invisible characters (zero-width space, soft hyphen)."""
    return "".join(c for c in s.translate(_INVISIBLE) if not c.isspace())


def _superscripts_to_caret(s: str) -> str:
    return _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group().lstrip("^").translate(_SUPERSCRIPT_DIGITS), s)


def _normalize_pass(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = unicodedata.normalize("NFKC", s.casefold())
    s = drop_spaces(s.translate(_PUNCT_TO_ASCII))
    return s.rstrip(_TRAILING_PUNCT)


def normalize_text(s: str) -> str:
    """Fold a fill answer for comparison: NFKC, casefold, no whitespace, ASCII punctuation,
    no trailing . , ; : ! ?, superscript runs written as ^n (x² -> x^2, 10⁻⁴ -> 10^-4)."""
    # Spaces go before superscripts are rewritten so that "10⁻ ⁴" and "10⁻⁴" agree.
    s = _superscripts_to_caret(drop_spaces(s))
    # Dropping a space can glue a combining mark onto the previous letter, and casefolding can
    # leave text that NFKC changes again, so repeat until nothing moves (keeps it idempotent).
    for _ in range(_MAX_PASSES):
        folded = _normalize_pass(s)
        if folded == s:
            break
        s = folded
    return s
