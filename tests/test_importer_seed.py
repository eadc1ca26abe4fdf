"""The seed paper (one line, traditional characters with pinyin, 62 items) imported in full:
counts, the whole answer key as printed in the paper, clean text and the expected warnings."""

from __future__ import annotations

import re
from pathlib import Path

import opencc
import pytest

from bank.importer import ImportResult, import_paper
from bank.loader import load_bank_text
from bank.yaml_io import dump_bank
from bot.domain.questions import QuestionType

PAPERS = Path(__file__).parent / "papers"
SEED = PAPERS / "seed_000_8cd945649fa5e6b6.txt"
SHARED_SEED = Path(__file__).resolve().parents[2] / "shared" / "seed" / SEED.name[5:]

# The answer key as printed after each 答案： in the seed (read off the paper by hand).
SINGLE_KEY = "CDBCCCBBCAABBACBBCBAABCACCBCCA"  # items 1-30
MULTI_KEY = ["ABD", "ABD", "ABD", "AB", "ABC", "ABD", "ABC", "ABCD", "ABC", "AB"]  # 31-40
JUDGE_KEY = "错错对错错对对错对对"  # 41-50: 错误 / 正确
FILL_KEY = [  # 51-60
    ("4096",), ("5e4",), ("?ηλθ_t",), ("linear",), ("4.8",), ("2",), ("trace", "script"),
    ("2048",), ("96",), ("3.125",),
]
SHORT_STARTS = ["FlashAttention将注意力矩阵按块（tile）划分", "LocalSGD让客户端多步本地更新后再聚合"]

_PINYIN_MARKS = re.compile("[āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]")


@pytest.fixture(scope="module")
def seed() -> ImportResult:
    return import_paper(SEED.read_text(encoding="utf-8"), bank_id="seed", source=SEED.name)


def test_fixture_is_the_seed_paper() -> None:
    if SHARED_SEED.exists():
        assert SEED.read_bytes() == SHARED_SEED.read_bytes()
    assert SEED.read_text(encoding="utf-8").count("\n") == 0  # all on one line


def test_counts_per_type(seed: ImportResult) -> None:
    assert len(seed.bank.questions) == 62
    assert {t.value: n for t, n in seed.counts.items() if n} == {
        "single": 30, "multi": 10, "judge": 10, "fill": 10, "short": 2,
    }
    assert [q.number for q in seed.bank.questions] == list(range(1, 63))
    assert [q.id for q in seed.bank.questions][:2] == ["seed-001", "seed-002"]


def test_full_answer_key(seed: ImportResult) -> None:
    qs = seed.bank.questions
    T = QuestionType
    assert [(q.type, q.answer) for q in qs[:30]] == [(T.SINGLE, (c,)) for c in SINGLE_KEY]
    assert [(q.type, q.answer) for q in qs[30:40]] == [(T.MULTI, tuple(k)) for k in MULTI_KEY]
    assert [(q.type, q.answer) for q in qs[40:50]] == [
        (T.JUDGE, ("true",) if c == "对" else ("false",)) for c in JUDGE_KEY
    ]
    assert [(q.type, q.answer) for q in qs[50:60]] == [(T.FILL, k) for k in FILL_KEY]
    assert [q.type for q in qs[60:]] == [T.SHORT, T.SHORT]
    for q, start in zip(qs[60:], SHORT_STARTS, strict=True):
        assert q.answer[0].startswith(start)


def test_points_from_the_section_headers(seed: ImportResult) -> None:
    points = [q.points for q in seed.bank.questions]
    assert points == [1] * 30 + [2] * 10 + [1] * 10 + [2] * 10 + [10] * 2
    assert seed.total_points == 100  # the paper's 110 less the missing item 63


def test_options_stems_and_explanations(seed: ImportResult) -> None:
    q1 = seed.bank.question("seed-001")
    assert q1.stem == "在Transformer架构中，用于防止未来信息泄露的核心机制是"
    assert q1.options == (("A", "层归一化"), ("B", "位置编码"), ("C", "自注意力掩码"), ("D", "残差连接"))
    assert q1.explanation.startswith("自注意力掩码（LookaheadMask）在解码器训练阶段")
    q3 = seed.bank.question("seed-003")  # run-together Latin options
    assert [text for _, text in q3.options] == ["FedAvg", "Krum", "FedProx", "FedSGD"]
    q20 = seed.bank.question("seed-020")
    assert [text for _, text in q20.options] == [
        "NCCL_P2P_DISABLE", "HOROVOD_FUSION_THRESHOLD", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
    ]
    q22 = seed.bank.question("seed-022")  # the maths survives the pinyin removal
    assert [text for _, text in q22.options] == ["O(nlogn)", "O(n)", "O(√n)", "O(1)"]
    assert seed.bank.question("seed-005").options[2] == ("C", "噪声分量ε_θ(x_t,t)")
    assert "19.5TFLOPS" in seed.bank.question("seed-018").explanation  # not item 19
    assert seed.bank.question("seed-055").stem.startswith("若模型参数量1.2B，使用FP16+ZeRO2")
    assert "torch.jit.script" in seed.bank.question("seed-017").explanation
    assert seed.bank.title == "2025年高级人工智能训练师核心备考试题库及答案"
    assert all(q.explanation for q in seed.bank.questions[:60])


def test_no_traditional_characters_and_no_pinyin_left(seed: ImportResult) -> None:
    t2s = opencc.OpenCC("t2s")
    for q in seed.bank.questions:
        for text in (q.stem, q.explanation, *q.answer, *(t for _, t in q.options)):
            assert t2s.convert(text) == text, (q.id, text)
            assert not _PINYIN_MARKS.search(text), (q.id, text)


def test_warnings(seed: ImportResult) -> None:
    found = {(w.kind, w.number) for w in seed.warnings}
    assert found == {
        ("lost-char", 1),  # ?∞ (minus sign) and ?v史
        ("lost-char", 9),  # 变??768
        ("lost-char", 13),  # 最??；
        ("duplicate-option", 16),  # B and D both 64
        ("lost-sign", 52),  # 1e3 and 5e4
        ("lost-char", 53),  # ?ηλθ_t
        ("lost-char", 62),  # g?=g/max(1,‖g‖?/C)+??(0,…)
        ("truncated", 62),  # the answer stops at 由于噪声均值为0，
        ("section-count", None),  # 简答题 promises 3 items: 63 is missing
        ("pinyin", None),  # ε_(tái)θ and F(xiàn)P32: pinyin after a non-CJK character
    }
    (count,) = [w for w in seed.warnings if w.kind == "section-count"]
    assert "declares 3 items, found 2; missing item(s) 63" in count.message
    assert all(w.where.startswith("1:") for w in seed.warnings)
    duplicate = next(w for w in seed.warnings if w.kind == "duplicate-option")
    assert "B and D" in duplicate.message and "'64'" in duplicate.message
    text = SEED.read_text(encoding="utf-8")
    first_lost = min((w for w in seed.warnings if w.kind == "lost-char"),
                     key=lambda w: int(w.where.split(":")[1]))
    assert first_lost.where == f"1:{text.index('?∞') + 1}"


def test_sections(seed: ImportResult) -> None:
    assert [(s.type.value, s.points, s.declared, s.found) for s in seed.sections] == [
        ("single", 1, 30, 30), ("multi", 2, 10, 10), ("judge", 1, 10, 10), ("fill", 2, 10, 10),
        ("short", 10, 3, 2),
    ]


def test_summary_text(seed: ImportResult) -> None:
    summary = seed.summary()
    assert summary.startswith("62 items (30 single, 10 multi, 10 judge, 10 fill, 2 short)")
    assert "section 五、简答题（每题10分，共30分） [short, 10 pt each]: 2/3 items" in summary


def test_round_trip_through_yaml(seed: ImportResult) -> None:
    assert load_bank_text(dump_bank(seed.bank), "seed.yaml") == seed.bank
