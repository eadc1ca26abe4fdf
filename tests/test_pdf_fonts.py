"""A PDF in a font it does not embed (Adobe's STSong-Light, as reportlab and many Chinese PDF
writers set Chinese) reads the same on every machine: PDFium measures it with the Noto Sans CJK
the install brings (bank/importer/pdf_fonts.py), not with whatever fonts the machine has. Read
with the machine's fonts hidden (empty mounts over its font folders in a private mount namespace,
as tests/test_chart_fonts.py does), the reportlab papers still import exactly the bank their text
gives; every CJK character set gets real character boxes, not the flat ones of a font without
the glyph."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank.importer import import_source
from bank.importer.pdf import read_pdf
from tests.test_chart_fonts import FONT_DIRS, _without_fonts, needs_namespaces

ROOT = Path(__file__).resolve().parent.parent
PAPERS = Path(__file__).parent / "papers"
# (paper, the text it was written from)
STSONG = [("two_columns_stsong.pdf", "lines_headers.txt"), ("blocks_stsong.pdf", "blocks_headers.txt")]

# Run in a process that sees no font of the machine's: the font folders, as PDFium scans them.
READ_HIDDEN = """
import json, os, sys
from dataclasses import replace
from bank.importer import import_source
from bank.importer.pdf import read_pdf
out = {"fonts": {d: os.listdir(d) for d in sys.argv[1].split(":") if os.path.isdir(d)}, "papers": []}
for pdf, text in json.loads(sys.argv[2]):
    data = open(pdf, "rb").read()
    result = import_source(data, "paper.pdf", bank_id="paper")
    want = import_source(open(text, "rb").read(), "paper.txt", bank_id="paper")
    out["papers"].append({
        "lines": read_pdf(data).lines()[0],
        "same_bank": result.ok and replace(result.bank, source="") == replace(want.bank, source=""),
        "summary": result.summary(),
        "warnings": len(result.warnings),
    })
print(json.dumps(out, ensure_ascii=False))
"""


@needs_namespaces
def test_a_non_embedded_cid_font_reads_the_same_with_the_machines_fonts_hidden(tmp_path: Path) -> None:
    empty = tmp_path / "fonts.conf"  # for anything that asks fontconfig (PDFium does not)
    empty.write_text('<?xml version="1.0"?><fontconfig></fontconfig>\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FONTCONFIG_FILE": str(empty), "HOME": str(tmp_path)}
    papers = [(str(PAPERS / pdf), str(PAPERS / text)) for pdf, text in STSONG]
    run = _without_fonts([sys.executable, "-c", READ_HIDDEN, ":".join(FONT_DIRS), json.dumps(papers)], env)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "", run.stderr  # no callback error, no warning
    seen = json.loads(run.stdout)
    assert seen["fonts"] and all(listing == [] for listing in seen["fonts"].values()), seen["fonts"]
    for (pdf, _), paper in zip(STSONG, seen["papers"], strict=True):
        assert paper["same_bank"] and paper["warnings"] == 0, paper["summary"]
        # and line for line what this process (with the machine's fonts) reads
        assert paper["lines"] == read_pdf((PAPERS / pdf).read_bytes()).lines()[0]


def test_the_reportlab_papers_import_exactly_as_their_text() -> None:
    for pdf, text in STSONG:
        result = import_source((PAPERS / pdf).read_bytes(), pdf, bank_id="paper")
        want = import_source((PAPERS / text).read_bytes(), text, bank_id="paper")
        assert result.ok and result.warnings == (), result.summary()
        assert replace(result.bank, source="") == replace(want.bank, source="")


# ---------------------------------------------------------------- every CJK character set


def _cid_pdf(lines: list[str], font: str, encoding: str, ordering: str, size: int = 12) -> bytes:
    """A one-page PDF setting `lines` in the CID font `font`, named and not embedded (as reportlab
    writes it: a Type0 font over a CIDFontType0 with only a descriptor, a UCS-2 CMap)."""
    ops = ["BT", f"/F1 {size} Tf"]
    for number, line in enumerate(lines):
        ops.append(f"1 0 0 1 50 {800 - 2 * size * number} Tm <{line.encode('utf-16-be').hex()}> Tj")
    content = "\n".join([*ops, "ET"]).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >>"
        b" /Contents 5 0 R >>",
        f"<< /Type /Font /Subtype /Type0 /BaseFont /{font} /Encoding /{encoding}"
        f" /DescendantFonts [6 0 R] >>".encode(),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        f"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /{font} /CIDSystemInfo << /Registry (Adobe)"
        f" /Ordering ({ordering}) /Supplement 2 >> /FontDescriptor 7 0 R /DW 1000 >>".encode(),
        f"<< /Type /FontDescriptor /FontName /{font} /Flags 6 /FontBBox [0 -200 1000 900] /ItalicAngle 0"
        f" /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>".encode(),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


# Adobe's non-embedded CJK fonts (the ones reportlab offers), one per character set
FONTS = [
    ("STSong-Light", "UniGB-UCS2-H", "GB1"),  # simplified Chinese
    ("MSung-Light", "UniCNS-UCS2-H", "CNS1"),  # traditional Chinese
    ("HeiseiMin-W3", "UniJIS-UCS2-H", "Japan1"),
    ("HYSMyeongJo-Medium", "UniKS-UCS2-H", "Korea1"),
]


@pytest.mark.parametrize(("font", "encoding", "ordering"), FONTS)
def test_every_cjk_character_set_gets_real_character_boxes(font: str, encoding: str, ordering: str) -> None:
    """Without a font that has the glyph, PDFium gives a Chinese character a box of height 0 on
    its baseline; measured with the packaged face it is about as tall as the type."""
    import pypdfium2 as pdfium

    lines = ["1. 数据标注中，用矩形框标出图像", "2. 神經網絡（ ）對 A. 训练集 B. 验证集"]
    data = _cid_pdf(lines, font, encoding, ordering)
    assert read_pdf(data).lines()[0] == lines  # installs the font info, as every read does
    document = pdfium.PdfDocument(data)
    try:
        textpage = document[0].get_textpage()
        chars = [
            (textpage.get_text_range(i, 1), textpage.get_charbox(i)) for i in range(textpage.count_chars())
        ]
    finally:
        document.close()
    heights = [top - bottom for char, (_, bottom, _, top) in chars if "\u4e00" <= char <= "\u9fff"]
    assert heights and all(0.6 * 12 < height < 1.2 * 12 for height in heights), heights


_HAN = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)  # GB2312's and Big5's range


@settings(max_examples=30, deadline=None)
@given(
    texts=st.lists(st.text(alphabet=_HAN, min_size=1, max_size=30), min_size=1, max_size=12),
    fonts=st.sampled_from(FONTS[:2]),
)
def test_any_chinese_text_in_a_font_the_pdf_does_not_embed_reads_back(texts, fonts) -> None:
    lines = [f"{number}. {text}" for number, text in enumerate(texts, 1)]
    assert read_pdf(_cid_pdf(lines, *fonts)).lines()[0] == lines
