"""Every import format on a fixture of our own (tests/banks/import/): the items, answers,
explanations and warnings each gives, and format detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from bank.importer import ImportResult, detect_format, import_source
from bot.domain.questions import QuestionType

T = QuestionType
HERE = Path(__file__).parent / "banks" / "import"


def imp(name: str, **kwargs) -> ImportResult:
    return import_source((HERE / name).read_bytes(), name, **kwargs)


def rows(result: ImportResult) -> list[tuple]:
    return [(q.type, q.answer) for q in result.bank.questions]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("aiken.txt", "aiken"), ("gift.gift", "gift"), ("zh.csv", "csv"), ("en.csv", "csv"),
     ("questions.xlsx", "xlsx"), ("paper.docx", "docx"), ("table.docx", "docx"),
     ("paper_key.txt", "paper"), ("english.txt", "paper"), ("parens.txt", "paper")],
)
def test_detected(name: str, fmt: str) -> None:
    assert detect_format((HERE / name).read_bytes(), name) == fmt
    # and from the content alone, whatever the file is called
    assert detect_format((HERE / name).read_bytes(), "upload") == fmt


def test_aiken() -> None:
    r = imp("aiken.txt")
    assert rows(r) == [(T.SINGLE, ("B",)), (T.SINGLE, ("C",))]
    q = r.bank.questions[1]
    assert q.stem == "下列哪个是激活函数？" and q.options[2] == ("C", "ReLU")
    assert "converted 2 traditional character(s) to simplified" in [n.message for n in r.notes]
    assert r.warnings == ()


def test_gift() -> None:
    r = imp("gift.gift")
    by_id = {q.id: q for q in r.bank.questions}
    assert list(by_id) == ["opt", "multi", "tf", "tf2", "short", "num", "tol", "range", "esc"]
    assert by_id["opt"].answer == ("A",) and by_id["opt"].options[1] == ("B", "ReLU")
    assert by_id["opt"].explanation == "Adam keeps moving averages of the gradients."
    assert (by_id["multi"].type, by_id["multi"].answer) == (T.MULTI, ("A", "B"))
    assert by_id["tf"].answer == ("true",) and by_id["tf"].explanation == "That is the definition."
    assert by_id["tf2"].answer == ("false",)
    assert (by_id["short"].type, by_id["short"].answer) == (T.FILL, ("cross-entropy", "交叉熵"))
    assert by_id["short"].stem.endswith("is called ____.")
    assert (by_id["num"].answer, by_id["num"].tolerance) == (("3.5",), None)
    assert (by_id["tol"].answer, by_id["tol"].tolerance) == (("3.14",), 0.01)
    assert (by_id["range"].answer, by_id["range"].tolerance) == (("1.5",), 0.5)
    assert by_id["esc"].stem == "Which symbol opens a GIFT answer block: { or = ?"
    assert by_id["esc"].options == (("A", "{"), ("B", "="))
    kinds = {(w.kind, w.where) for w in r.warnings}
    assert ("essay", "26:33") in kinds and r.bank.title == "tests/gift"  # the category names the bank
    assert ("feedback", "4:40") in kinds


def test_csv_chinese_headers_with_bom() -> None:
    r = imp("zh.csv")
    assert rows(r) == [
        (T.SINGLE, ("C",)), (T.MULTI, ("A", "B", "D")), (T.JUDGE, ("false",)),
        (T.JUDGE, ("true",)), (T.FILL, ("交叉熵", "cross-entropy")), (T.FILL, ("lr", "η")),
        (T.SHORT, ("去重、处理缺失值、处理异常值。",)),
    ]
    first, multi = r.bank.questions[0], r.bank.questions[1]
    assert first.tags == ("transformer",) and first.explanation == "解码器使用掩码。"
    assert multi.points == 2 and multi.options[3] == ("D", "RMSprop")
    assert r.bank.questions[6].stem == "简述数据清洗的主要步骤。"  # traditional converted
    assert any("converted 4 traditional" in note for note in [n.message for n in r.notes])


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gb18030"])
def test_csv_encodings(encoding: str) -> None:
    text = (HERE / "zh.csv").read_text(encoding="utf-8-sig")
    r = import_source(text.encode(encoding), "zh.csv")
    assert len(r.bank.questions) == 7 and r.bank.questions[0].stem == "用于防止未来信息泄露的机制是"
    assert ("read as gb18030" in [n.message for n in r.notes]) == (encoding == "gb18030")


def test_csv_english_headers_ids_and_points() -> None:
    r = imp("en.csv")
    assert [q.id for q in r.bank.questions] == ["add-1", "even-1", "sky-1", "fr-1"]
    assert rows(r) == [(T.SINGLE, ("B",)), (T.MULTI, ("A", "C")), (T.JUDGE, ("false",)),
                       (T.FILL, ("Paris",))]
    assert r.bank.questions[1].points == 2 and r.bank.questions[0].explanation == "Basic arithmetic."


def test_xlsx() -> None:
    r = imp("questions.xlsx")
    assert rows(r) == [(T.SINGLE, ("A",)), (T.MULTI, ("A", "B")), (T.JUDGE, ("true",)),
                       (T.FILL, ("3.14",))]
    assert r.bank.questions[0].explanation == "Adam 是优化器。"
    assert r.bank.questions[0].tags == ("optim",)


def test_docx_paper_from_paragraphs_and_a_table() -> None:
    r = imp("paper.docx")
    assert r.bank.title == "深度学习测验"
    assert rows(r) == [(T.SINGLE, ("A",)), (T.SINGLE, ("B",)), (T.JUDGE, ("false",))]
    assert r.bank.questions[1].options == (("A", "SGD"), ("B", "ReLU"), ("C", "L1"))


def test_docx_question_table_reports_the_rest() -> None:
    r = imp("table.docx")
    assert rows(r) == [(T.SINGLE, ("A",)), (T.MULTI, ("A", "B")), (T.JUDGE, ("true",)),
                       (T.FILL, ("3.14",))]
    assert [(w.kind, w.where) for w in r.warnings] == [("unplaced", "paragraph 1"), ("points", "")]


def test_paper_with_answer_key_at_the_end() -> None:
    r = imp("paper_key.txt")
    assert rows(r) == [
        (T.SINGLE, ("A",)), (T.SINGLE, ("B",)), (T.SINGLE, ("B",)), (T.MULTI, ("A", "B", "C")),
        (T.MULTI, ("A", "B")), (T.JUDGE, ("false",)), (T.JUDGE, ("true",)), (T.FILL, ("交叉熵",)),
        (T.SHORT, ("模型在训练集上表现很好，在测试集上表现差。",)),
    ]
    explanations = [q.explanation for q in r.bank.questions]
    assert explanations[0] == "Adam 是优化器。" and explanations[3] == "L1、L2 和 Dropout 都是正则化方法。"
    assert explanations[2] == ""
    assert {w.kind for w in r.warnings} == {"renumbered"}


def test_answer_key_problems_are_reported(tmp_path: Path) -> None:
    text = "1. 哪个是优化器\nA. Adam\nB. ReLU\n2. 哪个是激活函数\nA. SGD\nB. ReLU\n参考答案\n1-2 ABC\n3. A\n"
    r = import_source(text.encode(), "k.txt")
    messages = [str(w) for w in r.warnings]
    assert any("8:1" in m and "3 answers for 2 items" in m for m in messages)
    assert any("9:" in m and "item 3, which the paper does not have" in m for m in messages)


def test_english_paper_with_paren_numbers() -> None:
    r = imp("english.txt")
    assert r.bank.title == "Practice quiz"
    assert rows(r) == [(T.SINGLE, ("A",)), (T.JUDGE, ("true",)), (T.FILL, ("cross-entropy",))]
    assert r.bank.questions[0].explanation == "Adam keeps moving averages."
    assert r.bank.questions[2].explanation == "It compares distributions."


def test_bracketed_numbers() -> None:
    r = imp("parens.txt")
    assert rows(r) == [(T.SINGLE, ("A",)), (T.SINGLE, ("B",))]
    assert r.bank.questions[1].explanation == "ReLU 是激活函数。"


def test_duplicates_are_reported() -> None:
    item = "{n}. 哪个是优化器\nA. Adam\nB. ReLU\n答案：A\n"
    text = "".join(item.format(n=n) for n in (1, 2, 3))
    r = import_source(text.encode(), "d.txt")
    assert [(w.kind, w.number) for w in r.warnings] == [("duplicate", 2), ("duplicate", 3), ("points", None)]
    assert "same stem and options as item 1" in r.warnings[0].message


def test_unknown_column_and_bad_tag_are_reported() -> None:
    text = "question,answer,remarks,tags\n1+1=?,2,checked,数学\n"
    r = import_source(text.encode(), "x.csv")
    assert rows(r) == [(T.FILL, ("2",))] or rows(r) == [(T.SHORT, ("2",))]
    messages = [str(w) for w in r.warnings]
    assert any("'remarks' is not a known column" in m and m.startswith("1:3") for m in messages)
    assert any("not slugs" in m and m.startswith("2:4") for m in messages)


def test_nothing_found_names_what_was_looked_for() -> None:
    r = import_source("会议纪要\n下周讨论。\n".encode(), "notes.txt")
    assert not r.ok
    message = str(r.warnings[-1])
    assert "no item found" in message and "formats: paper, aiken, gift, csv, xlsx, docx, apkg, pdf" in message


def test_docx_places_are_paragraphs(tmp_path: Path) -> None:
    import io as _io

    import docx

    document = docx.Document()
    for text in ("练习", "请在30分钟内完成", "1. 哪个是优化器", "A. Adam", "B. ReLU", "答案：A"):
        document.add_paragraph(text)
    buffer = _io.BytesIO()
    document.save(buffer)
    r = import_source(buffer.getvalue(), "quiz.docx")
    assert rows(r) == [(T.SINGLE, ("A",))]
    assert [(w.kind, w.where) for w in r.warnings] == [("unplaced", "paragraph 2, col 1"), ("points", "")]


def test_aiken_without_answer_line_is_reported() -> None:
    text = "Q one?\nA. x\nB. y\nANSWER: A\n\nQ two?\nA. x\nB. y\n\nQ three?\nA. x\nB. y\nANSWER: B\n"
    r = import_source(text.encode(), "a.txt", format="aiken")
    assert rows(r) == [(T.SINGLE, ("A",)), (T.SINGLE, ("B",))]
    assert [(w.kind, w.where) for w in r.warnings] == [("no-answer", "6:1")]


AIKEN_MIXED = (
    "What does SGD stand for?\nA. Stochastic gradient descent\nB. Simple gradient descent\nAnswer: A\n\n"
    "哪个是激活函数？\nA) Adam\nB) ReLU\nanswer：b\n"
)


def test_aiken_with_answer_not_in_capitals_imports_exactly() -> None:
    """The issue's `Answer: B`: Moodle wants capitals, teachers do not always write them."""
    assert detect_format(AIKEN_MIXED.encode(), "quiz.txt") == "aiken"
    r = import_source(AIKEN_MIXED.encode(), "quiz.txt")
    assert (r.format, rows(r), r.warnings) == ("aiken", [(T.SINGLE, ("A",)), (T.SINGLE, ("B",))], ())


def test_numbered_items_with_answer_lines_are_still_a_paper() -> None:
    text = ("1. Which is an optimizer?\nA. Adam\nB. ReLU\nAnswer: A\n"
            "2. Which is an activation?\nA. SGD\nB. ReLU\nAnswer: B\n")
    assert detect_format(text.encode(), "quiz.txt") == "paper"
    assert rows(import_source(text.encode(), "quiz.txt")) == [(T.SINGLE, ("A",)), (T.SINGLE, ("B",))]


@pytest.mark.parametrize("row", [2, 3])
def test_values_without_a_header_are_told_on_their_own_row(row: int) -> None:
    """Not on the header's line 1: the row the teacher has to fix, and every such row named."""
    lines = ["题型,题干,选项A,选项B,答案", "单选题,哪个是优化器,Adam,ReLU,A",
             "单选题,哪个是激活函数,SGD,ReLU,B"]
    lines[row - 1] += ",多余"
    r = import_source("\n".join(lines).encode(), "t.csv")
    [w] = [w for w in r.warnings if w.kind == "unplaced"]
    assert w.where == f"{row}:6" and w.message.endswith(f"(row(s) {row})")
    said = f"第 {row} 行第 6 列：第 6 列没有可识别的表头，其中的内容没有导入（第 {row} 行）"
    assert w.line("zh-CN") == said
    assert len(r.bank.questions) == 2



@pytest.mark.parametrize("text", ["ANSWER:", "ANSWER: B\nQ?\nA. x\nB. y\nANSWER: b\n"])
def test_an_aiken_answer_line_with_no_question_before_it_is_a_warning_not_a_crash(text: str) -> None:
    """Found by the any-bytes property test (`ANSWER:` alone failed with UnboundLocalError): an
    answer line with no question before it is warned about; what follows still imports."""
    from bank.importer.aiken import AikenReader
    from bank.importer.clean import clean_text
    from bank.importer.report import Report

    report = Report()
    paper = AikenReader().read(clean_text(text), report)
    assert [w.key for w in report.warnings][:1] == ["import.aiken.lone_answer"]
    assert len(paper.drafts) == text.count("Q?")
