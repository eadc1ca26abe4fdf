"""Hypothesis property tests for the fill-answer normaliser, the number reader and the option-letter
reader used by bot.domain.grading."""

from __future__ import annotations

import math
from itertools import pairwise

from hypothesis import example, given
from hypothesis import strategies as st

from bot.domain.grading import InvalidResponse, answers_match, normalize_text, parse_number
from bot.domain.reading.option_letters import pick_letters

# (ASCII, Chinese/full-width) pairs that must fold together.
PUNCT_PAIRS = [
    (",", "，"), (",", "、"), (".", "。"), (".", "．"), (":", "："), (";", "；"), ("!", "！"),
    ("?", "？"), ("(", "（"), (")", "）"), ('"', "“"), ('"', "”"), ("'", "‘"), ("'", "’"),
    ("[", "【"), ("]", "】"), ("-", "−"), ("%", "％"), ("<", "《"), (">", "》"),
]  # fmt: skip
WHITESPACE = [" ", "\t", "\n", "\u3000", "\u00a0", "\u200b", "\r\n"]
SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")

# Text biased towards what the normaliser actually reacts to, plus arbitrary Unicode.
interesting_chars = st.sampled_from(
    [c for pair in PUNCT_PAIRS for c in pair]
    + WHITESPACE
    + list("aAzZßİéÉ0123456789e^×xXⅫ²⁻ﬁ¨\u0301\u0327梯度下降对错")
)
texts = st.one_of(
    st.text(),
    st.lists(st.one_of(interesting_chars, st.characters()), max_size=40).map("".join),
)


@given(texts)
@example("e \u0301")
@example("a¨")
@example("10⁻ ⁴")
@example("^⁴")
def test_normalize_is_idempotent(s: str) -> None:
    once = normalize_text(s)
    assert normalize_text(once) == once


@given(texts)
def test_normalize_removes_all_whitespace(s: str) -> None:
    assert not any(c.isspace() for c in normalize_text(s))


@given(st.lists(st.tuples(texts, st.sampled_from(WHITESPACE)), max_size=8))
def test_normalize_is_whitespace_insensitive(parts: list[tuple[str, str]]) -> None:
    plain = "".join(text for text, _ in parts)
    spaced = "".join(text + space for text, space in parts)
    assert normalize_text(spaced) == normalize_text(plain)


@given(st.lists(st.one_of(interesting_chars, st.characters()), max_size=40), st.randoms())
def test_normalize_is_invariant_under_punctuation_swap(chars: list[str], rnd) -> None:
    ascii_to_cn: dict[str, list[str]] = {}
    cn_to_ascii: dict[str, str] = {}
    for ascii_char, cn_char in PUNCT_PAIRS:
        ascii_to_cn.setdefault(ascii_char, []).append(cn_char)
        cn_to_ascii[cn_char] = ascii_char

    def swap(c: str) -> str:
        if c in ascii_to_cn and rnd.random() < 0.5:
            return rnd.choice(ascii_to_cn[c])
        if c in cn_to_ascii and rnd.random() < 0.5:
            return cn_to_ascii[c]
        return c

    original = "".join(chars)
    swapped = "".join(swap(c) for c in chars)
    assert normalize_text(swapped) == normalize_text(original)


@given(texts)
def test_normalize_never_raises_and_returns_str(s: str) -> None:
    assert isinstance(normalize_text(s), str)


@given(texts)
def test_parse_number_never_raises(s: str) -> None:
    value = parse_number(s)
    assert value is None or math.isfinite(value)


@given(texts, texts)
def test_answers_match_is_reflexive_and_symmetric(a: str, b: str) -> None:
    assert answers_match(a, a)
    assert answers_match(a, b) == answers_match(b, a)


finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@given(finite_floats)
def test_parse_number_reads_repr(f: float) -> None:
    assert parse_number(repr(f)) == f


@given(finite_floats)
def test_parse_number_reads_percent_as_written(f: float) -> None:
    assert parse_number(f"{f!r}%") == f


@given(finite_floats)
def test_number_matches_its_own_repr_with_noise(f: float) -> None:
    assert answers_match(repr(f), f" {f!r}。")


# Mantissas as people write them: plain decimals (repr without an exponent).
mantissas = finite_floats.map(repr).filter(lambda m: "e" not in m)
exponents = st.integers(min_value=-330, max_value=330)


def superscript(n: int) -> str:
    return str(n).translate(SUPERSCRIPT)


@given(mantissas, exponents)
@example("5", -4)
@example("-1.5", 3)
def test_exponent_notations_agree(m: str, e: int) -> None:
    e_form = parse_number(f"{m}e{e}")
    assert e_form == parse_number(f"{m}E{e}")
    assert e_form == parse_number(f"{m}×10^{e}")
    assert e_form == parse_number(f"{m}*10^{e}")
    assert e_form == parse_number(f"{m}x10^{e}")
    assert e_form == parse_number(f"{m}·10^{e}")
    assert e_form == parse_number(f"{m}×10{superscript(e)}")
    assert e_form == parse_number(f"{m} × 10^({e})")


@given(mantissas, st.integers(min_value=-300, max_value=300))
def test_exponent_notation_value(m: str, e: int) -> None:
    value = parse_number(f"{m}×10{superscript(e)}")
    expected = float(f"{m}e{e}")
    if math.isfinite(expected):
        assert value == expected
    else:
        assert value is None


@given(st.integers(min_value=1, max_value=10**15))
def test_thousands_separators_read_as_grouping(n: int) -> None:
    assert parse_number(f"{n:,}") == float(n)


# --- option letters ---------------------------------------------------------------------------

OPTIONS = tuple("ABCDEFGH")
SEPARATORS = [",", "，", "、", " ", ";", "/", " and ", "+", ", "]


@given(
    st.sets(st.sampled_from(OPTIONS), min_size=1), st.sampled_from(SEPARATORS), st.booleans(), st.randoms()
)
def test_letters_written_apart_are_read_back(chosen: set[str], separator: str, lower: bool, rnd) -> None:
    letters = sorted(chosen)
    rnd.shuffle(letters)
    text = separator.join(letter.lower() if lower else letter for letter in letters)
    assert pick_letters(text, OPTIONS) == tuple(sorted(chosen))


@given(st.sets(st.sampled_from(OPTIONS), min_size=2), st.randoms())
def test_capitals_written_together_are_read_in_any_order(chosen: set[str], rnd) -> None:
    letters = sorted(chosen)
    rnd.shuffle(letters)
    assert pick_letters("".join(letters), OPTIONS) == tuple(sorted(chosen))


@given(st.text(alphabet="abcdefgh", min_size=2, max_size=6))
def test_lower_case_runs_are_letters_only_when_they_rise(run: str) -> None:
    rising = all(a < b for a, b in pairwise(run))
    try:
        picked = pick_letters(run, OPTIONS)
    except InvalidResponse as exc:
        assert exc.reason == "word"
        assert not rising or run in {"ab", "ad", "ah", "be", "eh", "ace", "beg", "def"}
    else:
        assert rising and picked == tuple(run.upper())


@given(texts)
def test_letter_reader_only_raises_invalid_response(s: str) -> None:
    try:
        picked = pick_letters(s, OPTIONS)
    except InvalidResponse as exc:
        assert exc.render("zh-CN") and exc.render("en")
    else:
        assert picked and set(picked) <= set(OPTIONS)
