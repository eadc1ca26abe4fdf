"""`studybot bank import`: argument wiring, output to a file or stdout, and the exit status
(0 done, 1 no item, 2 unreadable source)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from bank.import_cmd import add_import_parser, main, run_import, slug
from bank.loader import load_bank


@pytest.fixture(autouse=True)
def _english_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the CLI's English lines (it speaks zh-CN unless the locale says otherwise)."""
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)

PAPERS = Path(__file__).parent / "papers"
SEED = PAPERS / "seed_000_8cd945649fa5e6b6.txt"


def run(src: Path | str, output: Path | None = None, **kwargs) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_import(str(src), str(output) if output else None, out=out, err=err, **kwargs)
    return status, out.getvalue(), err.getvalue()


def test_parser_wiring() -> None:
    parser = argparse.ArgumentParser(prog="studybot bank")
    add_import_parser(parser.add_subparsers(dest="bank_command", required=True))
    args = parser.parse_args(["import", "paper.txt", "-o", "out.yaml", "--id", "mock", "--title",
                              "模拟卷"])
    assert (args.src, args.output, args.id, args.title) == ("paper.txt", "out.yaml", "mock", "模拟卷")
    assert callable(args.func)


def test_seed_to_file(tmp_path: Path) -> None:
    target = tmp_path / "seed.yaml"
    status, out, err = run(SEED, target, bank_id="ai-2025", title="2025 高级")
    assert status == 0 and err == ""
    assert "62 items (30 single, 10 multi, 10 judge, 10 fill, 2 short)" in out
    assert "[duplicate-option]" in out and "missing item(s) 63" in out
    bank = load_bank(target)
    assert (bank.id, bank.title, bank.source) == ("ai-2025", "2025 高级", SEED.name)
    assert len(bank.questions) == 62 and bank.questions[0].id == "ai-2025-001"


def test_yaml_to_stdout_and_summary_to_stderr() -> None:
    status, out, err = run(PAPERS / "blocks_headers.txt")
    assert status == 0
    assert out.startswith("id: blocks_headers\n")
    assert "7 items (3 single, 2 multi, 2 judge)" in err


def test_main_entry_point(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "b.yaml"
    assert main([str(PAPERS / "no_headers.txt"), "-o", str(target), "--id", "nh"]) == 0
    assert "8 items" in capsys.readouterr().out
    assert load_bank(target).questions[-1].id == "nh-008"


def test_no_item_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("会议纪要\n下周讨论数据标注规范。\n", encoding="utf-8")
    target = tmp_path / "out.yaml"
    status, out, _ = run(src, target)
    assert status == 1
    assert "no item found" in out and "2:1" in out
    assert not target.exists()


def test_unreadable_source_exits_2(tmp_path: Path) -> None:
    status, _, err = run(tmp_path / "missing.txt")
    assert status == 2 and "missing.txt" in err
    binary = tmp_path / "paper.docx"
    binary.write_bytes(b"PK\x03\x04\x00\x00binary")
    status, _, err = run(binary)
    assert status == 1 and "damaged zip" in err  # content refused: 1, not unopenable
    status, _, _ = run(tmp_path)  # a directory
    assert status == 2


def test_gb18030_source(tmp_path: Path) -> None:
    src = tmp_path / "gbk.txt"
    src.write_bytes("1. 以下属于优化器的是\nA.Adam\nB.ReLU\n答案：A\n".encode("gb18030"))
    status, out, _ = run(src, tmp_path / "o.yaml")
    assert status == 0
    assert "read as gb18030" in out
    assert load_bank(tmp_path / "o.yaml").questions[0].options[0] == ("A", "Adam")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("000_8cd945649fa5e6b6", "000_8cd945649fa5e6b6"), ("AI Trainer 2025", "ai-trainer-2025"),
     ("模拟卷", "bank-ad8e4b3d"), ("AI模拟卷", "ai-49bac655"), ("-x-", "x"), ("", "imported")],
)
def test_slug(name: str, expected: str) -> None:
    assert slug(name) == expected
