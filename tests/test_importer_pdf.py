"""PDF papers (`studybot bank import paper.pdf`, a PDF uploaded in a chat): the text layer, read in
reading order, imports exactly the bank the same paper gives as text, in one column or two (the
columns written one after the other or line by line across the page), in a TrueType CJK font as
Word embeds it, a CFF one with an embedded CMap, or a non-embedded Adobe-GB1 font; a scan (no
text layer) and a damaged or protected file are refused with a sentence saying why; pictures are
kept with their item (a picture before the first item is warned about).

The PDFs are written here with fpdf2 (tests/pdf_writer.py); `tests/papers/*.pdf` were written with
reportlab 5.1's STSong-Light (a CID font the PDF does not embed) and tests/pdf_writer.scanned."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from adapters.console.files import open_file
from bank.import_cmd import run_import
from bank.importer import ImportRefused, import_source
from bank.loader import load_bank
from bank.uploads import UploadCodec
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from tests import pdf_writer
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_cli_language import needs_tool, no_english, studybot
from tests.test_telegram_harness import tg_fixture  # noqa: F401

PAPERS = Path(__file__).parent / "papers"
PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
ME = Caller(PRIVATE, UserRef(Platform.CONSOLE, "10", "Ann"))


def _text_bank(name: str, bank_id: str):
    """The bank the paper gives as text: what its PDF must give."""
    result = import_source((PAPERS / name).read_bytes(), name, bank_id=bank_id)
    assert result.ok and not result.warnings, result.summary()
    return result


def _same_bank(pdf_result, text_result) -> None:
    assert pdf_result.format == "pdf"
    assert pdf_result.ok, pdf_result.summary()
    assert pdf_result.warnings == (), pdf_result.summary()
    # the whole bank: title, every question's every field, ids and points; only the source differs
    assert replace(pdf_result.bank, source="") == replace(text_result.bank, source="")
    assert pdf_result.sections == text_result.sections or [
        (s.title, s.found) for s in pdf_result.sections] == [(s.title, s.found) for s in text_result.sections]


@cache
def _written(name: str, layout: str, font: str) -> bytes:
    text = (PAPERS / name).read_text(encoding="utf-8")
    if layout == "one":
        return pdf_writer.single_column(text, font=font)
    title, body = text.split("\n", 1)
    return pdf_writer.two_columns(body, title=title, font=font, across=layout == "across")


@pytest.mark.parametrize("font", ["truetype", "cff"])
@pytest.mark.parametrize("layout", ["one", "columns", "across"])
@pytest.mark.parametrize("name", ["lines_headers.txt", "blocks_headers.txt"])
def test_a_pdf_paper_imports_exactly_as_its_text(name: str, layout: str, font: str) -> None:
    data = _written(name, layout, font)
    result = import_source(data, "paper.pdf", bank_id="paper")
    _same_bank(result, _text_bank(name, "paper"))


def test_two_columns_are_read_left_then_right() -> None:
    """Written line by line across the page, the two columns still read one after the other."""
    from bank.importer.pdf import read_pdf

    body = "\n".join(f"{n}. 左栏第{n}行" for n in range(1, 16)) + "\n" + "\n".join(
        f"{n}. 右栏第{n}行" for n in range(16, 31))  # fmt: skip
    lines, places = read_pdf(pdf_writer.two_columns(body, title="两栏试卷", across=True)).lines()
    assert lines == ["两栏试卷", *body.split("\n")]
    assert places[:2] == ["page 1 line 1", "page 1 line 2"]


def test_options_in_a_grid_stay_in_their_rows() -> None:
    """`A. … B. …` / `C. … D. …` written as separate runs in one column is not two columns."""
    from bank.importer.pdf import read_pdf

    pdf = pdf_writer._pdf("0123456789题以下哪个对甲乙丙丁ABCD.", "truetype", 11)
    y = 20.0
    for n in range(1, 5):
        pdf.text(15, y, f"{n}. 以下哪个对")
        pdf.text(15, y + 6, f"A. 甲{n}")
        pdf.text(100, y + 6, f"B. 乙{n}")
        pdf.text(15, y + 12, f"C. 丙{n}")
        pdf.text(100, y + 12, f"D. 丁{n}")
        y += 20
    lines, _ = read_pdf(bytes(pdf.output())).lines()
    assert lines[:3] == ["1. 以下哪个对", "A. 甲1  B. 乙1", "C. 丙1  D. 丁1"], lines


def test_a_reportlab_paper_in_a_font_it_does_not_embed() -> None:
    """Two columns in Adobe's STSong-Light (a non-embedded CID font, as reportlab writes Chinese)."""
    result = import_source((PAPERS / "two_columns_stsong.pdf").read_bytes(), "two.pdf", bank_id="paper")
    _same_bank(result, _text_bank("lines_headers.txt", "paper"))
    blocks = import_source((PAPERS / "blocks_stsong.pdf").read_bytes(), "blocks.pdf", bank_id="paper")
    _same_bank(blocks, _text_bank("blocks_headers.txt", "paper"))


def test_a_scanned_pdf_is_refused_saying_it_has_no_text() -> None:
    with pytest.raises(ImportRefused) as refused:
        import_source(pdf_writer.scanned(3), "scan.pdf")
    assert refused.value.problem.key == "import.refused.pdf_no_text"
    assert refused.value.line("zh-CN") == (
        "scan.pdf：这个 .pdf 文件没有文字层：全部 3 页都只有图片，像是扫描件或照片；"
        "studybot 不识别图片里的文字，请导入带文字的 .pdf、.docx 或文本文件")
    assert "no text layer" in refused.value.line("en") and "(no OCR)" in refused.value.line("en")
    assert "沒有文字層" in refused.value.line("zh-TW")


def test_a_scanned_page_among_text_pages_is_warned_about() -> None:
    import pypdfium2 as pdfium

    paper = pdfium.PdfDocument(_written("blocks_headers.txt", "one", "truetype"))
    scan = pdfium.PdfDocument(pdf_writer.scanned(1))
    paper.import_pages(scan)
    out = io.BytesIO()
    paper.save(out)
    result = import_source(out.getvalue(), "mixed.pdf", bank_id="paper")
    assert [(w.key, w.where) for w in result.warnings] == [
        ("import.pdf.page_without_text", f"page {len(paper)}")]
    assert f"第 {len(paper)} 页：这一页没有文字层" in result.warnings[0].line("zh-CN")


def _png(colour: tuple[int, int, int], size: tuple[int, int] = (60, 40), kind: str = "PNG") -> bytes:
    from PIL import Image

    picture = io.BytesIO()
    Image.new("RGB", size, colour).save(picture, format=kind)
    return picture.getvalue()


def _pixels(data: bytes) -> tuple[tuple[int, int], object]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return image.size, image.convert("RGB").getpixel((5, 5))


def picture_pdf(kind: str = "PNG") -> bytes:
    """A two-item PDF paper with a red picture (a `kind` file) below item 1's stem."""
    text = "一、单选题\n1. 下图中的网络结构是（ ）\nA. 卷积网络\nB. 循环网络\n答案：A\n"
    pdf = pdf_writer._pdf(text + "2. 下一题（ ）甲乙", "truetype", 11)
    for i, line in enumerate(text.split("\n")[:2]):
        pdf.text(15, 20 + 7 * i, line)
    pdf.image(io.BytesIO(_png((200, 30, 30), kind=kind)), x=15, y=36, w=30)
    for i, line in enumerate([*text.split("\n")[2:5], "2. 下一题（ ）", "A. 甲", "B. 乙", "答案：B"]):
        pdf.text(15, 66 + 7 * i, line)
    return bytes(pdf.output())


def picture_docx(before_first: bool = False) -> bytes:
    """A two-item Word paper with a blue picture below item 1's stem (and, with `before_first`,
    a green one above the first item)."""
    import docx

    document = docx.Document()
    document.add_paragraph("一、单选题")
    if before_first:
        document.add_picture(io.BytesIO(_png((30, 200, 30))))
    document.add_paragraph("1. 下图中的网络结构是（ ）")
    document.add_picture(io.BytesIO(_png((30, 30, 200))))
    for line in ["A. 卷积网络", "B. 循环网络", "答案：A", "2. 下一题（ ）", "A. 甲", "B. 乙", "答案：B"]:
        document.add_paragraph(line)
    data = io.BytesIO()
    document.save(data)
    return data.getvalue()


def test_a_picture_in_a_pdf_is_kept_with_its_item() -> None:
    """The picture below item 1's stem goes with item 1, in its own pixels, and no warning."""
    result = import_source(picture_pdf(), "picture.pdf", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [("paper-001-1.png",), ()]
    assert [w.key for w in result.warnings if w.kind != "points"] == []  # the papers give no points
    assert _pixels(result.bank.image("paper-001-1.png")) == ((60, 40), (200, 30, 30))


def test_a_jpeg_in_a_pdf_is_kept_as_the_pdf_holds_it() -> None:
    """A photo stays a JPEG (made a PNG it would be many times its size)."""
    result = import_source(picture_pdf("JPEG"), "picture.pdf", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [("paper-001-1.jpg",), ()]
    assert result.bank.image("paper-001-1.jpg") == _png((200, 30, 30), kind="JPEG")


def test_a_picture_the_paper_repeats_is_kept_once() -> None:
    """One figure for two items: both name the same file, which the bank holds once."""
    import docx

    figure = _png((30, 30, 200))
    document = docx.Document()
    for line in ["一、单选题", "1. 下图中的网络结构是（ ）"]:
        document.add_paragraph(line)
    document.add_picture(io.BytesIO(figure))
    for line in ["A. 卷积网络", "B. 循环网络", "答案：A", "2. 上图中有几层（ ）"]:
        document.add_paragraph(line)
    document.add_picture(io.BytesIO(figure))
    for line in ["A. 两层", "B. 三层", "答案：B"]:
        document.add_paragraph(line)
    data = io.BytesIO()
    document.save(data)
    result = import_source(data.getvalue(), "figure.docx", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [("paper-001-1.png",), ("paper-001-1.png",)]
    assert [image.name for image in result.bank.images] == ["paper-001-1.png"]


def test_a_picture_over_the_limit_is_warned_about(monkeypatch: pytest.MonkeyPatch) -> None:
    import bank.importer.images

    monkeypatch.setattr(bank.importer.images, "MAX_IMAGE_BYTES", 100)  # the test's picture is larger
    result = import_source(picture_docx(), "picture.docx", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [(), ()]
    [warning] = [w for w in result.warnings if w.kind != "points"]
    assert (warning.key, warning.number, warning.where) == ("import.image_too_big", 1, "paragraph 3")
    assert "超过题目图片" in warning.line("zh-CN")


def test_a_pdf_picture_of_too_many_pixels_is_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """An upload must not exhaust memory: a picture over the pixel limit is warned about, unread."""
    import bank.importer.pdf

    monkeypatch.setattr(bank.importer.pdf, "MAX_PICTURE_PIXELS", 60 * 40 - 1)
    result = import_source(picture_pdf(), "picture.pdf", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [(), ()]
    [warning] = [w for w in result.warnings if w.kind != "points"]
    assert (warning.key, warning.number, warning.where) == ("import.image_dropped", 1, "page 1 line 2")


def test_a_picture_in_a_word_paper_is_kept_with_its_item() -> None:
    picture = _png((30, 30, 200))
    result = import_source(picture_docx(), "picture.docx", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [("paper-001-1.png",), ()]
    assert [w.key for w in result.warnings if w.kind != "points"] == []
    assert result.bank.image("paper-001-1.png") == picture  # the PNG as the document holds it


def test_a_picture_in_a_word_question_table_goes_with_its_row() -> None:
    """A question table: a picture in a row's cell is that row's item's; one outside the table
    is warned about."""
    import docx

    figure = _png((30, 200, 30))
    document = docx.Document()
    document.add_paragraph("题库")
    document.add_picture(io.BytesIO(_png((1, 1, 1))))  # outside the table
    table = document.add_table(rows=3, cols=4)
    for cell, text in zip(table.rows[0].cells, ["题干", "A", "B", "答案"], strict=True):
        cell.text = text
    for row, (stem, a, b, key) in zip(table.rows[1:], [("下图是哪种网络？", "卷积", "循环", "A"),
                                                      ("第二题", "甲", "乙", "B")], strict=True):  # fmt: skip
        for cell, text in zip(row.cells, [stem, a, b, key], strict=True):
            cell.text = text
    table.rows[1].cells[0].paragraphs[0].add_run().add_picture(io.BytesIO(figure))
    data = io.BytesIO()
    document.save(data)
    result = import_source(data.getvalue(), "table.docx", bank_id="paper")
    assert [q.stem for q in result.bank.questions] == ["下图是哪种网络？", "第二题"]
    assert [q.images for q in result.bank.questions] == [("paper-001-1.png",), ()]
    assert result.bank.image("paper-001-1.png") == figure
    dropped = [(w.key, w.where) for w in result.warnings if w.kind == "image"]
    assert dropped == [("import.image_dropped", "paragraph 2")]


def test_a_picture_before_the_first_item_is_warned_about() -> None:
    result = import_source(picture_docx(before_first=True), "picture.docx", bank_id="paper")
    assert [q.images for q in result.bank.questions] == [("paper-001-1.png",), ()]
    [warning] = [w for w in result.warnings if w.kind != "points"]
    assert (warning.key, warning.number, warning.where) == ("import.image_dropped", None, "paragraph 2")
    assert warning.line("zh-CN").startswith("第 2 段：这里的图片没有导入"), warning.line("zh-CN")


@pytest.mark.parametrize("kind", ["pdf", "docx"])
def test_an_imported_picture_is_written_beside_the_bank_and_loads_back(tmp_path: Path, kind: str) -> None:
    """`bank import -o OUT.yaml` writes the pictures into OUT.images/; the bank loads with them."""
    src = tmp_path / f"picture.{kind}"
    src.write_bytes(picture_pdf() if kind == "pdf" else picture_docx())
    out = io.StringIO()
    assert run_import(str(src), str(tmp_path / "paper.yaml"), bank_id="paper", out=out, err=io.StringIO(),
                      language="en") == 0, out.getvalue()
    assert f"wrote 1 picture into {tmp_path / 'paper.images'}" in out.getvalue()
    assert "images: [paper-001-1.png]" in (tmp_path / "paper.yaml").read_text(encoding="utf-8")
    bank = load_bank(tmp_path / "paper.yaml")
    assert bank.questions[0].images == ("paper-001-1.png",)
    assert bank.image("paper-001-1.png") == (tmp_path / "paper.images" / "paper-001-1.png").read_bytes()
    colour = (200, 30, 30) if kind == "pdf" else (30, 30, 200)
    assert _pixels(bank.image("paper-001-1.png")) == ((60, 40), colour)


def test_pictures_do_not_go_to_standard_output(tmp_path: Path) -> None:
    src = tmp_path / "picture.docx"
    src.write_bytes(picture_docx())
    out, err = io.StringIO(), io.StringIO()
    assert run_import(str(src), None, out=out, err=err, language="zh-CN") == 1
    assert out.getvalue() == ""
    assert "试卷里有 1 张图片，不能写到标准输出" in err.getvalue()


@pytest.mark.parametrize("data, key", [
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<", "import.refused.bad_pdf"),
    (b"%PDF-1.4\n" + b"\x00garbage" * 100, "import.refused.bad_pdf"),
    (b"not a pdf at all, but named so", "import.refused.bad_pdf"),
])  # fmt: skip
def test_a_broken_pdf_is_refused(data: bytes, key: str) -> None:
    with pytest.raises(ImportRefused) as refused:
        import_source(data, "broken.pdf")
    assert refused.value.problem.key == key
    assert refused.value.line("zh-CN") == (
        "broken.pdf：无法读取这个 .pdf 文件（可能已损坏或不完整），请重新导出后再试")


def test_a_pdf_with_a_password_is_refused_saying_so() -> None:
    from fpdf.enums import EncryptionMethod

    pdf = pdf_writer._pdf("1. 题", "truetype", 11)
    pdf.text(15, 20, "1. 题")
    pdf.set_encryption(owner_password="o", user_password="secret", encryption_method=EncryptionMethod.RC4)
    with pytest.raises(ImportRefused) as refused:
        import_source(bytes(pdf.output()), "locked.pdf")
    assert refused.value.problem.key == "import.refused.pdf_password"
    assert "设有密码" in refused.value.line("zh-CN")


def test_a_pdf_is_known_by_its_content_whatever_its_name() -> None:
    data = _written("blocks_headers.txt", "one", "truetype")
    assert import_source(data, "题库", bank_id="paper").format == "pdf"
    assert import_source(data, "paper.txt", bank_id="paper").format == "pdf"


# ---------------------------------------------------------------- any paper, any layout


_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下"
    "过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都"
    "两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重"
    "新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想"
    "已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知"
    "较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理"
)
_ALPHABET = _CHARS + "随试卷一、单选题答案ABCD.（）。，、？：0123456789 "


def _paper(items: list[tuple[str, list[str], int]]) -> str:
    lines = ["随机试卷", "一、单选题"]
    for number, (stem, options, answer) in enumerate(items, 1):
        lines.append(f"{number}. {stem}（ ）")
        lines += [f"{'ABCD'[i]}. {option}" for i, option in enumerate(options)]
        lines.append(f"答案：{'ABCD'[answer]}")
    return "\n".join(lines) + "\n"


_WORDS = st.text(alphabet=_CHARS, min_size=2, max_size=60)
_OPTIONS = st.lists(st.text(alphabet=_CHARS, min_size=1, max_size=25), min_size=2, max_size=4, unique=True)
_ITEMS = st.lists(
    st.tuples(_WORDS, _OPTIONS, st.integers(0, 3)).map(lambda t: (t[0], t[1], min(t[2], len(t[1]) - 1))),
    min_size=1, max_size=12,
)


# no shrinking: each example writes a PDF, and a failing one is printed as found
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # fmt: skip
@given(items=_ITEMS, layout=st.sampled_from(["one", "columns", "across"]))
def test_random_papers_in_any_layout_read_back_exactly(items, layout: str) -> None:
    """Random single-choice papers, long stems wrapping anywhere, in one column or two."""
    text = _paper(items)
    want = import_source(text.encode(), "random.txt", bank_id="paper")
    if not want.ok or want.warnings:
        return  # a paper the text reader itself questions (a stem that reads as an option…)
    if layout == "one":
        data = pdf_writer.single_column(text, alphabet=_ALPHABET)
    else:
        title, body = text.split("\n", 1)
        data = pdf_writer.two_columns(body, title=title, across=layout == "across", alphabet=_ALPHABET)
    got = import_source(data, "random.pdf", bank_id="paper")
    assert got.ok and got.warnings == (), (layout, text, got.summary())
    assert replace(got.bank, source="") == replace(want.bank, source="")


_PARTS = st.sampled_from(["stem", "option", "answer"])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # fmt: skip
@given(pictures=st.lists(st.lists(_PARTS, max_size=3), min_size=1, max_size=6),
       layout=st.sampled_from(["docx", "pdf"]))  # fmt: skip
# the last item's last picture alone on a new page: still that item's
@example(pictures=[["stem"], ["stem"], ["answer"], ["option", "answer"], [], ["stem", "option", "answer"]],
         layout="pdf")  # fmt: skip
def test_every_picture_goes_with_the_item_it_stands_in(pictures: list[list[str]], layout: str) -> None:
    """Items with pictures anywhere in them (after the stem, an option or the answer), in a Word
    or a PDF paper: each item has its own pictures, in order, the bytes' colours intact."""
    colours = iter((10 * i, 200 - 10 * i, 90) for i in range(1, 20))
    wanted: list[list[tuple[int, int, int]]] = []
    blocks: list[tuple[str, list[tuple[int, int, int]]]] = [("一、单选题", [])]
    for n, places in enumerate(pictures, 1):
        mine: list[tuple[int, int, int]] = []
        for line, part in ((f"{n}. 第{n}题的网络结构是（ ）", "stem"), ("A. 卷积网络", "option"),
                           ("B. 循环网络", "option"), ("答案：A", "answer")):  # fmt: skip
            here = [next(colours) for p in places if p == part and (part != "option" or line.startswith("A"))]
            blocks.append((line, here))
            mine += here
        wanted.append(mine)
    if layout == "docx":
        import docx

        document = docx.Document()
        for line, here in blocks:
            document.add_paragraph(line)
            for colour in here:
                document.add_picture(io.BytesIO(_png(colour, (12, 8))))
        out = io.BytesIO()
        document.save(out)
        data = out.getvalue()
    else:
        pdf = pdf_writer._pdf("".join(line for line, _ in blocks), "truetype", 11)
        y = 15.0
        for line, here in blocks:
            if y > 260:
                pdf.add_page()
                y = 15.0
            pdf.text(15, y, line)
            y += 7
            for colour in here:
                if y > 255:
                    pdf.add_page()
                    y = 15.0
                pdf.image(io.BytesIO(_png(colour, (12, 8))), x=15, y=y - 3, w=12)
                y += 11
        data = bytes(pdf.output())
    result = import_source(data, f"random.{layout}", bank_id="paper")
    assert [w.key for w in result.warnings if w.kind == "image"] == []
    got = [[_pixels(result.bank.image(name))[1] for name in q.images] for q in result.bank.questions]
    assert got == wanted


# ---------------------------------------------------------------- the CLI and a chat


@needs_tool
def test_the_cli_imports_a_pdf_and_refuses_a_scan_in_chinese(tmp_path: Path) -> None:
    src = tmp_path / "paper.pdf"
    src.write_bytes(_written("lines_headers.txt", "across", "truetype"))
    result = studybot("bank", "import", str(src), "-o", str(tmp_path / "paper.yaml"), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "共 18 道题" in result.stdout and "读取格式：.pdf" in result.stdout, result.stdout
    written = load_bank(tmp_path / "paper.yaml")
    assert written.questions == _text_bank("lines_headers.txt", "paper").bank.questions
    scan = tmp_path / "scan.pdf"
    scan.write_bytes((PAPERS / "scanned.pdf").read_bytes())
    refused = studybot("bank", "import", str(scan), tmp_path=tmp_path)
    assert refused.returncode == 1
    assert "scan.pdf：这个 .pdf 文件没有文字层" in refused.stderr, refused.stderr
    no_english(result.stdout + result.stderr + refused.stdout + refused.stderr, tmp_path, PAPERS)


def test_run_import_of_a_pdf(tmp_path: Path) -> None:
    src = tmp_path / "two.pdf"
    src.write_bytes((PAPERS / "two_columns_stsong.pdf").read_bytes())
    out, err = io.StringIO(), io.StringIO()
    status = run_import(str(src), str(tmp_path / "two.yaml"), out=out, err=err, language="zh-CN")
    assert status == 0, out.getvalue()
    assert "读取格式：.pdf" in out.getvalue()


@pytest.fixture
async def chinese(make_app):
    return await make_app(language="zh-CN")


async def test_a_pdf_uploaded_in_the_console_becomes_a_bank(chinese, tmp_path: Path) -> None:
    path = tmp_path / "模拟卷.pdf"
    path.write_bytes(_written("lines_headers.txt", "columns", "cff"))
    reply = render_reply(await chinese.application.run_text(f"/bank import {path}", ME, open_file=open_file))
    assert "模拟卷.pdf" in reply and "18" in reply and ".pdf" in reply, reply
    confirmed = render_reply(await chinese.application.run_text("/bank confirm", ME))
    assert "18" in confirmed, confirmed
    bank = chinese.quiz.bank_for(await chinese.quiz.chat(PRIVATE))
    want = UploadCodec().read(path.read_bytes(), path.name, bank.id, "zh-CN").bank
    assert bank == want
    text_bank = _text_bank("lines_headers.txt", "x").bank
    assert [q.stem for q in bank.questions] == [q.stem for q in text_bank.questions]


async def test_a_scanned_pdf_uploaded_in_a_chat_is_refused_in_chinese(chinese, tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes((PAPERS / "scanned.pdf").read_bytes())
    before = await chinese.storage.banks.stored_banks()
    reply = render_reply(await chinese.application.run_text(f"/bank import {path}", ME, open_file=open_file))
    assert reply.startswith("scan.pdf 未导入，未做任何更改。"), reply
    assert "没有文字层" in reply and "扫描件" in reply, reply
    ours = reply.replace("studybot", "").replace("scan.pdf", "").replace(".pdf", "").replace(".docx", "")
    assert not re.search(r"[A-Za-z]{3,}", ours), reply
    assert await chinese.storage.banks.stored_banks() == before


# ---------------------------------------------------------------- a Telegram group


async def test_a_pdf_sent_to_a_telegram_group_becomes_its_bank(tg) -> None:
    """Through the real python-telegram-bot against the fake Bot API: a PDF document captioned
    `/bank import` is fetched, read in reading order and confirmed; a scan is refused."""
    from tests.test_telegram_harness import BOSS, GROUP
    from tests.test_telegram_upload import send

    tg.server.set_member_status(GROUP.id, BOSS, "administrator")
    await tg.start()
    refused = await send(tg, BOSS, "scan.pdf", (PAPERS / "scanned.pdf").read_bytes())
    assert refused.startswith("scan.pdf was not imported, and nothing changed.")
    assert "the PDF has no text layer" in refused and "no OCR" in refused, refused
    read = await send(tg, BOSS, "two.pdf", (PAPERS / "two_columns_stsong.pdf").read_bytes())
    assert "Read two.pdf as PDF: 18 questions" in read, read
    confirmed = (await tg.say(GROUP, BOSS, "/bank confirm"))["text"]
    assert "18 questions" in confirmed, confirmed
