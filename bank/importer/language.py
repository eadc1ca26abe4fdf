"""The language of an imported bank: what the source declares (a GIFT or Anki export records
it); else a table's Chinese header (`题型…` zh-CN, `題型…` zh-TW: a studybot export writes its
bank's language); else what its text is written in — Chinese when it has at least as many Han
characters as Latin words (`在Transformer架构中…` is Chinese, `What is 交叉熵?` English). A
Chinese bank is traditional (zh-TW) when its header is, or when a good share of its Han
characters were traditional ones the importer folded to simplified.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.domain.questions import Question

__all__ = ["bank_language", "text_language"]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Traditional text changes about a quarter of its characters when folded to simplified; a
# simplified bank with a stray traditional character changes a few in a thousand.
_TRADITIONAL_SHARE = 0.05


def _texts(questions: Iterable[Question]) -> Iterable[str]:
    for q in questions:
        yield q.stem
        yield from (text for _, text in q.options)
        yield q.explanation


def text_language(texts: Iterable[str]) -> tuple[str, int]:
    """`zh`, `en` or `` (no letters at all), and the number of Han characters."""
    han = words = 0
    for text in texts:
        han += len(_HAN.findall(text))
        words += len(_LATIN_WORD.findall(text))
    if not han and not words:
        return "", 0
    return ("zh" if han >= words else "en"), han


def bank_language(
    questions: Iterable[Question],
    *,
    declared: str = "",
    script: str = "",
    converted: int = 0,
    title: str = "",
    fallback: str = "zh-CN",
) -> str:
    """The bank's language tag (`zh-CN`, `zh-TW`, `en`, or what the source declares).

    `script` is what the source's own words say of a Chinese text (a header in `題型`…: zh-TW),
    `converted` how many traditional characters the importer folded to simplified."""
    if declared:
        return declared
    kind, han = text_language([title, *_texts(questions)])
    traditional = bool(han) and converted / han >= _TRADITIONAL_SHARE
    if script:  # a Chinese header is a Chinese bank's (an English one says nothing: old exports)
        return "zh-TW" if script == "zh-TW" or traditional else "zh-CN"
    if kind == "en":
        return "en"
    if kind == "zh":
        return "zh-TW" if traditional else "zh-CN"
    return fallback
