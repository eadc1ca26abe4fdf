"""The paper reader on each layout it must read: one item per line, multi-line blocks, no
section headers, traditional with pinyin, and a damaged paper; plus every marker form."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank.importer import ImportResult, import_paper
from bank.loader import load_bank_text
from bank.yaml_io import dump_bank
from bot.domain.questions import QuestionType

PAPERS = Path(__file__).parent / "papers"
S, M, J, F, SH = (QuestionType.SINGLE, QuestionType.MULTI, QuestionType.JUDGE,
                  QuestionType.FILL, QuestionType.SHORT)


OVERFITTING = (
    "过拟合指模型在训练集上表现很好、在新数据上表现差；可以通过增加数据、正则化、Dropout、早停等方法缓解。"
)


def imp(text: str, **kwargs) -> ImportResult:
    return import_paper(text, bank_id=kwargs.pop("bank_id", "t"), **kwargs)


def paper(name: str) -> ImportResult:
    return imp((PAPERS / name).read_text(encoding="utf-8"))


def key(result: ImportResult) -> list[tuple]:
    return [(q.number, q.type, q.answer, q.points) for q in result.bank.questions]


def kinds(result: ImportResult) -> list[tuple[str, int | None]]:
    return [(w.kind, w.number) for w in result.warnings]


# ---------------------------------------------------------------- layouts


def test_one_item_per_line_with_headers() -> None:
    r = paper("lines_headers.txt")
    assert key(r) == [
        (1, S, ("B",), 1), (2, S, ("A",), 1), (3, S, ("B",), 1), (4, S, ("B",), 1),
        (5, M, ("A", "C", "D"), 2), (6, M, ("A", "B", "C"), 2), (7, M, ("A", "B", "D"), 2),
        (8, J, ("false",), 1), (9, J, ("true",), 1), (10, J, ("true",), 1),
        (11, J, ("false",), 1), (12, J, ("false",), 1), (13, J, ("true",), 1),
        (14, J, ("true",), 1), (15, J, ("false",), 1),
        (16, F, ("分词", "切词", "tokenization"), 2), (17, F, ("AUC",), 2),
        (18, SH, ("抽样复检、交叉标注一致性检验、专家审核、自动规则校验。",), 5),
    ]
    assert r.warnings == ()
    assert r.bank.title == "人工智能训练师（四级）理论知识模拟卷"
    q4 = r.bank.question("t-004")
    assert q4.stem == "以下哪种激活函数的输出范围是(0,1)？"
    assert q4.options == (("A", "ReLU"), ("B", "Sigmoid"), ("C", "Tanh"), ("D", "LeakyReLU"))
    assert q4.explanation == "Sigmoid的值域为(0,1)。"
    q3 = r.bank.question("t-003")
    assert q3.options[0] == ("A", "增大到1.0") and q3.options[3] == ("D", "改为2.0")
    assert r.bank.question("t-012").explanation == "这是精确率的定义。"
    assert [(s.type, s.points, s.declared, s.found) for s in r.sections] == [
        (S, 1, 4, 4), (M, 2, 3, 3), (J, 1, 8, 8), (F, 2, 2, 2), (SH, 5, 1, 1),
    ]


def test_multi_line_blocks_with_headers() -> None:
    r = paper("blocks_headers.txt")
    assert key(r) == [
        (1, S, ("B",), 2), (2, S, ("A",), 2), (3, S, ("A",), 2),
        (4, M, ("A", "B", "D"), 3), (5, M, ("A", "B", "C"), 3),
        (6, J, ("true",), 1), (7, J, ("false",), 1),
    ]
    assert r.warnings == ()
    q1 = r.bank.question("t-001")
    assert q1.stem == "在卷积神经网络中，池化层的主要作用是"
    assert q1.explanation == "池化通过下采样减小特征图尺寸，降低后续层的计算量。"  # wrapped line
    q2 = r.bank.question("t-002")  # two options per line
    assert q2.options == (("A", "0.62"), ("B", "0.65"), ("C", "0.70"), ("D", "0.80"))
    assert q2.explanation == "F1 = 2×0.8×0.5/(0.8+0.5) ≈ 0.615。"
    assert r.bank.question("t-003").options[0] == ("A", "import torch")
    assert r.bank.question("t-005").explanation == ""


def test_without_headers_type_follows_the_items_shape() -> None:
    r = paper("no_headers.txt")
    assert key(r) == [
        (1, S, ("A",), 1),  # options and one letter
        (2, M, ("A", "B", "D"), 1),  # several letters
        (3, J, ("true",), 1),  # 正确
        (4, F, ("激活",), 1),  # ____ blank and a text answer
        (5, F, ("样本总数", "全部样本数"), 1),  # （ ） blank, 或 alternatives
        (6, SH, (OVERFITTING,), 1),  # no blank, free text
        (7, J, ("true",), 1),  # √
        (8, J, ("true",), 1),  # options 正确/错误 and a letter
    ]
    assert r.sections == ()
    assert r.warnings == ()
    assert r.bank.question("t-008").options == ()
    assert r.bank.question("t-008").stem.endswith("使用训练时统计的均值和方差。")
    assert r.bank.title == "t"  # no title line: the bank id


def test_traditional_with_pinyin_keeps_code_and_maths() -> None:
    r = paper("traditional_pinyin.txt")
    q1, q2 = r.bank.questions
    assert q1.stem == "在PyTorch中，使用torch.jit.trace导出模型时，时间复杂度为O(nlogn)的排序操作会被"
    assert q1.options == (("A", "忽略"), ("B", "记录为静态图"), ("C", "报错"), ("D", "转为Python函数"))
    assert q1.answer == ("B",)
    assert q1.explanation == "trace只记录一次执行路径，输入范围(0,1)内的数据也一样。"
    assert q2.type is F and q2.answer == ("2.4",) and q2.points == 2
    assert q2.stem == "扩散模型的网络预测噪声ε_θ(x_t,t)，参数量1.2B的模型用FP16存储约需要________GB。"
    assert [s.type for s in r.sections] == [S, F]
    # The `?` is reported at its place in the source, pinyin and all.
    source = (PAPERS / "traditional_pinyin.txt").read_text(encoding="utf-8")
    lost = [w for w in r.warnings if w.kind == "lost-char"]
    line_no = source[: source.index("=?x")].count("\n") + 1
    line = source.split("\n")[line_no - 1]
    assert [w.where for w in lost] == [f"{line_no}:{line.index('?') + 1}"]
    assert kinds(r) == [("lost-char", 2)]


def test_damaged_paper_reports_everything_it_cannot_place() -> None:
    r = paper("damaged.txt")
    assert key(r) == [
        (1, S, ("B",), 1), (2, S, ("A",), 1), (4, S, ("B",), 1),
        (5, J, ("true",), 1), (6, J, ("true",), 1),
        (7, SH, ("应记录该样本并提交给质检员或项目负责人统一判定，不能随意标注，因为",), 5),
    ]
    by_kind = {(w.kind, w.where): w for w in r.warnings}
    assert set(by_kind) == {
        ("unplaced", "2:1"),  # 考试时间：90分钟 (line 1 is the title)
        ("unplaced", "4:1"),  # 请将正确答案填写在括号内。 between header and item 1
        ("missing-item", "13:1"),  # numbering jumps from 2 to 4
        ("section-count", "3:1"),  # 5 declared, 3 found
        ("section-count", "17:1"),  # 3 declared, 2 found
        ("section-count", "23:1"),  # 2 declared, 1 found: item 8 missing
        ("duplicate-option", "13:1"),  # B and D are both 损失值
        ("lost-char", "22:36"),  # 1e?3
        ("truncated", "25:36"),  # the last answer stops at 因为
    }
    assert "考试时间：90分钟" in by_kind[("unplaced", "2:1")].message
    assert "item(s) 3 " in by_kind[("missing-item", "13:1")].message
    assert "missing item(s) 8" in by_kind[("section-count", "23:1")].message
    assert by_kind[("truncated", "25:36")].number == 7
    assert r.bank.title == "人工智能训练师 模拟卷（含答案）"


def test_decimals_and_versions_are_never_item_numbers() -> None:
    r = paper("damaged.txt")
    q1 = r.bank.question("t-001")
    assert q1.stem == "某数据集有1000条样本，模型参数量1.2B，按0.1的比例抽取验证集，验证集样本数为"
    assert q1.options[3] == ("D", "0.1")
    assert q1.explanation == "1000×0.1=100，与模型版本2.0无关。"
    assert r.bank.question("t-002").stem == "模型版本号从1.2升级到2.0，通常说明"
    # `第5.条` glued to text, with no answer after it, does not start item 5.
    assert r.bank.question("t-004").explanation == "损失值越小说明拟合越好，详见评分细则第5.条"


def test_run_together_items_with_numbers_in_stems_and_options() -> None:
    text = (
        "1.学习率为0.1时，权重衰减取5.0e-4，模型约1.2B参数，则A.0.1B.2.0C.5.D.1.2B答案：A解析：见第2.0版"
        "说明。2.训练20.5小时后，第3.5轮的损失为A.3.B.2.5C.0.3D.1答案：C3.Adam的默认β1为0.9。答案：正确"
    )
    r = imp(text)
    assert [(q.number, q.answer) for q in r.bank.questions] == [
        (1, ("A",)), (2, ("C",)), (3, ("true",)),
    ]
    q1 = r.bank.questions[0]
    assert q1.options == (("A", "0.1"), ("B", "2.0"), ("C", "5."), ("D", "1.2B"))
    assert r.bank.questions[1].options[0] == ("A", "3.")
    assert r.bank.questions[1].explanation == ""


# ---------------------------------------------------------------- marker forms


ITEM = "{n}在深度学习中，ReLU函数的输出范围是\nA. [0,+∞)\nB. (0,1)\nC. (-1,1)\nD. 全体实数\n答案：A\n"


@pytest.mark.parametrize("marker", ["{n}.", "{n}、", "{n}．", "{n}. ", "{n} 、"])
def test_item_number_forms(marker: str) -> None:
    text = "".join(ITEM.replace("{n}", marker.format(n=n)) for n in (1, 2, 3))
    r = imp(text)
    assert [q.number for q in r.bank.questions] == [1, 2, 3]
    assert r.bank.questions[2].stem == "在深度学习中，ReLU函数的输出范围是"
    assert r.warnings == ()


@pytest.mark.parametrize(
    "options",
    [
        "A.交叉熵\nB.均方误差\nC.Hinge损失\nD.KL散度",
        "A．交叉熵\nB．均方误差\nC．Hinge损失\nD．KL散度",
        "A、交叉熵\nB、均方误差\nC、Hinge损失\nD、KL散度",
        "A)交叉熵\nB)均方误差\nC)Hinge损失\nD)KL散度",
        "A）交叉熵 B）均方误差 C）Hinge损失 D）KL散度",
        "(A) 交叉熵 (B) 均方误差\n(C) Hinge损失 (D) KL散度",
        "A. 交叉熵    B. 均方误差    C. Hinge损失    D. KL散度",
        "A.交叉熵B.均方误差C.Hinge损失D.KL散度",
    ],
)
def test_option_marker_forms(options: str) -> None:
    r = imp(f"1. 多分类任务最常用的损失函数是\n{options}\n答案：A\n")
    (q,) = r.bank.questions
    assert q.options == (("A", "交叉熵"), ("B", "均方误差"), ("C", "Hinge损失"), ("D", "KL散度"))
    assert q.stem == "多分类任务最常用的损失函数是"


@pytest.mark.parametrize(
    "marker", ["答案：", "答案:", "答案 ：", "【答案】", "正确答案：", "参考答案：", "[答案]"]
)
def test_answer_marker_forms(marker: str) -> None:
    r = imp(f"1. 以下属于无监督学习的是 A.K均值聚类 B.逻辑回归 C.决策树 D.线性回归 {marker}A\n")
    assert r.bank.questions[0].answer == ("A",)
    assert r.bank.questions[0].options[3] == ("D", "线性回归")


@pytest.mark.parametrize("marker", ["解析：", "解析:", "【解析】", "答案解析：", "【分析】"])
def test_explanation_marker_forms(marker: str) -> None:
    r = imp(f"1. 以下属于无监督学习的是 A.K均值聚类 B.逻辑回归 答案：A {marker}聚类不需要标签。\n")
    q = r.bank.questions[0]
    assert (q.answer, q.explanation) == (("A",), "聚类不需要标签。")


@pytest.mark.parametrize("answer", ["A,B,D", "A、B、D", "ABD", "A，B，D", "A B D", "A;B;D", "abd"])
def test_multi_answer_forms(answer: str) -> None:
    r = imp(f"1. 以下属于深度学习框架的有\nA.PyTorch\nB.TensorFlow\nC.Excel\nD.MindSpore\n答案：{answer}\n")
    q = r.bank.questions[0]
    assert (q.type, q.answer) == (M, ("A", "B", "D"))


@pytest.mark.parametrize(
    ("word", "value"),
    [("正确", "true"), ("错误", "false"), ("对", "true"), ("错", "false"), ("√", "true"),
     ("×", "false"), ("T", "true"), ("F", "false"), ("✓", "true"), ("✗", "false"),
     ("（正确）", "true"), ("错误。", "false")],
)
def test_judge_answer_forms(word: str, value: str) -> None:
    with_header = imp(f"一、判断题（每题1分，共1分）\n1. 验证集可用于调参。\n答案：{word}\n")
    without = imp(f"1. 验证集可用于调参。\n答案：{word}\n")
    for r in (with_header, without):
        (q,) = r.bank.questions
        assert (q.type, q.answer) == (J, (value,))


def test_fill_alternatives_joined_by_huo() -> None:
    r = imp("一、填空题（每题2分，共2分）\n1. 在PyTorch中导出静态图的API是torch.jit.________。"
            "\n答案：trace或script\n")
    assert r.bank.questions[0].answer == ("trace", "script")


def test_section_header_decides_the_type_over_the_shape() -> None:
    item = "1. 模型的参数量记为________。\n答案：T\n"
    assert imp(item).bank.questions[0].type is F  # blank + `T`: a fill answer
    judged = imp("三、判断题（每题1分，共1分）\n" + item).bank.questions[0]
    assert (judged.type, judged.answer) == (J, ("true",))
    short = imp("五、简答题（每题5分，共5分）\n1. 简述Dropout的作用。\n答案：正确\n").bank.questions[0]
    assert (short.type, short.answer) == (SH, ("正确",))


def test_type_conflicts_with_header_are_warned() -> None:
    r = imp("一、单选题（每题1分，共2分）\n1. 下列是框架的有 A.PyTorch B.Excel C.MindSpore 答案：AC\n"
            "2. 以下属于优化器的是 A.Adam B.ReLU 答案：A\n")
    assert [q.type for q in r.bank.questions] == [M, S]
    assert kinds(r) == [("type", 1)]
    r = imp("二、多选题（每题2分，共2分）\n1. 以下属于优化器的有 A.Adam B.ReLU 答案：A\n")
    assert r.bank.questions[0].type is S
    assert kinds(r) == [("type", 1)]


def test_item_without_answer_is_reported_not_imported() -> None:
    r = imp("1. 以下属于优化器的是\nA.Adam\nB.ReLU\n2. 以下属于激活函数的是\nA.Adam\nB.ReLU\n答案：B\n")
    assert [q.number for q in r.bank.questions] == [2]
    (warning,) = r.warnings
    assert (warning.kind, warning.number, warning.where) == ("no-answer", 1, "1:1")


def test_answer_written_in_the_stem_blank() -> None:
    r = imp("1. 以下属于优化器的是（ A ）\nA.Adam\nB.ReLU\n")
    q = r.bank.questions[0]
    assert (q.answer, q.stem) == (("A",), "以下属于优化器的是（ ）")


def test_numbering_that_restarts_per_section_is_renumbered() -> None:
    r = imp("一、单选题（每题1分，共1分）\n1. 以下属于优化器的是 A.Adam B.ReLU 答案：A\n"
            "二、判断题（每题1分，共1分）\n1. Adam是一种优化器。答案：正确\n")
    assert [(q.id, q.type) for q in r.bank.questions] == [("t-001", S), ("t-002", J)]
    assert kinds(r) == [("renumbered", None)]


def test_second_answer_marker_in_an_item_is_reported() -> None:
    text = ("1. 以下属于优化器的是 A.Adam B.ReLU 答案：A 解析：Adam。二 以下属于激活函数的是"
            " A.Adam B.ReLU 答案：B。\n")
    r = imp(text)
    assert [(w.kind, w.where) for w in r.warnings] == [
        ("unplaced", f"1:{text.index('答案：B') + 1}")
    ]


def test_answer_on_its_own_line_then_unmarked_explanation() -> None:
    r = imp("1. 以下属于优化器的是\nA.Adam\nB.ReLU\n答案：A\nAdam结合了动量与自适应学习率。\n")
    q = r.bank.questions[0]
    assert (q.answer, q.explanation) == (("A",), "Adam结合了动量与自适应学习率。")


def test_ids_points_and_title() -> None:
    r = imp("一、简答题（每题2.5分，共5分）\n1. 简述正则化。答案：限制模型复杂度。\n"
            "2. 简述早停。答案：验证损失不再下降时停止训练。\n", bank_id="mock-1", title="模拟")
    assert [q.id for q in r.bank.questions] == ["mock-1-001", "mock-1-002"]
    assert [q.points for q in r.bank.questions] == [2.5, 2.5]
    assert r.bank.title == "模拟"
    with pytest.raises(ValueError):
        imp("1. x 答案：y", bank_id="Bad Id")


def test_nothing_found_is_an_empty_bank_with_the_text_reported() -> None:
    r = imp("这不是一份试卷。\n只有两行文字。")
    assert r.bank.questions == ()
    assert [w.where for w in r.warnings] == ["2:1"]  # line 1 is taken as the title


# ---------------------------------------------------------------- round trip


@pytest.mark.parametrize(
    "name",
    ["lines_headers.txt", "blocks_headers.txt", "no_headers.txt", "traditional_pinyin.txt",
     "damaged.txt"],
)
def test_round_trip_through_yaml(name: str) -> None:
    bank = paper(name).bank
    assert load_bank_text(dump_bank(bank), name) == bank


def test_numbered_list_in_an_explanation_is_not_the_next_item() -> None:
    text = ("1.防止过拟合的方法有哪些A.早停B.加深网络答案：A解析：常用方法：1.早停；2.正则化；3.数据增强。"
            "2.以下属于正则化的是A.L2B.ReLU答案：A3.数据增强只适用于图像。答案：错误")
    r = imp(text)
    assert [(q.number, q.answer) for q in r.bank.questions] == [
        (1, ("A",)), (2, ("A",)), (3, ("false",)),
    ]
    assert r.bank.questions[0].explanation == "常用方法：1.早停；2.正则化；3.数据增强。"


def test_short_item_keeps_option_like_text_in_its_stem() -> None:
    r = imp("五、简答题（每题5分，共5分）\n1. 比较A. 批归一化和B. 层归一化的区别。\n答案：统计维度不同。\n")
    assert r.bank.questions[0].stem == "比较A. 批归一化和B. 层归一化的区别。"


@pytest.mark.parametrize(
    ("header", "points", "warned"),
    [
        ("第一部分 单项选择题（共2题，每题1.5分）", 1.5, []),
        ("一. 单选题 (每题1.5分,共3分)", 1.5, []),
        ("单选题（每题1.5分）", 1.5, []),
        ("一、单选题", 1, []),
        # Points on a line of their own are not part of the header: reported, default points.
        ("一、单选题\n（每题1.5分，共3分）", 1, ["unplaced"]),
    ],
)
def test_header_forms(header: str, points: float, warned: list[str]) -> None:
    r = imp(f"{header}\n1. 以下属于优化器的是 A.Adam B.ReLU 答案：A\n"
            "2. 以下属于激活函数的是 A.Adam B.ReLU 答案：B\n")
    assert [(q.type, q.points) for q in r.bank.questions] == [(S, points), (S, points)]
    assert len(r.sections) == 1
    assert [w.kind for w in r.warnings] == warned


_TOKENS = st.sampled_from([
    "1.", "2.", "3、", "4．", "A.", "B.", "C、", "D)", "(A)", "答案：", "【答案】", "解析：", "正确", "错误",
    "√", "T", "或", "____", "（ ）", "\n", " ", "。", "，", "?", "數(shù)", "据", "模型", "0.1", "1.2B",
    "O(n)", "AB", "A,B", "一、单选题（每题1分，共2分）", "二、判断题（每题2分，共4分）", "三、填空题",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=50))
def test_any_text_imports_into_a_loadable_bank(parts: list[str]) -> None:
    r = imp("".join(parts))
    r.summary()
    if r.bank.questions:
        assert load_bank_text(dump_bank(r.bank), "fuzz.yaml") == r.bank


def test_item_number_glued_to_a_numeric_answer_is_reported() -> None:
    # `答案：4096` runs straight into `2.`: the number cannot be told apart, so item 1 swallows
    # item 2, and both the jump and the second answer marker are reported.
    text = ("1.前馈维度常取________。答案：40962.初始学习率取________。答案：0.001。"
            "3.Adam是一种优化器。答案：正确")
    r = imp(text)
    assert [q.number for q in r.bank.questions] == [1, 3]
    assert sorted(w.kind for w in r.warnings) == ["missing-item", "unplaced"]
    unplaced = next(w for w in r.warnings if w.kind == "unplaced")
    assert unplaced.where == f"1:{text.index('答案：0.001') + 1}"
