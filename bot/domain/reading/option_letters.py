"""Reading option letters out of a reply or a paper's answer line: "B", "A,C", "ACD", "选B",
"答案：B", "(B)", "I choose B" — and never out of a word that merely contains letters.

The rule for a run of letters written together:
- one letter, either case, is that letter (b = B);
- a run with a letter past H (clear, CLEAR, ok, no) is a word: no bank has such an option;
- a run in capitals is letters in any order (ACD, DBA, BAD): capitals are how options are
  written, and nobody types an English word in capitals as an answer;
- a run in lower (or mixed) case is letters only when they rise strictly (acd, Abd) and the run
  is not one of the few English words so spelled (ab, ad, ah, be, eh, ace, beg, def). People
  list options in order; the words that can come back as a reaction to a question (bad, add,
  cab, dab, bed, face, clear) do not rise, so "bad" is refused as a word instead of graded as
  A, B, D. A refusal costs a retry; a misreading costs a wrong score.
Letters written apart (a b d, a,c, A、C, A和C, A and C, (A)(B)) are always letters.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise

from bot.domain.reading.invalid_response import InvalidResponse, quoted
from bot.locales.i18n import Listed

__all__ = ["LETTERS", "pick_letters", "split_letters"]

LETTERS = "ABCDEFGH"  # the option letters a bank may use, in order

# Words around the letters, removed wherever they stand (Chinese) or at the start (English).
_CHINESE_WORDS = re.compile(
    "我选择|我选|选择|正确答案是|正确答案为|正确答案|答案是|答案为|答案|应选|选项|选|答|和|与|及"
)
_ENGLISH_LEAD_IN = re.compile(
    r"^\s*(?:i(?:['’]d|\s+would)?\s+(?:choose|pick|select|go\s+with|say)"
    r"|(?:my|the)\s+answer\s+is|(?:my\s+)?answer|options?|choices?)(?![a-z])",
    re.IGNORECASE,
)
_CONNECTOR_WORDS = frozenset({"and"})
_SEPARATORS = frozenset("+&|/~")
# The English words spelled with strictly rising letters from a–h, picked by hand from all 247 such
# runs (no word list is installed here); "ad" to a multi question is refused, and AD is asked for.
_RISING_WORDS = frozenset({"ab", "ad", "ah", "be", "eh", "ace", "beg", "def"})
_LOWER_LETTERS = frozenset(LETTERS.lower())


def _is_separator(ch: str) -> bool:
    return ch.isspace() or ch in _SEPARATORS or unicodedata.category(ch)[0] in "PZ"


def _run_letters(run: str, text: str) -> list[str]:
    if len(run) == 1:
        return [run.upper()]
    low = run.lower()
    if any(c not in _LOWER_LETTERS for c in low):
        raise InvalidResponse("word", text=quoted(text))  # clear, CLEAR, ok, no: never options
    if run.isupper():
        return list(run)
    if low in _RISING_WORDS or not all(a < b for a, b in pairwise(low)):
        raise InvalidResponse("word", text=quoted(text))
    return list(run.upper())


def split_letters(text: str) -> list[str]:
    """The letters written in text, in capitals, in the order written (repeats kept).

    Raises InvalidResponse: empty, unreadable (something other than letters and the words and
    separators around them), word (see the module's rule) or no_letter.
    """
    stripped = text.strip()
    if not stripped:
        raise InvalidResponse("empty", "answer.invalid.empty_letter")
    folded = _CHINESE_WORDS.sub(" ", _ENGLISH_LEAD_IN.sub(" ", unicodedata.normalize("NFKC", stripped)))
    runs: list[str] = []
    run = ""
    for ch in folded + " ":
        if ch.isascii() and ch.isalpha():
            run += ch
            continue
        if not _is_separator(ch):
            raise InvalidResponse("unreadable", text=quoted(stripped))
        if run and run.lower() not in _CONNECTOR_WORDS:
            runs.append(run)
        run = ""
    letters = [letter for run in runs for letter in _run_letters(run, stripped)]
    if not letters:
        raise InvalidResponse("no_letter", text=quoted(stripped))
    return letters


def pick_letters(text: str, options: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The distinct option letters chosen in text, in the options' order and spelling.

    Raises InvalidResponse as split_letters does, or unknown_letter for a letter that is not
    one of `options`.
    """
    known = {letter.upper(): letter for letter in options}
    picked = dict.fromkeys(split_letters(text))
    if unknown := [letter for letter in picked if letter not in known]:
        raise InvalidResponse("unknown_letter", letters=Listed(tuple(unknown)),
                              options=Listed(tuple(options)))
    return tuple(letter for letter in options if letter.upper() in picked)
