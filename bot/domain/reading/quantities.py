"""Fill answers that are quantities: a number with an optional unit or measure word (4.8 GB,
50%, 两种, 100万), and when two of them are the same answer.

The rules, decided by what the key means:
- the numbers must agree (as in bot.domain.reading.numbers); Chinese numerals count (二种 = 两种 = 2种);
- the units must agree, up to spelling (4.8G = 4.8GB, 5千克 = 5kg, 3秒 = 3s), or one side may
  leave a known unit out (4.8 for 4.8 GB: blanks like "约____GB" carry it in the stem);
- no conversion between units (4800MB is not 4.8GB: 1000 or 1024 is the question's business);
- a % on one side only: the other side either left it out (50 for 50%) or wrote the fraction
  (0.5 for 50%); 百分之五十 is 50%;
- 万 and 亿 (and 千 before a non-unit) multiply: 100万 = 1000000;
- text after a number that is not a known unit (3D打印, 5e) makes the answer text, not a
  quantity, so "3" never matches "3D".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from bot.domain.reading.numbers import CHINESE_NUMERAL_CHARS, chinese_number, numbers_close, parse_folded

__all__ = ["Quantity", "fold_numerals", "quantities_match", "quantities_within", "read_quantity"]

PERCENT = "%"

# Spellings of one unit, after normalize_text (casefolded, NFKC: ℃ -> °c, µ -> μ).
# fmt: off
_UNIT_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "b byte bytes 字节",
        "kb k",
        "mb m",
        "gb g",
        "tb t",
        "pb p",
        "kib", "mib", "gib", "tib",
        "bit bits 位",  # 32位 is 32-bit
        "kbps", "mbps", "gbps",
        "hz 赫兹", "khz", "mhz", "ghz",
        "ns 纳秒", "μs us 微秒", "ms 毫秒", "s sec 秒", "min 分钟", "h hr 小时",
        "天", "日", "周 星期", "个月", "月", "年",  # 3日 is a date, 3天 a span
        "nm 纳米", "mm 毫米", "cm 厘米", "m 米", "km 千米 公里",
        "mg 毫克", "g 克", "kg 千克 公斤", "吨",
        "° 度", "°c 摄氏度",
        PERCENT,
        "‰",
        "元 块", "美元",
        "px 像素", "dpi", "fps 帧", "flops", "gflops", "tflops",
        "epoch epochs 轮", "layer layers 层", "step steps 步", "token tokens",
        "倍",
        # Chinese measure words: 二种 and 2 are one answer, 2种 and 2个 are not.
        "个", "种", "类", "次", "项", "名", "条", "件", "维", "阶", "级", "组", "张",
        "台", "套", "部", "篇", "道", "页", "行", "列", "章", "节", "代", "人", "遍",
    )
)
# fmt: on
_UNITS: frozenset[str] = frozenset().union(*_UNIT_GROUPS)
_SAME_UNIT: frozenset[frozenset[str]] = frozenset(
    frozenset(pair) for group in _UNIT_GROUPS for pair in combinations(group, 2)
)
_MULTIPLIERS = {"万": 1e4, "亿": 1e8, "千": 1e3}
_LONGEST_SUFFIX = max(map(len, _UNITS)) + 1  # a multiplier before the unit
_PERCENT_OF = "百分之"
_MEASURE_WORDS = "个种类层次步项位名条件倍轮维阶级组张台套部篇道页行列章节代遍"
_HAS_NUMERAL = re.compile(rf"[0-9{CHINESE_NUMERAL_CHARS}]")
_NUMERAL_BEFORE_MEASURE = re.compile(rf"[{CHINESE_NUMERAL_CHARS}]+(?=[{_MEASURE_WORDS}])")


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str  # "" when none was written, else one spelling from _UNITS


def _number(s: str) -> float | None:
    if "%" in s:
        return None
    value = parse_folded(s)
    if value is None:
        integer = chinese_number(s)
        value = None if integer is None else float(integer)
    return value


def _with_suffix(number: str, suffix: str) -> Quantity | None:
    """number + suffix as a quantity, the suffix being a unit, a multiplier, or both."""
    value = _number(number)
    if value is None:
        return None
    if suffix in _UNITS:
        return Quantity(value, suffix)
    if suffix[:1] in _MULTIPLIERS and (suffix[1:] in _UNITS or not suffix[1:]):
        return Quantity(value * _MULTIPLIERS[suffix[0]], suffix[1:])
    return None


def read_quantity(folded: str) -> Quantity | None:
    """The quantity written in text folded by normalize_text, or None if it is not one."""
    if not _HAS_NUMERAL.search(folded):
        return None
    if folded.startswith(_PERCENT_OF):
        value = _number(folded[len(_PERCENT_OF) :])
        return None if value is None else Quantity(value, PERCENT)
    value = _number(folded)
    if value is not None:
        return Quantity(value, "")
    # The longest known suffix first: 三千克 is 3 千克 (3 kg), not 3000 克.
    for start in range(max(1, len(folded) - _LONGEST_SUFFIX), len(folded)):
        if (quantity := _with_suffix(folded[:start], folded[start:])) is not None:
            return quantity
    return None


def _same_unit(a: str, b: str) -> bool:
    return a == b or frozenset((a, b)) in _SAME_UNIT


def quantities_match(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities are one answer (see the module's rules); symmetric."""
    if (a.unit == PERCENT) != (b.unit == PERCENT) and "" in (a.unit, b.unit):
        percent, bare = (a, b) if a.unit == PERCENT else (b, a)
        return numbers_close(percent.value, bare.value) or numbers_close(percent.value / 100, bare.value)
    if a.unit and b.unit and not _same_unit(a.unit, b.unit):
        return False
    return numbers_close(a.value, b.value)


# Float subtraction overshoots by an ulp or so (3.15 - 3.14 > 0.01): the bound is inclusive.
_TOLERANCE_SLACK = 1e-9


def quantities_within(a: Quantity, b: Quantity, tolerance: float) -> bool:
    """Whether two quantities are one answer up to `tolerance` (a GIFT numeric item's ±): they
    match as quantities_match says, or their units agree (or one is left out) and their values
    differ by at most the tolerance."""
    if quantities_match(a, b):
        return True
    if a.unit and b.unit and not _same_unit(a.unit, b.unit):
        return False
    return abs(a.value - b.value) <= tolerance * (1 + _TOLERANCE_SLACK)


def fold_numerals(folded: str) -> str:
    """Chinese numerals before a measure word written in digits (第二种 -> 第2种, 两个阶段 ->
    2个阶段), for comparing answers that are text with a count inside."""

    def digits(match: re.Match[str]) -> str:
        value = chinese_number(match.group())
        return match.group() if value is None else str(value)

    return _NUMERAL_BEFORE_MEASURE.sub(digits, folded)
