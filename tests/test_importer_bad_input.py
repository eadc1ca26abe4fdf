"""Bad sources through `studybot bank import`: each is refused with a message naming the place,
exit status 1, and nothing written."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bank.import_cmd import run_import


@pytest.fixture(autouse=True)
def _english_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the CLI's English lines (it speaks zh-CN unless the locale says otherwise)."""
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)

IMPORT = Path(__file__).parent / "banks" / "import"


def refused(src: Path, tmp_path: Path) -> str:
    target = tmp_path / "out.yaml"
    out, err = io.StringIO(), io.StringIO()
    status = run_import(str(src), str(target), out=out, err=err)
    assert status == 1, out.getvalue()
    assert not target.exists()
    assert "nothing written" in out.getvalue()
    return out.getvalue()


def test_empty_file(tmp_path: Path) -> None:
    src = tmp_path / "empty.txt"
    src.write_bytes(b"")
    assert "empty.txt:1: the file is empty" in refused(src, tmp_path)
    src.write_bytes(b"  \n\n")
    assert "the file is empty" in refused(src, tmp_path)


def test_binary_file(tmp_path: Path) -> None:
    src = tmp_path / "image.png"
    src.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    message = refused(src, tmp_path)
    assert "image.png: binary file, not text" in message and "formats: paper, aiken" in message
    src = tmp_path / "old.doc"
    src.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)
    assert "old Word/Excel file (.doc/.xls)" in refused(src, tmp_path)


def test_50_mb_file(tmp_path: Path) -> None:
    src = tmp_path / "huge.txt"
    with src.open("wb") as f:
        line = "1. 题目\nA. 甲\nB. 乙\n答案：A\n".encode()
        for _ in range(50 * 2**20 // len(line) + 1):
            f.write(line)
    assert "huge.txt: 50.0 MB is over the 32 MB limit" in refused(src, tmp_path)


def test_csv_with_a_wrong_header(tmp_path: Path) -> None:
    src = tmp_path / "bank.csv"
    src.write_text("name,score\nalice,3\n", encoding="utf-8")
    message = refused(src, tmp_path)
    assert "1:1: [header] the first row of the CSV file is not a header" in message
    assert "found 'name', 'score'" in message and "题干" in message


def test_xlsx_with_merged_cells(tmp_path: Path) -> None:
    message = refused(IMPORT / "merged.xlsx", tmp_path)
    assert "cell A2: [merged] sheet '题库' has merged cells (A2:A3)" in message


def test_gift_with_an_unclosed_brace(tmp_path: Path) -> None:
    src = tmp_path / "quiz.gift"
    src.write_text("::a::Fine {=yes ~no}\n\n::b::Broken {=yes ~no\n\n::c::Fine {T}\n",
                   encoding="utf-8")
    message = refused(src, tmp_path)
    assert "3:13 item 2: [gift] unclosed brace" in message


def test_undecodable_text(tmp_path: Path) -> None:
    src = tmp_path / "latin.txt"
    src.write_bytes("1. café\nA. x\nB. y\n答案：A\n".encode() + b"\x81\xff\xfe")
    assert "latin.txt:5: neither UTF-8 nor GB18030" in refused(src, tmp_path)


@pytest.mark.parametrize("fmt", ["gift", "aiken", "csv"])
def test_forced_format_that_does_not_fit(tmp_path: Path, fmt: str) -> None:
    src = IMPORT / "paper_key.txt"
    target = tmp_path / "out.yaml"
    out = io.StringIO()
    assert run_import(str(src), str(target), reader=fmt, out=out, err=io.StringIO()) == 1
    assert (not target.exists() and "choose one with --format" in out.getvalue()) or \
        "[header]" in out.getvalue()
