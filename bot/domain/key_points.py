"""Grading a typed short answer by its key points (得分点).

A short item may list key points, each with the words that show it (any one does; a word
written "a+b" needs both a and b) and its share of the item's points (bot.domain.questions.KeyPointMark).
A point listed as plain text, with no words, is shown by the text itself or by most of its
own content words. An answer covers a point when one of its words is in the answer, exactly or
within a typo (rapidfuzz's Indel ratio against the answer's words, segmented by jieba, and runs
of them); both sides are folded first: traditional characters to simplified (OpenCC),
full-width to half-width, case, spaces and punctuation. The score is the share of the points
covered. It is a provisional grade: the learner still grades themselves and that grade wins.

jieba's dictionary takes about a second to load and logs to stderr as it does, so it is loaded
once, lazily, off the event loop (`prepare`), with its logger silenced; without jieba the
answer's words are its runs of letters and single Chinese characters (still matched in runs).
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.domain.questions import KeyPointMark, Question
from bot.domain.reading.folding import normalize_text
from bot.domain.verdicts import Verdict
from bot.locales.i18n import simplified

__all__ = [
    "KEY_POINTS_SCHEMA",
    "Coverage",
    "cover",
    "key_point_entries",
    "key_point_yaml",
    "level_of",
    "marks_of",
    "prepare",
    "segment",
]

log = logging.getLogger("studybot.key_points")

# The self-grade a score reads as (full / half / zero): the nearest of 1, ½ and 0 to the share
# of the points, as the labels of benchmarks/key_points.py's answers are given.
FULL = 0.75
HALF = 0.25
# A word this long or longer may match with a typo: one character in four (Indel ratio 75 for
# a substitution in 4); shorter words must appear exactly ("SGD", "正则化" and "噪音" are other
# words with one character changed).
_FUZZY_FROM = 4
_CUTOFF = 75.0
_LONG_CUTOFF = 80.0  # from 8 characters: two edits in ten
# A plain-text point is covered when this share of its content words are.
_PLAIN_SHARE = 0.6
_MAX_RUN = 6  # answer words joined into runs of up to this many to meet a longer phrase

# Left out before matching; brackets stay, so that O(n) is not found in O(n²) (folded o(n^2)).
_DROP = re.compile(r"[\s,.;:!?\"'`，。、；：！？“”‘’·…~～—\-_|\\]+")
_LATIN = re.compile(r"[a-z]")
_WORDLIKE = re.compile(r"[a-z0-9^]+|[^\sa-z0-9^]", re.IGNORECASE)
# Words of a plain-text point that say nothing of its content.
_STOP = frozenset(
    "通过 进行 可以 使用 利用 实现 以及 由于 因此 从而 同时 每个 一个 其中".split()
    + "需要 无需 对于 并且 或者 然后 之后 之前 如何".split()
)


@dataclass(frozen=True, slots=True)
class Coverage:
    """Which key points (indices into Question.key_points) an answer covers and misses, and
    the share of the points it earns."""

    covered: tuple[int, ...]
    missed: tuple[int, ...]
    fraction: float

    @property
    def verdict(self) -> Verdict:
        return level_of(self.fraction)


def level_of(fraction: float) -> Verdict:
    """The self-grade a key-point score reads as."""
    if fraction >= FULL:
        return Verdict.CORRECT
    return Verdict.PARTIAL if fraction >= HALF else Verdict.WRONG


def marks_of(question: Question) -> tuple[KeyPointMark, ...]:
    """One mark per key point (a plain-text point: no words, share 1)."""
    marks = question.key_point_marks
    if len(marks) == len(question.key_points):
        return marks
    return tuple(KeyPointMark() for _ in question.key_points)


# ---------------------------------------------------------------- the bank's form

_TEXT: dict[str, Any] = {"type": "string", "pattern": "\\S"}
# A key point is its text, or {point, words, share}: the words that show it (any one; "a+b"
# needs both) and its share of the item's points (relative to the others; 1 if not given).
KEY_POINTS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        # if/else rather than anyOf, so that a bad point gets the checker's own sentence
        "if": {"type": "string"},
        "then": _TEXT,
        "else": {
            "type": "object",
            "required": ["point"],
            "additionalProperties": False,
            "properties": {
                "point": _TEXT,
                "words": {"type": "array", "minItems": 1, "items": _TEXT},
                "share": {"type": "number", "exclusiveMinimum": 0},
            },
        },
    },
}


def key_point_entries(value: Any) -> tuple[tuple[str, ...], tuple[KeyPointMark, ...]]:
    """A checked bank `key_points` value as Question.key_points and .key_point_marks (the marks
    empty when every point is plain text, so such a bank writes back as it was)."""
    points: list[str] = []
    marks: list[KeyPointMark] = []
    for entry in value or ():
        if isinstance(entry, str):
            points.append(entry)
            marks.append(KeyPointMark())
        else:
            points.append(entry["point"])
            marks.append(KeyPointMark(tuple(entry.get("words", ())), float(entry.get("share", 1))))
    if all(m == KeyPointMark() for m in marks):
        marks = []
    return tuple(points), tuple(marks)


def key_point_yaml(question: Question) -> list[Any]:
    """Question.key_points as a bank writes them (bank.yaml_io)."""
    if not question.key_point_marks:
        return list(question.key_points)
    out: list[Any] = []
    for point, mark in zip(question.key_points, question.key_point_marks, strict=True):
        entry: dict[str, Any] = {"point": point}
        if mark.words:
            entry["words"] = list(mark.words)
        if mark.share != 1:
            entry["share"] = int(mark.share) if float(mark.share).is_integer() else mark.share
        out.append(entry)
    return out


# ---------------------------------------------------------------- the segmenter

_lock = threading.Lock()
_cut: Callable[[str], list[str]] | None = None


def _load() -> Callable[[str], list[str]]:
    global _cut
    with _lock:
        if _cut is not None:
            return _cut
        try:
            with warnings.catch_warnings():  # jieba's pkg_resources and regex escapes warn
                warnings.simplefilter("ignore")
                import jieba
        except ImportError:  # pragma: no cover - jieba is a dependency; degrade, don't fail
            log.warning("jieba is not installed: short answers are matched without segmenting")
            _cut = _characters
            return _cut
        # jieba logs "Building prefix dict…" and "Loading model cost…" at DEBUG through a
        # handler of its own on stderr, and an unwritable temp dir for its cache (only slower
        # loads) at ERROR: none of it is the learner's business. Its handler goes, and what it
        # says reaches our log only if the load itself fails.
        jieba_log = logging.getLogger("jieba")
        for handler in list(jieba_log.handlers):
            jieba_log.removeHandler(handler)
        jieba_log.setLevel(logging.CRITICAL)
        tokenizer = jieba.Tokenizer()
        tokenizer.initialize()
        _cut = tokenizer.lcut
        return _cut


def _characters(text: str) -> list[str]:
    return _WORDLIKE.findall(text)


async def prepare() -> None:
    """Load the segmenter (once, in a thread: it takes about a second)."""
    if _cut is None:
        await asyncio.to_thread(_load)


def segment(text: str) -> list[str]:
    """text's words, folded, punctuation left out (loads the segmenter if `prepare` did not)."""
    cut = _cut or _load()
    words = (_fold(w) for w in cut(simplified(text)))
    return [w for w in words if w]


# ---------------------------------------------------------------- matching


def _fold(text: str) -> str:
    return _DROP.sub("", normalize_text(text))


@lru_cache(maxsize=4096)
def _folded_word(word: str) -> str:
    return _fold(simplified(word))


@lru_cache(maxsize=1024)
def _content_words(text: str) -> tuple[str, ...]:
    """The words of a plain-text key point that carry its meaning (two characters or more, or a
    Latin term), each once."""
    seen: dict[str, None] = {}
    for word in segment(text):
        if word not in _STOP and (len(word) >= 2 or word.isascii()):
            seen[word] = None
    return tuple(seen)


class _Answer:
    """A typed answer folded for matching: the whole text and its runs of words by length."""

    def __init__(self, text: str) -> None:
        self.words = segment(text)
        self.text = "".join(self.words)
        self._runs: dict[int, set[str]] | None = None

    def runs(self) -> dict[int, set[str]]:
        if self._runs is None:
            runs: dict[int, set[str]] = {}
            n = len(self.words)
            for i in range(n):
                joined = ""
                for j in range(i, min(n, i + _MAX_RUN)):
                    joined += self.words[j]
                    runs.setdefault(len(joined), set()).add(joined)
            self._runs = runs
        return self._runs

    def has(self, word: str) -> bool:
        if not word:
            return False
        # A word with Latin letters is the answer's words run together ("io" is no word of
        # "attention"); a Chinese one may be anywhere in the text.
        latin = bool(_LATIN.search(word))
        runs = self.runs()
        if word in runs.get(len(word), ()) if latin else word in self.text:
            return True
        # Only words of letters may be misspelt: in O(n), N(0 or σ²C² one character changes
        # the meaning.
        if len(word) < _FUZZY_FROM or not word.isalpha():
            return False
        from rapidfuzz import fuzz, process

        cutoff = _LONG_CUTOFF if len(word) >= 8 else _CUTOFF
        spread = max(1, len(word) // 4)
        lengths = range(len(word) - spread, len(word) + spread + 1)
        if latin:
            candidates = sorted(r for k in lengths for r in runs.get(k, ()))
        else:
            # partial_ratio (one pass in C) rules most words out; it also scores a stretch
            # shorter than the word (客户端 for 客户端越多), so what passes it is checked
            # against the stretches about as long as the word.
            if not fuzz.partial_ratio(word, self.text, score_cutoff=cutoff):
                return False
            text = self.text
            candidates = sorted({text[i : i + k] for k in lengths for i in range(len(text) - k + 1)})
        return bool(candidates) and (
            process.extractOne(word, candidates, scorer=fuzz.ratio, score_cutoff=cutoff) is not None
        )

    def shows(self, phrase: str) -> bool:
        """Whether the answer has the phrase (every part of an "a+b" phrase)."""
        parts = [p for p in (_folded_word(p) for p in phrase.split("+")) if p]
        return bool(parts) and all(self.has(p) for p in parts)


def _covers(answer: _Answer, point: str, mark: KeyPointMark) -> bool:
    if mark.words:
        return any(answer.shows(word) for word in mark.words)
    if answer.has(_folded_word(point)):
        return True
    words = _content_words(point)
    return bool(words) and sum(answer.has(w) for w in words) >= _PLAIN_SHARE * len(words)


def cover(question: Question, text: str) -> Coverage:
    """The key points of `question` the typed `text` covers (never raises on any text)."""
    return cover_points(question.key_points, marks_of(question), text)


def cover_points(points: Sequence[str], marks: Iterable[KeyPointMark], text: str) -> Coverage:
    marks = tuple(marks)
    answer = _Answer(text)
    covered: list[int] = []
    missed: list[int] = []
    for index, (point, mark) in enumerate(zip(points, marks, strict=True)):
        (covered if _covers(answer, point, mark) else missed).append(index)
    total = sum(m.share for m in marks)
    earned = sum(marks[i].share for i in covered)
    fraction = round(min(1.0, max(0.0, earned / total)), 4) if total > 0 else 0.0
    return Coverage(tuple(covered), tuple(missed), fraction)
