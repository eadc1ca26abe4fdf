"""Exports in the bank's language, and what a round trip keeps (issue 23, item 3): Chinese
headers and type names for a Chinese bank (traditional for zh-TW, English for English), numbers
as numbers in Excel, and import -> export -> import keeping the title, points, doubt notes and
language in every format; an untitled import named after its file, points from a 分值 column
or a paper's section header, one warning when no item gave its points."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import zipfile
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bank.exporters import EXPORT_FORMATS, export_bank, table_rows
from bank.import_cmd import run_import
from bank.importer import import_source
from bank.importer.clean import to_simplified
from bank.loader import load_bank, load_bank_text
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question, QuestionType

pytest.importorskip("genanki")

SHIPPED = Path(__file__).resolve().parents[1] / "bank" / "ai_trainer_2025.yaml"
_BANK_ID = re.compile(r"[a-z0-9][a-z0-9-_]*")


def _import(data: bytes, name: str, **kwargs):
    result = import_source(data, name, **kwargs)
    assert result.ok and not result.errors, result.summary("en")
    return result


def _again(bank: Bank, fmt: str):
    """Export `bank` and import the file back as a teacher would: no title, no language given."""
    return _import(export_bank(bank, fmt), f"b{EXPORT_FORMATS[fmt]}", bank_id=bank.id, source=bank.source)


# ---------------------------------------------------------------- random banks

_ZH = ["模型", "训练", "数据", "梯度", "学习率", "注意力", "损失函数", "过拟合", "正则化", "向量"]
_TW = ["模型", "訓練", "數據", "梯度", "學習率", "注意力", "損失函數", "過擬合", "正則化", "向量"]
_EN = ["model", "training", "data", "gradient", "learning", "rate", "attention", "loss", "vector"]
# What each format must escape or quote: GIFT's marks, HTML for Anki, CSV's quote and comma.
_MARKS = [
    "，",
    "。",
    "：",
    "、",
    "“引号”",
    ",",
    ".",
    ":",
    "{",
    "}",
    "~",
    "=",
    "#",
    "\\",
    "<b>",
    "&amp;",
    '"',
    "|",
    "%50%",
    "\n",
]
_WORDS = {"zh-CN": _ZH, "zh-TW": _TW, "en": _EN}
_EXAMPLES = {
    # an English bank's items are English ones (their options count towards its language)
    language: [
        (qtype, example)
        for qtype, rules in TYPES.items()
        for example in rules.examples
        if example.item["stem"].isascii() == (language == "en")
    ]
    for language in _WORDS
}


def _text(language: str, least: int) -> st.SearchStrategy[str]:
    words = _WORDS[language]
    word = st.one_of(st.sampled_from(words), st.sampled_from(words), st.sampled_from(_MARKS))
    joiner = " " if language == "en" else ""
    texts = st.lists(word, min_size=least, max_size=8).map(joiner.join).map(lambda s: " ".join(s.split(" ")))
    # enough of the language's own words that the text is in it, and nothing at either end
    return texts.map(str.strip).filter(lambda s: sum(s.count(w) for w in words) >= least)


@st.composite
def banks(draw: st.DrawFn) -> Bank:
    language = draw(st.sampled_from(sorted(_WORDS)))
    items = draw(st.lists(st.sampled_from(_EXAMPLES[language]), min_size=1, max_size=6))
    questions = []
    for number, (qtype, example) in enumerate(items, 1):
        item = {"id": f"q{number}", "number": number, "type": str(qtype), **example.item}
        item.pop("key_points", None)  # the editors' records stay in the YAML bank
        item["stem"] = draw(_text(language, 3))
        item["explanation"] = draw(st.one_of(st.just(""), _text(language, 1)))
        item["points"] = draw(st.sampled_from([1, 2, 3, 0.5, 1.5, 2.25]))
        item["tags"] = draw(
            st.lists(st.sampled_from(["loss", "optim", "cnn", "rl-basics"]), unique=True, max_size=2)
        )
        if doubt := draw(st.one_of(st.just(""), _text(language, 1))):
            item["doubt"] = doubt
        questions.append(item)
    title = " ".join(draw(_text(language, 2)).split())  # a title is one line
    data = {"id": "rand", "title": title, "language": language, "source": "random", "questions": questions}
    # Display names for some of the tags used, in the bank's language with every format's marks:
    # one line each (a label), each its own (`#n`: two tags with one name is an error).
    used = dict.fromkeys(tag for item in questions for tag in item["tags"])
    if names := {tag: f"{' '.join(draw(_text(language, 1)).split())}#{i}"
                 for i, tag in enumerate(used) if draw(st.booleans())}:
        data["tag_names"] = names
    return load_bank_text(json.dumps(data, ensure_ascii=False), "random.yaml")


def _expected(bank: Bank) -> Bank:
    """What an import gives back: traditional text folded to simplified (the importer's rule;
    a zh-TW chat shows it in traditional again), the title and language as they were."""
    if bank.language != "zh-TW":
        return bank

    def simple(q: Question) -> Question:
        return replace(
            q,
            stem=to_simplified(q.stem),
            explanation=to_simplified(q.explanation),
            doubt=to_simplified(q.doubt),
            answer=tuple(map(to_simplified, q.answer)),
            options=tuple((letter, to_simplified(text)) for letter, text in q.options),
        )

    return replace(bank, questions=tuple(map(simple, bank.questions)))


@pytest.mark.parametrize("fmt", list(EXPORT_FORMATS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bank=banks())
def test_random_banks_come_back_whole_in_every_format(fmt: str, bank: Bank) -> None:
    """Title, points, doubts, language and tag names (and every question) through each export."""
    if fmt == "gift":  # GIFT has no ordering question: its export is refused (test_ordering.py)
        kept = tuple(q for q in bank.questions if q.type is not QuestionType.ORDERING)
        if not kept:
            return
        bank = replace(bank, questions=kept)
    result = _again(bank, fmt)
    expected = _expected(bank)
    got = result.bank
    assert (got.title, got.language) == (expected.title, expected.language)
    assert got.tag_names == expected.tag_names
    assert [(q.points, q.doubt) for q in got.questions] == [(q.points, q.doubt) for q in expected.questions]
    assert got == expected
    assert "points" not in {w.kind for w in result.warnings}  # every item gave its points


# ---------------------------------------------------------------- the shipped bank


def _plain(bank: Bank) -> Bank:
    """What exports carry: not the editors' records, a short answer's key points with their words,
    nor the exam the bank declares (YAML only)."""
    return replace(
        bank,
        paper=None,
        questions=tuple(
            replace(q, key_points=(), key_point_marks=(), errata=(), completed_by_editor=False)
            for q in bank.questions
        ),
    )


@pytest.mark.parametrize("fmt", list(EXPORT_FORMATS))
def test_the_shipped_bank_keeps_its_title_language_points_and_doubts(fmt: str) -> None:
    bank = _plain(load_bank(SHIPPED))
    assert sum(1 for q in bank.questions if q.doubt) == 10
    assert dict(bank.tag_names)["distributed-training"] == "分布式训练"
    again = _again(bank, fmt).bank
    assert again.tag_names == bank.tag_names
    assert again == bank


# ---------------------------------------------------------------- the examples


def _zh_bank(language: str = "zh-CN") -> Bank:
    return _plain(replace(load_bank(SHIPPED), language=language))


def test_a_chinese_bank_is_exported_with_chinese_headers_and_type_names() -> None:
    text = export_bank(_zh_bank(), "csv").decode("utf-8-sig")
    header, first = list(csv.reader(io.StringIO(text)))[:2]
    assert header[:6] == ["题型", "题干", "选项A", "选项B", "选项C", "选项D"]
    assert header[10:] == ["答案", "解析", "分值", "标签", "题号", "ID", "误差", "存疑", "题库", "标签名称"]
    assert first[0] == "单选题" and first[-2] == "2025年高级人工智能训练师核心备考试题库"
    assert first[-1].split("\n")[:2] == ["transformer=Transformer", "attention=注意力机制"]
    assert "distributed-training=分布式训练" in first[-1].split("\n")
    words = {row[0] for row in list(csv.reader(io.StringIO(text)))[1:]}
    assert words == {"单选题", "多选题", "判断题", "填空题", "简答题"}


def test_a_traditional_bank_gets_a_traditional_header_and_an_english_one_an_english_header() -> None:
    header = table_rows(_zh_bank("zh-TW"))[0]
    assert header[:3] == ["題型", "題幹", "選項A"] and "存疑" in header and "題庫" in header
    assert table_rows(_zh_bank("zh-TW"))[1][0] == "單選題"
    english = table_rows(_zh_bank("en"))
    assert english[0][:3] == ["type", "question", "A"] and english[1][0] == "single"
    assert table_rows(_zh_bank("ja"))[0][0] == "type"  # a language without a catalog: English


def test_a_teachers_table_gives_tag_names_on_any_row_and_reports_what_it_cannot_read() -> None:
    """A `标签名称` column (`標籤名稱`, `tag names`): `tag=name` a line, `：` typed for `=`, on any
    row; a line that is not a pair and a second name for a tag are warnings, each at its cell."""
    text = (
        "题型,题干,选项A,选项B,答案,分值,标签,标签名称\n"
        '单选题,哪个是优化器,Adam,ReLU,A,1,optim,"optim=优化器\nloss：损失函数"\n'
        "单选题,哪个是激活函数,Adam,ReLU,B,1,loss,CNN\n"
        "单选题,哪个是损失,MSE,ReLU,A,1,loss,loss=损失\n"
    )
    result = _import(text.encode(), "卷.csv")
    assert result.bank.tag_names == (("optim", "优化器"), ("loss", "损失函数"))
    assert [(w.key, w.where) for w in result.warnings] == [
        ("import.tag_names.bad", "4:8"), ("import.tag_names.twice", "5:8")]  # the first row is two lines
    traditional = text.replace("标签名称", "標籤名稱").replace("题型,题干", "題型,題幹")
    assert _import(traditional.encode(), "卷.csv").bank.tag_names[0] == ("optim", "优化器")
    english = "type,question,A,B,answer,points,tags,tag names\nsingle,Which,x,y,A,1,optim,optim=Optimizers\n"
    assert _import(english.encode(), "q.csv").bank.tag_names == (("optim", "Optimizers"),)


def test_every_type_name_in_every_language_reads_back_as_its_type() -> None:
    bank = load_bank_text(
        json.dumps(
            {
                "id": "t",
                "title": "t",
                "language": "zh-CN",
                "source": "",
                "questions": [
                    {"id": f"q{n}", "number": n, "type": str(qtype), **example.item}
                    for n, (qtype, example) in enumerate(
                        ((qtype, rules.examples[0]) for qtype, rules in TYPES.items()), 1
                    )
                ],
            },
            ensure_ascii=False,
        ),
        "t.yaml",
    )
    for language in ("zh-CN", "zh-TW", "en"):
        again = _again(replace(bank, language=language), "csv").bank
        assert [q.type for q in again.questions] == list(TYPES), language
        # a Chinese header says the bank is Chinese; an English one leaves it to the text
        assert again.language == (language if language != "en" else "zh-CN")


def test_xlsx_numbers_are_numeric_cells() -> None:
    bank = _zh_bank()
    fill = next(q for q in bank.questions if q.type is QuestionType.FILL)
    bank = replace(
        bank,
        questions=(
            replace(bank.questions[0], points=1.5),
            replace(fill, tolerance=0.01),
            *bank.questions[1:],
        ),
    )
    sheet = openpyxl.load_workbook(io.BytesIO(export_bank(bank, "xlsx"))).worksheets[0]
    header = [cell.value for cell in sheet[1]]
    column = {name: header.index(name) for name in ("分值", "题号", "误差", "题干")}
    first, second, third = (next(iter(sheet.iter_rows(min_row=r, max_row=r))) for r in (2, 3, 4))
    assert (first[column["分值"]].value, first[column["分值"]].data_type) == (1.5, "n")
    assert (third[column["分值"]].value, third[column["分值"]].data_type) == (1, "n")
    assert isinstance(third[column["分值"]].value, int) and isinstance(first[column["题号"]].value, int)
    assert (second[column["误差"]].value, second[column["误差"]].data_type) == (0.01, "n")
    assert first[column["误差"]].value is None  # no tolerance: an empty cell, not ""
    assert first[column["题干"]].data_type == "s"


def test_xlsx_text_that_looks_like_a_formula_stays_text() -> None:
    bank = _zh_bank()
    bank = replace(
        bank, questions=(replace(bank.questions[0], stem="=SUM(A1:A2) 是什么"), *bank.questions[1:])
    )
    sheet = openpyxl.load_workbook(io.BytesIO(export_bank(bank, "xlsx"))).worksheets[0]
    assert sheet["B2"].value == "=SUM(A1:A2) 是什么" and sheet["B2"].data_type == "s"
    assert _again(bank, "xlsx").bank.questions[0].stem == "=SUM(A1:A2) 是什么"


def test_the_anki_export_re_imported_keeps_the_chinese_title() -> None:
    bank = _zh_bank()
    data = export_bank(bank, "anki")
    result = _import(data, "deck.apkg")  # neither id nor title given
    assert result.bank.title == "2025年高级人工智能训练师核心备考试题库"
    assert (result.bank.id, result.bank.language) == ("ai-trainer-2025", "zh-CN")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        db = sqlite3.connect(":memory:")
        db.deserialize(archive.read("collection.anki2"))
    decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
    names = {deck["name"] for deck in decks.values()}
    assert "2025年高级人工智能训练师核心备考试题库" in names  # the deck is named after the bank


def test_an_anki_title_with_subdeck_marks_comes_back_exactly() -> None:
    bank = replace(_zh_bank(), title="人工智能::模拟卷 <一>")
    assert _again(bank, "anki").bank.title == "人工智能::模拟卷 <一>"


def test_gift_names_the_category_after_the_bank_and_a_moodle_category_gives_the_title() -> None:
    text = export_bank(_zh_bank(), "gift").decode()
    assert "$CATEGORY: $course$/top/2025年高级人工智能训练师核心备考试题库\n" in text
    result = _import(text.encode(), "x.gift")
    assert (result.bank.title, result.bank.id, result.bank.language) == (
        "2025年高级人工智能训练师核心备考试题库",
        "ai-trainer-2025",
        "zh-CN",
    )
    moodle = "$CATEGORY: $course$/top/物理 期中\n\n::a::光速约为每秒多少千米 {=300000}\n"
    assert _import(moodle.encode(), "export.gift").bank.title == "物理 期中"
    two = (
        "$CATEGORY: 物理\n::a::光速约为每秒多少千米 {=300000}\n\n$CATEGORY: 化学\n\n::b::水的化学式 {=H2O}\n"
    )
    result = _import(two.encode(), "x.gift")
    assert result.bank.title == "物理" and len(result.bank.questions) == 2  # a question under the line too
    assert [(w.kind, w.key) for w in result.warnings] == [("unplaced", "import.gift.category")]


def test_doubts_are_a_column_in_tables_and_a_comment_in_gift() -> None:
    bank = _zh_bank()
    header = table_rows(bank)[0]
    doubts = [row[header.index("存疑")] for row in table_rows(bank)[1:]]
    assert [q.number for q, doubt in zip(bank.questions, doubts, strict=True) if doubt] == [
        2,
        11,
        17,
        20,
        23,
        26,
        28,
        35,
        46,
        55,
    ]
    gift = export_bank(bank, "gift").decode()
    assert f"doubt={bank.questions[1].doubt}" in gift
    hand = "题干,答案,存疑\n1+1=?,2,答案可能是 10（二进制）\n"
    assert _import(hand.encode(), "x.csv").bank.questions[0].doubt == "答案可能是 10（二进制）"


def test_an_untitled_csv_is_named_after_its_file() -> None:
    rows = "题型,题干,选项A,选项B,答案\n单选题,哪个是优化器,Adam,ReLU,A\n"
    result = _import(rows.encode(), "题库.csv")
    assert result.bank.title == "题库"
    assert _BANK_ID.fullmatch(result.bank.id) and result.bank.id != "imported"
    other = _import(rows.encode(), "模拟卷.csv")
    assert other.bank.id != result.bank.id  # two Chinese names, two banks
    assert _import(rows.encode(), "Physics Mock.csv").bank.id == "physics-mock"


def test_the_command_line_names_an_untitled_import_after_its_file(tmp_path: Path) -> None:
    source = tmp_path / "题库.csv"
    source.write_text(
        "题型,题干,选项A,选项B,答案,分值\n单选题,哪个是优化器,Adam,ReLU,A,2\n", encoding="utf-8"
    )
    out = tmp_path / "out.yaml"
    assert run_import(str(source), str(out), out=io.StringIO(), err=io.StringIO(), language="zh-CN") == 0
    bank = load_bank(out)
    assert (bank.title, bank.language, bank.questions[0].points) == ("题库", "zh-CN", 2)


def test_a_csv_without_points_warns_once() -> None:
    rows = "题型,题干,选项A,选项B,答案\n" + "".join(
        f"单选题,第{n}题哪个是优化器,Adam,ReLU,A\n" for n in range(1, 6)
    )
    result = _import(rows.encode(), "x.csv")
    [warning] = [w for w in result.warnings if w.kind == "points"]
    assert [w.kind for w in result.warnings] == ["points"]
    assert {q.points for q in result.bank.questions} == {1}
    assert warning.line("zh-CN").startswith("没有一道题给出分值，全部按每题 1 分计")
    assert "every item counts 1 point" in warning.line("en")
    with_points = "题型,题干,选项A,选项B,答案,分值\n单选题,哪个是优化器,Adam,ReLU,A,1\n"
    assert not _import(with_points.encode(), "x.csv").warnings  # 1 given is not 1 by default


@pytest.mark.parametrize(
    ("header", "points"),
    [("一、单选题（每题1分，共20分）", 1), ("一、单选题（每题2分）", 2), ("一、单选题（共2题，共3分）", 1.5)],
)
def test_points_come_from_a_papers_section_header(header: str, points: float) -> None:
    items = "1. 哪个是优化器\nA. Adam\nB. ReLU\n答案：A\n2. 哪个是激活函数\nA. Adam\nB. ReLU\n答案：B\n"
    result = _import(f"{header}\n{items}".encode(), "卷.txt")
    assert [q.points for q in result.bank.questions] == [points, points]
    assert "points" not in {w.kind for w in result.warnings}


def test_a_paper_without_points_warns_once_and_aiken_does_not() -> None:
    paper = "1. 哪个是优化器\nA. Adam\nB. ReLU\n答案：A\n2. 哪个是激活函数\nA. Adam\nB. ReLU\n答案：B\n"
    assert [w.kind for w in _import(paper.encode(), "卷.txt").warnings] == ["points"]
    aiken = "What is 2 + 2?\nA. 3\nB. 4\nANSWER: B\n"  # every Aiken question is worth one mark
    assert _import(aiken.encode(), "q.txt", format="aiken").warnings == ()


@pytest.mark.parametrize(
    ("rows", "language"),
    [
        ("question,answer\nWhat is the capital of France?,Paris\n", "en"),
        ("question,answer\n法国的首都是哪里？,巴黎\n", "zh-CN"),
        ("question,answer\n法國的首都是哪裡？這個問題應該很簡單,巴黎\n", "zh-TW"),
        ("題型,題幹,答案\n填空題,法国的首都是____,巴黎\n", "zh-TW"),
        ("题型,题干,答案\n填空题,What is the capital of France? ____,Paris\n", "zh-CN"),
        ("type,question,answer\nfill,在Transformer架构中，用于防止未来信息泄露的是____,掩码\n", "zh-CN"),
    ],
)
def test_an_imports_language_is_what_its_header_or_text_is_written_in(rows: str, language: str) -> None:
    assert _import(rows.encode(), "x.csv").bank.language == language


def test_a_given_language_wins_and_an_upload_falls_back_to_the_chats() -> None:
    rows = "question,answer\n1+1,2\n"  # no letters at all: nothing to tell
    assert _import(rows.encode(), "x.csv", language="en").bank.language == "en"
    assert _import(rows.encode(), "x.csv", fallback_language="zh-TW").bank.language == "zh-TW"
    assert _import(rows.encode(), "x.csv").bank.language == "zh-CN"
