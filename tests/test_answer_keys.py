"""Answer keys at the end of a paper, in the layouts teachers use (tests/papers/keys/): every
fixture gives exactly its bank and its warnings; the issue's examples import; problems in a key
are told where they stand; random banks rendered in random key layouts read back exactly."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bank.importer import ImportResult, import_source

HERE = Path(__file__).parent / "papers" / "keys"
CASES = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))


def imp(text: str, name: str = "paper.txt") -> ImportResult:
    return import_source(text.encode(), name)


def bank_rows(result: ImportResult) -> list[tuple]:
    """Everything an imported item has, in order."""
    return [
        (q.number, q.type.value, q.points, q.stem, q.options, q.answer, q.explanation)
        for q in result.bank.questions
    ]


def expected_rows(bank: str, drop: list[int]) -> list[tuple]:
    rows = yaml.safe_load((HERE / "expected" / f"{bank}.yaml").read_text(encoding="utf-8"))
    return [
        (
            r["n"],
            r["type"],
            r["points"],
            r["stem"],
            tuple((r.get("options") or {}).items()),
            tuple(r["answer"]),
            r.get("explanation", ""),
        )
        for r in rows
        if r["n"] not in drop
    ]


def test_fixtures_cover_fifteen_layouts() -> None:
    assert len(CASES) >= 15
    assert sorted(CASES) == sorted(p.name for p in HERE.glob("*.txt"))


def key_warnings(result) -> list:
    """The warnings but the one that no item gave its points (these papers give none on
    purpose; that warning is tested in tests/test_bank_languages.py)."""
    return [w for w in result.warnings if w.kind != "points"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_imports_exactly(name: str) -> None:
    case = CASES[name]
    result = import_source((HERE / name).read_bytes(), name)
    assert bank_rows(result) == expected_rows(case["bank"], case.get("drop", []))
    assert sorted((w.kind, w.where) for w in key_warnings(result)) == sorted(map(tuple, case["warnings"]))


# ---------------------------------------------------------------- the issue's examples

ISSUE_ITEMS = """1. 以下哪个不是优化器
A. SGD B. Adam C. RMSprop D. ReLU
2. 以下哪个不是激活函数
A. ReLU B. Sigmoid C. Tanh D. Adam
3. 以下哪个是无监督学习算法
A. 线性回归 B. K-means C. 逻辑回归 D. 决策树
4. 以下属于正则化方法的有
A. L1 B. L2 C. Dropout D. SGD
5. 训练误差越小，模型越好。
6. 验证集用于调整超参数。
7. 衡量查全程度的指标是______。
"""
ISSUE_ANSWERS = [
    ("single", ("D",)),
    ("single", ("D",)),
    ("single", ("B",)),
    ("multi", ("A", "B", "C")),
    ("judge", ("false",)),
    ("judge", ("true",)),
    ("fill", ("召回率",)),
]


@pytest.mark.parametrize(
    "key",
    [
        "1.D 2.D 3.B 4.ABC 5.× 6.√ 7.召回率\n",
        "答案\n1.D 2.D 3.B 4.ABC 5.× 6.√ 7.召回率\n",
        "答案：1.D 2.D 3.B 4.ABC 5.× 6.√ 7.召回率\n",
        "参考答案：1.D 2.D 3.B 4.ABC 5.× 6.√ 7.召回率\n",
    ],
)
def test_the_issues_one_line_key(key: str) -> None:
    result = imp(ISSUE_ITEMS + key)
    assert [(q.type.value, q.answer) for q in result.bank.questions] == ISSUE_ANSWERS
    assert key_warnings(result) == []


def test_the_issues_numeral_only_key() -> None:
    text = (
        "一、单选题\n"
        + ISSUE_ITEMS.split("4. ")[0]
        + "二、多选题\n4. "
        + ISSUE_ITEMS.split("4. ")[1].split("5. ")[0]
        + "参考答案\n一、1.D 2.D 3.B\n二、4.ABC\n"
    )
    result = imp(text)
    assert [(q.type.value, q.answer) for q in result.bank.questions] == ISSUE_ANSWERS[:4]
    assert key_warnings(result) == []


def test_the_issues_key_lines_starting_with_their_section() -> None:
    result = import_source((HERE / "09_issue_sections.txt").read_bytes(), "09.txt")
    assert len(result.bank.questions) == 14 and key_warnings(result) == []
    # the fill-in answers under 四、填空题 are answers, not items of their own
    assert [q.answer for q in result.bank.questions[-2:]] == [("LSTM",), ("精确率",)]


# ---------------------------------------------------------------- problems, where they stand

TWO = "一、单选题\n1. 哪个是优化器\nA. Adam\nB. ReLU\n2. 哪个是激活函数\nA. SGD\nB. ReLU\n"


def test_an_answer_that_is_not_an_option_is_refused_where_the_key_gives_it() -> None:
    result = imp(TWO + "参考答案\n1.A 2.E\n")
    [warning] = [w for w in result.warnings if w.kind == "no-answer"]
    assert warning.where == "9:7" and warning.number == 2 and "'E'" in warning.message
    assert [q.number for q in result.bank.questions] == [1]


def test_a_count_mismatch_is_one_problem_naming_both_counts() -> None:
    result = imp(TWO + "参考答案\n1.A\n")
    [count] = [w for w in result.warnings if w.kind == "key-count"]
    assert count.where == "8:1"
    assert count.message == (
        "the answer key does not match the paper (answers in the key: 1, items in the paper: 2);"
        " no answer for item(s) 2"
    )
    assert (
        count.line("zh-CN")
        == "第 8 行第 1 列：答案表与试卷对不上：答案表有 1 个答案，试卷有 2 道题；第 2 题没有答案"
    )


def test_an_entry_for_an_item_the_paper_lacks_is_refused_with_its_place() -> None:
    result = imp(TWO + "参考答案\n1.A 2.B 3.A\n")
    [extra] = [w for w in result.warnings if w.kind == "unplaced"]
    assert extra.where == "9:11" and "item 3, which the paper does not have" in extra.message
    assert [q.answer for q in result.bank.questions] == [("A",), ("B",)]


def test_an_empty_entry_is_reported() -> None:
    result = imp(TWO + "参考答案\n1.A 2.\n")
    assert ("unplaced", "9:5") in [(w.kind, w.where) for w in result.warnings]
    assert [q.number for q in result.bank.questions] == [1]


def test_an_items_own_answers_are_not_a_key() -> None:
    text = "1. 哪个是优化器\nA. Adam\nB. ReLU\n答案：A\n2. 简述过拟合。\n参考答案：1. 训练好 2. 测试差\n"
    result = imp(text)
    assert [q.answer for q in result.bank.questions] == [("A",), ("1. 训练好 2. 测试差",)]


def test_the_key_in_a_word_document(tmp_path: Path) -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    for line in (HERE / "01_section_on_entry_line.txt").read_text(encoding="utf-8").splitlines():
        document.add_paragraph(line)
    path = tmp_path / "paper.docx"
    document.save(path)
    result = import_source(path.read_bytes(), "paper.docx")
    assert bank_rows(result) == expected_rows("ml", [])


@pytest.mark.parametrize("missing", [False, True])
def test_an_answer_table_in_a_word_document(tmp_path: Path, missing: bool) -> None:
    """The key as Word tables (a 题号 row over an 答案 row): read as the text grid is; a cell left
    empty is told at its place, the table's other answers are placed."""
    docx = pytest.importorskip("docx")
    document = docx.Document()
    for line in (HERE / "01_section_on_entry_line.txt").read_text(encoding="utf-8").splitlines()[:25]:
        document.add_paragraph(line)
    document.add_paragraph("参考答案")
    for numbers, answers in ((range(1, 6), "ABBCD"), (range(6, 10), ["ABD", "ACD", "×", "√"])):
        table = document.add_table(rows=2, cols=len(numbers) + 1)
        for i, (n, a) in enumerate(zip(numbers, answers, strict=True), 1):
            table.rows[0].cells[i].text, table.rows[1].cells[i].text = str(n), a
        table.rows[0].cells[0].text, table.rows[1].cells[0].text = "题号", "答案"
    if missing:
        table.rows[1].cells[2].text = ""
    for line in ("10. 交叉熵", "11. 召回率", "12. 模型在训练集上表现很好，在测试集上表现差。"):
        document.add_paragraph(line)
    path = tmp_path / "paper.docx"
    document.save(path)
    result = import_source(path.read_bytes(), "paper.docx")
    assert bank_rows(result) == expected_rows("ml", [7] if missing else [])
    refused = [w.line("zh-CN") for w in result.warnings if w.kind == "unplaced"]
    said = "表格 2 第 2 行第 8 个字：第 7 题没有答案（答案表这一格是空的）"
    assert refused == ([said] if missing else [])


# ---------------------------------------------------------------- random banks, random layouts

WORDS = [
    "梯度",
    "张量",
    "卷积",
    "池化",
    "嵌入",
    "注意力",
    "编码器",
    "解码器",
    "归一化",
    "残差",
    "采样",
    "聚类",
    "回归",
    "向量",
    "矩阵",
    "标注",
    "语料",
    "词表",
    "特征",
    "样本",
    "Adam",
    "ReLU",
    "Softmax",
    "BERT",
    "dropout",
    "kernel",
    "token",
    "batch",
]
KIND_WORDS = {"single": "单选题", "multi": "多选题", "judge": "判断题", "fill": "填空题", "short": "简答题"}
JUDGE_MARKS = [("√", "×"), ("对", "错"), ("T", "F"), ("正确", "错误")]
NUMERALS = "一二三四五六七八九十"
LETTERS = "ABCDEFGH"


@dataclass
class Item:
    type: str
    stem: str
    options: tuple[str, ...]
    answer: tuple[str, ...]  # letters, ("true"|"false",), fill alternatives, short sentences
    explanation: str


def _phrase(draw, n: int = 2) -> str:
    return "".join(draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n + 1)))


@st.composite
def items(draw, kind: str, index: int) -> Item:
    tag = NUMERALS[index % 10] * (index // 10 + 1)  # stems differ: no duplicate warnings
    explanation = _phrase(draw) + "与此有关。" if draw(st.booleans()) else ""
    if kind in ("single", "multi"):
        count = draw(st.integers(min_value=3 if kind == "multi" else 2, max_value=5))
        options = tuple(draw(st.lists(st.sampled_from(WORDS), min_size=count, max_size=count, unique=True)))
        if kind == "single":
            answer: tuple[str, ...] = (LETTERS[draw(st.integers(0, count - 1))],)
        else:
            picked = draw(st.lists(st.integers(0, count - 1), min_size=2, max_size=count, unique=True))
            answer = tuple(LETTERS[i] for i in sorted(picked))
        return Item(kind, f"下列关于{_phrase(draw)}的说法{tag}正确的是（ ）", options, answer, explanation)
    if kind == "judge":
        return Item(
            kind,
            f"{_phrase(draw)}的作用{tag}是{_phrase(draw)}。",
            (),
            (draw(st.sampled_from(["true", "false"])),),
            explanation,
        )
    if kind == "fill":
        alternatives = tuple(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=2, unique=True)))
        return Item(kind, f"{_phrase(draw)}中{tag}常用的方法是______。", (), alternatives, explanation)
    sentences = tuple(
        _phrase(draw) + "可以改善" + _phrase(draw) + "。" for _ in range(draw(st.integers(1, 3)))
    )
    return Item(kind, f"简述{_phrase(draw)}的作用{tag}。", (), sentences, explanation)


@st.composite
def papers(draw):
    kinds = draw(st.lists(st.sampled_from(list(KIND_WORDS)), min_size=1, max_size=5, unique=True))
    sections = []
    index = 0
    for kind in kinds:
        found = []
        for _ in range(draw(st.integers(1, 6))):
            found.append(draw(items(kind, index)))
            index += 1
        sections.append((kind, draw(st.sampled_from([1, 2, 5])), found))
    layout = {
        "headers": draw(st.booleans()),
        "restart_items": draw(st.booleans()),
        "mark": draw(st.sampled_from(["{n}. ", "{n}、", "{n}．"])),
        "options_inline": draw(st.booleans()),
        "head": draw(
            st.sampled_from(
                [
                    "参考答案",
                    "答案",
                    "标准答案",
                    "参考答案：",
                    "【参考答案】",
                    "Answer key",
                    "六、参考答案",
                    "答案与解析",
                ]
            )
        ),
        "groups": draw(st.sampled_from(["alone", "inline", "numeral", "none"])),
        "local": draw(st.booleans()),
        "entry": draw(
            st.sampled_from(
                [
                    "{n}.{a}",
                    "{n}、{a}",
                    "({n}){a}",
                    "{n}. {a}",
                    "第{n}题：{a}",
                    "（{n}）{a}",
                    "{n} {a}",
                    "{n}\t{a}",
                ]
            )
        ),
        "runs": draw(st.booleans()),
        "run_dash": draw(st.sampled_from(["-", "~", "～", "—"])),
        "per_line": draw(st.integers(1, 6)),
        "one_line": draw(st.booleans()),
        "text_below": draw(st.booleans()),
        "judge": draw(st.sampled_from(JUDGE_MARKS)),
        "explanations": draw(st.sampled_from(["section", "inline", "none"])),
        "expl_head": draw(st.sampled_from(["答案解析", "解析", "【解析】", "试题解析"])),
        "full_width": draw(st.booleans()),
        # choice and judge answers as a 题号 row over an 答案 row, cells apart by this
        "grid": draw(st.sampled_from(["", " ", "\t", " | ", "|"])),
        # choice and judge answers with no numbers (`参考答案：BBA√×`), apart by this
        "bare_run": draw(st.sampled_from([None, "", " ", ",", "，"])),
    }
    return sections, layout


def _full_width(text: str) -> str:
    table = {
        c: chr(ord(c) + 0xFEE0) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.:"
    }
    return "".join(table.get(c, c) for c in text)


def render(sections, layout) -> tuple[str, list[tuple]]:
    """The paper as text and the bank it must give."""
    headers = layout["headers"]
    restart = layout["restart_items"] and headers
    local = layout["local"] and headers
    if layout["explanations"] == "inline" and layout["head"] != "答案与解析":
        layout = {**layout, "explanations": "section"}
    if layout["head"] == "答案与解析" and layout["explanations"] == "section":
        layout = {**layout, "explanations": "inline"}
    bare = layout["entry"].startswith("{n}") and not layout["entry"][3:4].strip()  # `1 B`, `1<TAB>B`
    if bare:  # text after a bare number starts on the number's line, and takes a line of its own
        layout = {**layout, "text_below": False}
    group_mode = layout["groups"] if headers else "none"
    # a key on one line must say where sections restart, and has no room for lines of text
    one_line = layout["one_line"] and (not local or group_mode != "none")
    if bare and any(kind in ("fill", "short") for kind, _, _ in sections):
        one_line = False
    lines: list[str] = ["随机生成的试卷"]
    expected = []
    number = 0
    for s, (kind, points, found) in enumerate(sections):
        if headers:
            lines.append(f"{NUMERALS[s]}、{KIND_WORDS[kind]}（每题{points}分，共{points * len(found)}分）")
        for i, item in enumerate(found):
            number += 1
            lines.append(layout["mark"].format(n=i + 1 if restart else number) + item.stem)
            if item.options:
                marks = [f"{LETTERS[j]}. {text}" for j, text in enumerate(item.options)]
                lines.extend(["  ".join(marks)] if layout["options_inline"] else marks)
            answer = item.answer
            if kind == "short":
                answer = ("".join(item.answer) if one_line else "\n".join(item.answer),)
            explanation = item.explanation if layout["explanations"] != "none" else ""
            options = tuple((LETTERS[j], text) for j, text in enumerate(item.options))
            expected.append((number, kind, points if headers else 1, item.stem, options, answer, explanation))
    lines.extend(_key(sections, layout, group_mode, local, one_line))
    text = "\n".join(lines) + "\n"
    return text, expected


def _answer_text(item: Item, layout, one_line: bool) -> str:
    if item.type in ("single", "multi"):
        return "".join(item.answer)
    if item.type == "judge":
        return layout["judge"][0 if item.answer == ("true",) else 1]
    if item.type == "fill":
        return "或".join(item.answer)
    return ("" if one_line else "\n").join(item.answer)


def _key(sections, layout, group_mode: str, local: bool, one_line: bool) -> list[str]:
    combined = layout["explanations"] == "inline"
    bare = layout["entry"].startswith("{n}") and not layout["entry"][3:4].strip()
    chunks: list[list[str]] = []  # per section: its header (if any) and entry strings
    every: list[str] = []  # every answer, in order
    number = 0
    for s, (kind, _, found) in enumerate(sections):
        header = {
            "alone": f"{NUMERALS[s]}、{KIND_WORDS[kind]}",
            "inline": f"{NUMERALS[s]}、{KIND_WORDS[kind]}",
            "numeral": f"{NUMERALS[s]}、",
            "none": "",
        }[group_mode]
        entries: list[str] = []
        first = number + 1
        answers = []
        for i, item in enumerate(found):
            number += 1
            n = i + 1 if local else number
            answer = _answer_text(item, layout, one_line)
            answers.append(answer)
            every.append(answer)
            if combined and item.explanation:
                answer += " 解析：" + item.explanation
            if item.type in ("fill", "short") and layout["text_below"] and not one_line:
                answer = "\n" + answer
            entries.append(layout["entry"].format(n=n, a=answer))
        choice = kind in ("single", "judge") and not combined and len(found) > 1
        grid = layout["grid"] and kind in ("single", "multi", "judge") and not combined and not one_line
        if grid:
            numbers = [str(i + 1 if local else first + i) for i in range(len(found))]
            sep = layout["grid"]
            edge = "|" if "|" in sep else ""
            entries = [
                edge + sep.join(["题号", *numbers]) + edge + "\n" + edge + sep.join(["答案", *answers]) + edge
            ]
        elif layout["runs"] and choice and all(len(a) == 1 for a in answers):
            a = 1 if local else first
            entries = [f"{a}{layout['run_dash']}{a + len(found) - 1} {''.join(answers)}"]
        elif layout["runs"] and kind == "multi" and not combined and len(found) > 1:
            a = 1 if local else first
            entries = [f"{a}{layout['run_dash']}{a + len(found) - 1} {','.join(answers)}"]
        chunks.append([header, *entries])
    lines = [layout["head"]]
    sep = layout["bare_run"]
    kinds = {kind for kind, _, _ in sections}
    if (
        sep is not None
        and kinds <= {"single", "multi", "judge"}
        and not combined
        and (sep or "multi" not in kinds)
        and len(every) > 1
    ):
        # answers with no numbers, to items 1..n in order; on the heading's line unless it is a
        # plain `答案：` (an item's own answer)
        run = sep.join(every)
        if one_line and layout["head"] not in ("答案", "答案与解析"):
            lines = [layout["head"].rstrip("：") + "：" + run]
        else:
            lines = [layout["head"], run]
    elif one_line:
        parts = []
        for header, *entries in chunks:
            parts.extend([header] if header else [])
            parts.extend(entries)
        lines = [layout["head"].rstrip("：") + "：" + " ".join(parts)]
    else:
        for (kind, _, _), (header, *entries) in zip(sections, chunks, strict=True):
            rows = [
                " ".join(entries[i : i + layout["per_line"]])
                for i in range(0, len(entries), layout["per_line"])
            ]
            if any("\n" in e for e in entries) or (bare and kind in ("fill", "short")):
                rows = entries  # text answers take their own lines
            if header and (group_mode == "alone" or "题号" in rows[0]):
                lines.append(header)
            elif header:
                rows[0] = header + (" " if group_mode == "inline" else "") + rows[0]
            lines.extend(rows)
    if layout["explanations"] == "section" and any(i.explanation for _, _, found in sections for i in found):
        lines.append(layout["expl_head"])
        number = 0
        for s, (kind, _, found) in enumerate(sections):
            if local and any(item.explanation for item in found):
                lines.append(f"{NUMERALS[s]}、{KIND_WORDS[kind]}")
            for i, item in enumerate(found):
                number += 1
                if item.explanation:
                    lines.append(f"{i + 1 if local else number}. {item.explanation}")
    key = lines
    return [_full_width(line) for line in key] if layout["full_width"] else key


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(papers())
def test_random_banks_in_random_key_layouts_read_back_exactly(paper) -> None:
    sections, layout = paper
    text, expected = render(sections, layout)
    result = imp(text)
    assert bank_rows(result) == expected, text
    assert [w for w in key_warnings(result) if w.kind != "renumbered"] == [], text


# ---------------------------------------------------------------- numbers with no punctuation, no numbers

THREE = TWO + "二、判断题\n3. 学习率越大越好。\n"


@pytest.mark.parametrize(
    "key",
    [
        "参考答案\n1\tA\n2\tB\n3\t×\n",
        "参考答案\n1 A  2 B  3 ×\n",
        "参考答案：1 A 2 B 3 错\n",
        "参考答案\n一、单选题 1 A 2 B\n二、判断题 1 ×\n",
        "Answer key\n1 a\n2 b\n3 F\n",
    ],
)
def test_numbers_with_no_punctuation_under_a_key_heading(key: str) -> None:
    result = imp(THREE + key)
    assert [q.answer for q in result.bank.questions] == [("A",), ("B",), ("false",)]
    assert key_warnings(result) == []


def test_numbers_with_no_punctuation_without_a_heading_are_no_key() -> None:
    """`1 A` with no key heading is text (of the last item), never a key: a stem `1 下列…` stays a stem."""
    result = imp(THREE + "1 A\n2 B\n3 ×\n")
    assert [q.number for q in result.bank.questions] == []


def test_a_bare_number_before_text_answers_only_a_text_item() -> None:
    """`3 学习率越大越好` under the key is no answer for judge item 3: told, not taken."""
    result = imp(THREE + "参考答案\n1 A\n2 B\n3 学习率越大越好\n")
    assert [q.number for q in result.bank.questions] == [1, 2]
    [text] = [w for w in result.warnings if w.kind == "unplaced"]
    assert text.where == "13:1" and "3 学习率越大越好" in text.message


@pytest.mark.parametrize(
    "key", ["参考答案：AB×\n", "参考答案\nA B ×\n", "【参考答案】A，B，对\n", "Answer key\nA, B, F\n"]
)
def test_answers_with_no_numbers_answer_the_items_in_order(key: str) -> None:
    result = imp(THREE + key)
    assert [q.answer for q in result.bank.questions] == [
        ("A",),
        ("B",),
        ("false" if "对" not in key else "true",),
    ]
    assert key_warnings(result) == []


def test_answers_with_no_numbers_of_the_wrong_count_are_one_problem() -> None:
    result = imp(THREE + "参考答案：AB\n")
    [count] = [w for w in result.warnings if w.kind == "key-count"]
    assert count.line("zh-CN") == (
        "第 10 行第 1 列：答案表与试卷对不上：答案表有 2 个答案，试卷有 3 道题；第 1, 2, 3 题没有答案"
    )
    assert not [w for w in result.warnings if w.kind == "type"]  # never the last item's own answer


def test_an_items_own_answer_on_the_answer_line_is_not_a_run() -> None:
    result = imp("1. 哪些是优化器\nA. Adam\nB. SGD\nC. ReLU\n答案：AB\n")
    assert [q.answer for q in result.bank.questions] == [("A", "B")]


@pytest.mark.parametrize(
    ("language", "head"),
    [("zh-CN", "共 0 道题 -> 题库 "), ("zh-TW", "共 0 道題 -> 題庫 "), ("en", "0 items -> bank ")],
)
def test_nothing_imported_says_so_without_empty_brackets(language: str, head: str) -> None:
    summary = imp(THREE + "参考答案：AB\n").summary(language)
    first = summary.splitlines()[0]
    assert first.startswith(head) and "（）" not in summary and "()" not in summary, summary
