"""Text cleaning for pasted papers: strip ruby pinyin, fold full-width letters, convert
traditional to simplified Chinese, keeping a map from every cleaned character to the original.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

__all__ = ["CleanText", "clean_text", "is_cjk", "is_pinyin_syllable", "to_simplified"]

_TONED = "āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ"
_BASE = "aaaaeeeeiiiioooouuuuüüüü"
_UNTONE = str.maketrans(_TONED, _BASE)

_INITIAL = r"(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?"
_FINAL = (
    r"(?:iang|iong|uang|ueng|ang|eng|ing|ong|ian|iao|uai|uan|üan|ai|ei|ao|ou|an|en|er|in|un|ün"
    r"|ia|ie|iu|ua|uo|ui|üe|ue|ve|a|o|e|i|u|ü|v)"
)
_SYLLABLE_RE = re.compile(f"^{_INITIAL}{_FINAL}$")
# Neutral-tone syllables carry no mark; only these common ones are stripped (after a CJK
# character), so that `(a)` or `(e)` in a formula is never taken for pinyin.
_NEUTRAL = frozenset({"de", "le", "me", "men", "ne", "ma", "ba", "zi", "zhe", "tou", "ge"})

_LETTERS = r"[a-zA-Z\u00c0-\u024f\u0300-\u036f]{1,8}"
# A bracketed syllable, or a syllable whose opening bracket was lost together with its
# character (the source then shows `?yōu)`): the `?` stays and is reported later.
_RUBY_RE = re.compile(rf"[(（](?P<syl>{_LETTERS})[)）]|(?<=\?)(?P<lost>{_LETTERS})[)）]")


def is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x3FFFF
        or char == "〇"
    )


def is_pinyin_syllable(text: str, *, neutral_ok: bool = False) -> bool:
    """True for one pinyin syllable carrying a tone mark (or ü), e.g. `shù`, `lǜ`."""
    text = unicodedata.normalize("NFC", text)
    if not text.islower():
        return False
    bare = text.translate(_UNTONE)
    if not _SYLLABLE_RE.match(bare):
        return False
    if bare != text or "ü" in text:
        return True
    return neutral_ok and text in _NEUTRAL


@cache
def _converter():
    import opencc  # imported lazily: building the converter reads its dictionaries

    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    return _converter().convert(text)


# Full-width digits and Latin letters only; full-width punctuation is proper Chinese text.
_FOLD_WIDTH = {code: code - 0xFEE0 for code in (*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B),
                                                 *range(0xFF41, 0xFF5B))}


class Origins(Sequence[int]):
    """Where each cleaned character came from, stored as runs: cleaning only removes text
    (pinyin, CR) and converts characters one for one, so a run of kept text maps by an offset.
    A tuple of one int per character took 9 bytes a character (and 36 above 256)."""

    def __init__(self, starts: list[int], bases: list[int], length: int) -> None:
        self._starts, self._bases, self._length = starts, bases, length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        run = bisect.bisect_right(self._starts, index) - 1
        return self._bases[run] + index - self._starts[run]


@dataclass(frozen=True)
class CleanText:
    """Cleaned text plus, for each of its characters, the offset it came from in `original`."""

    text: str
    origin: Sequence[int]
    original: str
    # (original offset, the removed pinyin and the character before it, as catalog parameters)
    notes: tuple[tuple[int, tuple[tuple[str, str], ...]], ...] = ()
    converted: int = 0  # characters changed from traditional to simplified
    _line_starts: list[int] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._line_starts.append(0)
        self._line_starts.extend(m.end() for m in re.finditer("\n", self.original))

    def source_offset(self, index: int) -> int:
        """Offset in the original text of cleaned character `index` (end maps to the end)."""
        if index >= len(self.origin):
            return len(self.original)
        return self.origin[max(index, 0)]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of an offset in the original text."""
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def where(self, index: int) -> str:
        """`line:col` in the original text of cleaned character `index`."""
        return self.where_source(self.source_offset(index))

    def where_source(self, offset: int) -> str:
        """`line:col` of an offset in the original text."""
        line, col = self.line_col(offset)
        return f"{line}:{col}"


def _kept_pieces(original: str) -> tuple[list[str], Origins, list[tuple[int, tuple[tuple[str, str], ...]]]]:
    """The original without ruby pinyin and CR, width-folded, as pieces, with their origins."""
    pieces: list[str] = []
    starts: list[int] = []
    bases: list[int] = []
    notes: list[tuple[int, tuple[tuple[str, str], ...]]] = []
    length = 0

    def keep(start: int, end: int) -> None:
        nonlocal length
        pos = start
        for part in original[start:end].split("\r"):
            if part:
                starts.append(length)
                bases.append(pos)
                pieces.append(part.translate(_FOLD_WIDTH))
                length += len(part)
            pos += len(part) + 1

    pos = 0
    for match in _RUBY_RE.finditer(original):
        before = original[match.start() - 1] if match.start() else ""
        if match.group("lost") is not None:
            # The `?` before it is reported as a lost character; no separate note.
            if not is_pinyin_syllable(match.group("lost")):
                continue
        else:
            syllable = match.group("syl")
            after_cjk = bool(before) and is_cjk(before)
            if not is_pinyin_syllable(syllable, neutral_ok=after_cjk):
                continue
            if not after_cjk:
                notes.append((match.start(), (("pinyin", repr(match.group(0))), ("before", repr(before)))))
        keep(pos, match.start())
        pos = match.end()
    keep(pos, len(original))
    return pieces, Origins(starts, bases, length), notes


def clean_text(original: str) -> CleanText:
    """Clean a pasted paper: drop CR, strip ruby pinyin, fold full-width letters, t2s."""
    pieces, offsets, notes = _kept_pieces(original)
    stripped = "".join(pieces)
    simplified = to_simplified(stripped)
    if len(simplified) != len(stripped):
        # Phrase conversions keep length in practice; if one does not, convert line by line
        # and fall back to character by character where a line changes length, so every
        # character keeps its origin.
        lines = []
        for line in stripped.split("\n"):
            line_text = to_simplified(line)
            if len(line_text) != len(line):
                line_text = "".join(to_simplified(c) if len(to_simplified(c)) == 1 else c
                                    for c in line)
            lines.append(line_text)
        simplified = "\n".join(lines)
    converted = 0 if simplified == stripped else sum(
        1 for a, b in zip(stripped, simplified, strict=True) if a != b)
    return CleanText(simplified, offsets, original, tuple(notes), converted)
