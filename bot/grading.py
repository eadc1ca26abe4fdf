"""Answer grading: read a learner's raw reply to a question, canonicalise it and score it.

Pure functions only (no I/O, clock or randomness), so every adapter grades the same way.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from bot.model import Question, QuestionType

__all__ = [
    "Grade",
    "InvalidResponse",
    "Verdict",
    "answers_match",
    "canonical_response",
    "grade",
    "normalize_text",
    "parse_number",
    "self_grade",
]


class Verdict(StrEnum):
    CORRECT = "correct"
    PARTIAL = "partial"
    WRONG = "wrong"
    PENDING = "pending"  # short answer awaiting the learner's self-grade


class InvalidResponse(ValueError):
    """The response can't be read as an answer to this question type.

    str(exc) says why in plain English; `reason` is a short machine key:
    empty, no_letter, unreadable, unknown_letter, multiple_letters, not_judge, unknown_level.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Grade:
    verdict: Verdict
    fraction: float  # 0.0, 0.5 or 1.0: share of the question's points earned
    response: str  # canonical form of the answer, to store and to count

    @property
    def is_final(self) -> bool:
        return self.verdict is not Verdict.PENDING


_FRACTION = {Verdict.CORRECT: 1.0, Verdict.PARTIAL: 0.5, Verdict.WRONG: 0.0, Verdict.PENDING: 0.0}


def _grade(verdict: Verdict, response: str) -> Grade:
    return Grade(verdict, _FRACTION[verdict], response)


# --- text normalisation (fill answers) -------------------------------------------------------

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


def _drop_spaces(s: str) -> str:
    return "".join(c for c in s.translate(_INVISIBLE) if not c.isspace())


def _superscripts_to_caret(s: str) -> str:
    return _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group().lstrip("^").translate(_SUPERSCRIPT_DIGITS), s)


def _normalize_pass(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = unicodedata.normalize("NFKC", s.casefold())
    s = _drop_spaces(s.translate(_PUNCT_TO_ASCII))
    return s.rstrip(_TRAILING_PUNCT)


def normalize_text(s: str) -> str:
    """Fold a fill answer for comparison: NFKC, casefold, no whitespace, ASCII punctuation,
    no trailing . , ; : ! ?, superscript runs written as ^n (x² -> x^2, 10⁻⁴ -> 10^-4)."""
    # Spaces go before superscripts are rewritten so that "10⁻ ⁴" and "10⁻⁴" agree.
    s = _superscripts_to_caret(_drop_spaces(s))
    # Dropping a space can glue a combining mark onto the previous letter, and casefolding can
    # leave text that NFKC changes again, so repeat until nothing moves (keeps it idempotent).
    for _ in range(_MAX_PASSES):
        folded = _normalize_pass(s)
        if folded == s:
            break
        s = folded
    return s


# --- numbers -----------------------------------------------------------------------------------

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


def _parse_normalized(s: str) -> float | None:
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
    3.125, so a percent answer matches its bare number but never its /100 value.
    """
    return _parse_normalized(normalize_text(s))


def _numbers_close(a: float, b: float) -> bool:
    # rel_tol alone already makes 0 equal only to 0 (and -0), which is the intended zero rule.
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def answers_match(expected: str, given: str) -> bool:
    """One accepted fill alternative against a response: normalised text first, then by value
    when both sides are entirely numbers ("lr=1e-3" stays text, so it won't match "1e-3")."""
    a, b = normalize_text(expected), normalize_text(given)
    if a == b:
        return True
    x, y = _parse_normalized(a), _parse_normalized(b)
    return x is not None and y is not None and _numbers_close(x, y)


# --- choice letters (single / multi) -----------------------------------------------------------

_CHOICE_WORDS = re.compile("我选|选择|选项|答案是|答案为|答案|选|答|和|与|及")
_LETTER_SEPARATORS = frozenset("+&|/~")


def _empty(what: str) -> InvalidResponse:
    return InvalidResponse("empty", f"The answer is empty; reply with {what}.")


def _read_letters(question: Question, raw: str) -> list[str]:
    """The distinct option letters in raw (canonical spelling, sorted), ignoring separators,
    brackets and 选/答案-style words."""
    text = raw.strip()
    if not text:
        raise _empty("an option letter")
    known = {letter.upper(): letter for letter in question.letters}
    picked: dict[str, None] = {}
    for ch in _CHOICE_WORDS.sub(" ", unicodedata.normalize("NFKC", text)):
        if ch.isascii() and ch.isalpha():
            picked.setdefault(ch.upper())
        elif not (ch.isspace() or unicodedata.category(ch)[0] in "PZ" or ch in _LETTER_SEPARATORS):
            raise InvalidResponse(
                "unreadable",
                f"Can't read {text!r} as option letters; reply with letters like B or A,C.",
            )
    if not picked:
        raise InvalidResponse("no_letter", f"{text!r} contains no option letter.")
    unknown = [letter for letter in picked if letter not in known]
    if unknown:
        options = ", ".join(question.letters) or "none"
        raise InvalidResponse(
            "unknown_letter",
            f"{', '.join(unknown)} is not an option of this question (options: {options}).",
        )
    return sorted(known[letter] for letter in picked)


def _letter_set(letters: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(letter.strip().upper() for letter in letters)


# --- judge -------------------------------------------------------------------------------------

_JUDGE_TRUE = frozenset(
    {"对", "对的", "正确", "是", "是的", "√", "✓", "✔", "✅", "☑", "t", "true", "yes", "y"}
)
_JUDGE_FALSE = frozenset(
    {"错", "错的", "错误", "不对", "不正确", "否", "×", "✗", "✘", "❌", "❎"}
    | {"f", "false", "no", "n", "x"}  # "x": the ASCII stand-in people type for ×
)
_VARIATION_SELECTORS = dict.fromkeys(map(ord, "\ufe0e\ufe0f"))


def _judge_token(raw: str) -> str:
    token = _drop_spaces(unicodedata.normalize("NFKC", raw).casefold())
    token = token.translate(_VARIATION_SELECTORS)
    start, end = 0, len(token)
    while start < end and unicodedata.category(token[start])[0] == "P":
        start += 1
    while end > start and unicodedata.category(token[end - 1])[0] == "P":
        end -= 1
    return token[start:end]


def _read_judge(raw: str) -> str:
    if not raw.strip():
        raise _empty("对 or 错 (true/false)")
    token = _judge_token(raw)
    if token in _JUDGE_TRUE:
        return "true"
    if token in _JUDGE_FALSE:
        return "false"
    raise InvalidResponse(
        "not_judge", f"Can't read {raw.strip()!r} as true/false; reply 对 or 错 (T/F, √/×)."
    )


# --- public API --------------------------------------------------------------------------------


def canonical_response(question: Question, raw: str) -> str:
    """Parse raw as an answer to question and return its canonical form (see Grade.response).

    Raises InvalidResponse when raw can't be read as an answer of that type.
    """
    if question.type.has_options and raw in question.letters:
        return raw  # a button press: already canonical
    match question.type:
        case QuestionType.SINGLE:
            letters = _read_letters(question, raw)
            if len(letters) > 1:
                raise InvalidResponse(
                    "multiple_letters",
                    f"This question has one answer, but {', '.join(letters)} were given.",
                )
            return letters[0]
        case QuestionType.MULTI:
            return ",".join(_read_letters(question, raw))
        case QuestionType.JUDGE:
            return _read_judge(raw)
        case QuestionType.FILL:
            if not normalize_text(raw):
                raise _empty("the missing text")
            return raw.strip()
        case QuestionType.SHORT:
            if not raw.strip():
                raise _empty("your answer")
            return raw.strip()
    raise AssertionError(f"unhandled question type {question.type!r}")


def grade(question: Question, raw: str, *, partial_credit: bool = False) -> Grade:
    """Grade raw against question. Short answers come back PENDING for self_grade().

    partial_credit only affects multi: a non-empty proper subset of the key with no wrong
    letter then earns PARTIAL 0.5 instead of WRONG.
    """
    response = canonical_response(question, raw)
    match question.type:
        case QuestionType.SINGLE | QuestionType.MULTI:
            chosen, key = _letter_set(response.split(",")), _letter_set(question.answer)
            if chosen == key:
                return _grade(Verdict.CORRECT, response)
            partial = question.type is QuestionType.MULTI and partial_credit and chosen < key
            return _grade(Verdict.PARTIAL if partial else Verdict.WRONG, response)
        case QuestionType.JUDGE:
            correct = (response == "true") == question.judge_answer
        case QuestionType.FILL:
            correct = any(answers_match(alternative, raw) for alternative in question.answer)
        case QuestionType.SHORT:
            return _grade(Verdict.PENDING, response)
    return _grade(Verdict.CORRECT if correct else Verdict.WRONG, response)


_SELF_LEVELS = {
    "full": Verdict.CORRECT,
    "全对": Verdict.CORRECT,
    "correct": Verdict.CORRECT,
    "half": Verdict.PARTIAL,
    "部分": Verdict.PARTIAL,
    "partial": Verdict.PARTIAL,
    "zero": Verdict.WRONG,
    "不会": Verdict.WRONG,
    "wrong": Verdict.WRONG,
}


def self_grade(level: str, *, response: str = "") -> Grade:
    """The final grade of a short answer from the learner's own verdict.

    level: full/全对 -> CORRECT 1.0, half/部分 -> PARTIAL 0.5, zero/不会 -> WRONG 0.0 (the Verdict
    values correct/partial/wrong are accepted too). Pass the PENDING grade's response to keep it.
    """
    verdict = _SELF_LEVELS.get(level.strip().casefold())
    if verdict is None:
        raise InvalidResponse(
            "unknown_level", f"Unknown self-grade {level!r}; use full/half/zero (全对/部分/不会)."
        )
    return _grade(verdict, response.strip())
