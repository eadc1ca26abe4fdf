"""Splitting one item of a pasted paper into stem, options, answer and explanation, by the
answer/explanation markers and an option-letter chain that tolerates run-together text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from bot.domain.reading.vocabulary import STRICT_FALSE, STRICT_TRUE

from .base import Span
from .clean import is_cjk

__all__ = ["ANSWER_RE", "EXPLANATION_RE", "ItemFields", "join_lines", "split_item"]

ANSWER_RE = re.compile(
    r"【\s*(?:参考|正确)?答案\s*】|\[\s*答案\s*\]|(?:正确|参考|标准)?答案\s*[：:]"
    r"|\b(?:(?:Correct|correct)\s+)?(?:Answer|ANSWER|answer)\s*[：:]"
)
EXPLANATION_RE = re.compile(
    r"【\s*(?:答案)?(?:解析|分析|解答)\s*】|\[\s*解析\s*\]|(?:答案|试题)?解析\s*[：:]"
    r"|\b(?:Explanation|EXPLANATION|explanation)\s*[：:]"
)
_LETTERS = "ABCDEFGH"
_OPENERS = "(（"
_CLOSERS_AFTER = "。！？!?；;）)】」』”\"'：:，,、"
# An answer written into the stem's blank, e.g. `下列……的是（ C ）`, when no answer marker exists.
_JUDGE_MARKS = "".join(sorted(w for w in STRICT_TRUE | STRICT_FALSE if len(w) == 1 and not is_cjk(w)))
_STEM_ANSWER_RE = re.compile(rf"[（(][ \t\u3000]*([A-H]{{1,8}}|[{_JUDGE_MARKS}])[ \t\u3000]*[)）]")


def join_lines(text: str) -> str:
    """One paragraph from wrapped lines: no space between CJK text, one between Latin words."""
    return _unwrap(text, break_after="")


_PARAGRAPH_END = "。！？!?；;：:"


def keep_lines(text: str) -> str:
    """Text with lines stripped and blank lines dropped; a line break is kept after a sentence
    end and dropped inside a sentence (a paste wrapped there)."""
    return _unwrap(text, break_after=_PARAGRAPH_END)


def _unwrap(text: str, break_after: str) -> str:
    """The non-blank lines of `text`, stripped and joined: by a line break after a character
    of `break_after`, else by a space between Latin words, else directly."""
    out = ""
    for line in (part.strip() for part in text.split("\n")):
        if not line:
            continue
        if out and out[-1] in break_after:
            out += "\n"
        elif out and out[-1].isascii() and out[-1].isalnum() and line[0].isascii() \
                and line[0].isalnum():
            out += " "
        out += line
    return out


@dataclass
class ItemFields:
    stem: str
    whole: str = ""  # stem and option text together, for types that have no options
    options: list[tuple[str, str]] = field(default_factory=list)
    answer: str | None = None
    explanation: str = ""
    spans: dict[str, Span] = field(default_factory=dict)
    extra_answers: list[int] = field(default_factory=list)  # further answer markers (offsets)


def _option_level(text: str, start: int, pos: int) -> int:
    """How plausible an option marker at `pos` is, from what precedes it (higher is better)."""
    i = pos - 1
    if i < start:
        return 2
    if text[i] == "\n":
        return 2
    if text[i] in " \t\u3000":
        return 1
    if is_cjk(text[i]) or text[i] in _CLOSERS_AFTER:
        return 1
    return 0


def _candidates(text: str, start: int, end: int, letter: str) -> list[tuple[int, int, int]]:
    """(marker start, text start, level) of every marker for `letter` in [start, end)."""
    pattern = re.compile(rf"[(（]{letter}[)）]|{letter}[ \t\u3000]*[.．、)）]")
    found = []
    for match in pattern.finditer(text, start, end):
        if match.group(0)[-1] in ")）" and match.group(0)[0] not in _OPENERS:
            # `A)` is a marker, but not the `A)` closing a bracketed remark like `(QA)`.
            if match.start() > start and text[match.start() - 1].isalnum():
                continue
        found.append((match.start(), match.end(), _option_level(text, start, match.start())))
    return found


def _best_chain(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The option markers A, B, C... in order: the longest chain, then the most plausible.

    Run-together options (`A.FedAvgB.KrumC.FedProx`) leave little to go on, so every chain of
    candidates is scored and a stray `B.` inside option text loses to the chain through the
    real markers.
    """
    per_letter = []
    for letter in _LETTERS:
        cands = _candidates(text, start, end, letter)
        if not cands:
            break
        per_letter.append(cands)

    @cache
    def best_from(k: int, j: int) -> tuple[int, int, tuple[tuple[int, int], ...]]:
        mstart, tstart, level = per_letter[k][j]
        tail: tuple[int, int, tuple[tuple[int, int], ...]] = (0, 0, ())
        if k + 1 < len(per_letter):
            for j2, (next_start, _, _) in enumerate(per_letter[k + 1]):
                if next_start >= tstart:
                    candidate = best_from(k + 1, j2)
                    if candidate[:2] > tail[:2]:
                        tail = candidate
        return (tail[0] + 1, tail[1] + level, ((mstart, tstart), *tail[2]))

    best: tuple[int, int, tuple[tuple[int, int], ...]] = (0, 0, ())
    for j in range(len(per_letter[0]) if per_letter else 0):
        candidate = best_from(0, j)
        if candidate[:2] > best[:2]:
            best = candidate
    chain = list(best[2])
    return chain if len(chain) >= 2 else []


def split_item(text: str, start: int, end: int) -> ItemFields:
    """The fields of the item whose body (after its number) is text[start:end]."""
    answer_match = ANSWER_RE.search(text, start, end)
    if answer_match:
        pre_end = answer_match.start()
        expl_match = EXPLANATION_RE.search(text, answer_match.end(), end)
    else:
        expl_match = EXPLANATION_RE.search(text, start, end)
        pre_end = expl_match.start() if expl_match else end
    fields = ItemFields(stem="")

    chain = _best_chain(text, start, pre_end)
    stem_end = chain[0][0] if chain else pre_end
    fields.stem = join_lines(text[start:stem_end])
    fields.whole = join_lines(text[start:pre_end])
    fields.spans["stem"] = (start, stem_end)
    for i, (_, tstart) in enumerate(chain):
        tend = chain[i + 1][0] if i + 1 < len(chain) else pre_end
        letter = _LETTERS[i]
        fields.options.append((letter, join_lines(text[tstart:tend]).rstrip("；;")))
        fields.spans[f"options.{letter}"] = (tstart, tend)

    if answer_match:
        aend = expl_match.start() if expl_match else end
        fields.answer = text[answer_match.end():aend].strip()
        fields.spans["answer"] = (answer_match.end(), aend)
    elif chain or "（" in fields.stem or "(" in fields.stem:
        _answer_from_stem(fields, text, start, stem_end)
    if answer_match:
        fields.extra_answers = [m.start() for m in ANSWER_RE.finditer(text, answer_match.end(), end)]
    if expl_match:
        fields.explanation = keep_lines(text[expl_match.end():end])
        fields.spans["explanation"] = (expl_match.end(), end)
    return fields


def _answer_from_stem(fields: ItemFields, text: str, start: int, stem_end: int) -> None:
    matches = list(_STEM_ANSWER_RE.finditer(text, start, stem_end))
    if not matches:
        return
    last = matches[-1]
    fields.answer = last.group(1)
    fields.spans["answer"] = (last.start(1), last.end(1))
    fields.stem = join_lines(text[start:last.start()] + "（ ）" + text[last.end():stem_end])
