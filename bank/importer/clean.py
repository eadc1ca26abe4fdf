"""Text cleaning for pasted papers: strip ruby pinyin, fold full-width letters, convert
traditional to simplified Chinese, keeping a map from every cleaned character to the original.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
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


def _fold_width(char: str) -> str:
    code = ord(char)
    # Full-width digits and Latin letters only; full-width punctuation is proper Chinese text.
    if 0xFF10 <= code <= 0xFF19 or 0xFF21 <= code <= 0xFF3A or 0xFF41 <= code <= 0xFF5A:
        return chr(code - 0xFEE0)
    return char


@dataclass(frozen=True)
class CleanText:
    """Cleaned text plus, for each of its characters, the offset it came from in `original`."""

    text: str
    origin: tuple[int, ...]
    original: str
    notes: tuple[tuple[int, str], ...] = ()  # (original offset, what the cleaner did)
    converted: int = 0  # characters changed from traditional to simplified
    _line_starts: list[int] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0] + [i + 1 for i, c in enumerate(self.original) if c == "\n"]
        self._line_starts.extend(starts)

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


def _strip_ruby(text: str) -> tuple[list[str], list[int], list[tuple[int, str]]]:
    chars: list[str] = []
    origin: list[int] = []
    notes: list[tuple[int, str]] = []
    pos = 0
    for match in _RUBY_RE.finditer(text):
        before = text[match.start() - 1] if match.start() else ""
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
                notes.append((match.start(), f"removed pinyin {match.group(0)!r} after "
                              f"{before or 'the start'!r}, not after a Chinese character"))
        for i in range(pos, match.start()):
            chars.append(_fold_width(text[i]))
            origin.append(i)
        pos = match.end()
    for i in range(pos, len(text)):
        chars.append(_fold_width(text[i]))
        origin.append(i)
    return chars, origin, notes


def clean_text(original: str) -> CleanText:
    """Clean a pasted paper: drop CR, strip ruby pinyin, fold full-width letters, t2s."""
    chars, origin, notes = _strip_ruby(original)
    kept = [(c, o) for c, o in zip(chars, origin, strict=True) if c != "\r"]
    stripped = "".join(c for c, _ in kept)
    offsets = [o for _, o in kept]
    simplified = to_simplified(stripped)
    if len(simplified) != len(stripped):
        # Phrase conversions keep length in practice; if one does not, convert line by line
        # and fall back to character by character where a line changes length, so every
        # character keeps its origin.
        lines = []
        for line in stripped.split("\n"):
            converted = to_simplified(line)
            if len(converted) != len(line):
                converted = "".join(to_simplified(c) if len(to_simplified(c)) == 1 else c
                                    for c in line)
            lines.append(converted)
        simplified = "\n".join(lines)
    converted = sum(1 for a, b in zip(stripped, simplified, strict=True) if a != b)
    return CleanText(simplified, tuple(offsets), original, tuple(notes), converted)
