"""Text cleaning for imported papers: ruby pinyin removal (code and maths untouched), t2s,
full-width folding and the map from cleaned characters back to source positions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bank.importer.clean import clean_text, is_pinyin_syllable, to_simplified


def cleaned(text: str) -> str:
    return clean_text(text).text


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("數(shù)據(jù)", "数据"),
        ("高級(jí)人工智能訓(xùn)練師", "高级人工智能训练师"),
        ("數（shù）據（jù）", "数据"),  # full-width brackets
        ("綠(lǜ)色", "绿色"),  # ü with a tone mark
        ("女(nǚ)性", "女性"),
        ("略(lüè)", "略"),
        ("模型的(de)參數(shù)", "模型的参数"),  # neutral tone after a CJK character
        ("單(dān)選(xuǎn)題(tí)", "单选题"),
    ],
)
def test_pinyin_after_cjk_is_removed(source: str, expected: str) -> None:
    assert cleaned(source) == expected


@pytest.mark.parametrize(
    "code",
    [
        "O(nlogn)",
        "O(n)",
        "O(√n)",
        "O(n2)",
        "torch.jit.trace",
        "(0,1)",
        "1.2B",
        "ε_θ(x_t,t)",
        "MSE(ε_θ(x_t,t),ε)",
        "f(x)=softmax(z)",
        "范围(0,1)内",
        "复杂度O(nlogn)",
        "数组(a)",  # a bare syllable without a tone mark is not ruby
        "量化尺度(scale)",
        "分块(tile)",
        "数据(shù jù)",  # two syllables: not one ruby annotation
        "mode(de)",  # neutral syllables only count after a CJK character
    ],
)
def test_code_and_maths_survive(code: str) -> None:
    assert cleaned(code) == code


def test_pinyin_after_non_cjk_is_removed_with_a_note() -> None:
    doc = clean_text("理论峰值312TFLOPS，F(xiàn)P32仅19.5TFLOPS")
    assert doc.text == "理论峰值312TFLOPS，FP32仅19.5TFLOPS"
    assert len(doc.notes) == 1
    offset, note = doc.notes[0]
    assert offset == doc.original.index("(xiàn)")
    assert "xiàn" in dict(note)["pinyin"]


def test_pinyin_that_lost_its_opening_bracket_leaves_the_question_mark() -> None:
    # The source lost a character and the `(` of its pinyin: `變?yōu)?768`.
    assert cleaned("變?yōu)?768×1536)") == "变??768×1536)"
    assert cleaned("已知?dú)v史") == "已知?v史"


def test_traditional_to_simplified() -> None:
    assert cleaned("數據標註與質量檢查，後續訓練") == "数据标注与质量检查，后续训练"
    assert cleaned("二、多選題（每題2分，共20分）") == "二、多选题（每题2分，共20分）"


def test_full_width_letters_and_digits_are_folded_but_not_punctuation() -> None:
    assert cleaned("１．Ａ．ＰｙＴｏｒｃｈ，（　）") == "1．A．PyTorch，（　）"


def test_carriage_returns_dropped_and_positions_kept() -> None:
    doc = clean_text("第一行\r\n數(shù)據(jù)?x\r\n")
    assert doc.text == "第一行\n数据?x\n"
    q = doc.text.index("?")
    assert doc.where(q) == "2:12"  # 數 (shù) 據 (jù) ?
    assert doc.original[doc.source_offset(q)] == "?"


def test_is_pinyin_syllable() -> None:
    assert is_pinyin_syllable("shù")
    assert is_pinyin_syllable("zhuǎn")
    assert is_pinyin_syllable("lǜ")
    assert not is_pinyin_syllable("shu")  # no tone mark
    assert is_pinyin_syllable("de", neutral_ok=True)
    assert not is_pinyin_syllable("nlogn")
    assert not is_pinyin_syllable("Shù")
    assert not is_pinyin_syllable("scàle")


_CJK = st.sampled_from("數據訓練師模型參數學習率中文標註")
_RUBY = st.sampled_from(["(shù)", "(jù)", "（xùn）", "(liàn)", ""])
_CODE = st.sampled_from(["O(n)", "(0,1)", "x_t", "1.2B", " ", "\n", "A.", "(x_t,t)", "?"])


@given(st.lists(st.one_of(st.tuples(_CJK, _RUBY), st.tuples(_CODE, st.just(""))), max_size=30))
def test_every_cleaned_character_maps_back_to_its_source(parts: list[tuple[str, str]]) -> None:
    source = "".join(a + b for a, b in parts)
    doc = clean_text(source)
    assert doc.text == to_simplified("".join(a for a, _ in parts))
    assert len(doc.origin) == len(doc.text)
    for i, char in enumerate(doc.text):
        assert to_simplified(doc.original[doc.source_offset(i)]) == char
