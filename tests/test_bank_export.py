"""`studybot bank export`: every format imports back to the same questions (import -> export ->
import), through the command line as a teacher would run it."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from bank.export_cmd import run_export
from bank.exporters import EXPORT_FORMATS, export_bank
from bank.importer import import_source
from bank.loader import load_bank
from bank.yaml_io import dump_bank
from bot.domain.questions import Bank
from studybot.cli import main


@pytest.fixture(autouse=True)
def _english_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the CLI's English lines (it speaks zh-CN unless the locale says otherwise)."""
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)

HERE = Path(__file__).parent / "banks"
FIXTURES = ["zh.csv", "en.csv", "gift.gift", "aiken.txt", "paper_key.txt", "questions.xlsx",
            "paper.docx", "english.txt"]


def imported(name: str) -> Bank:
    result = import_source((HERE / "import" / name).read_bytes(), name, bank_id="b", title="t",
                           source="s")
    assert result.ok
    return result.bank


def again(bank: Bank, fmt: str) -> Bank:
    data = export_bank(bank, fmt)
    result = import_source(data, f"b{EXPORT_FORMATS[fmt]}", bank_id=bank.id, title=bank.title,
                           source=bank.source)
    assert result.ok and not result.errors, result.summary()
    return result.bank


@pytest.mark.parametrize("fmt", list(EXPORT_FORMATS))
@pytest.mark.parametrize("name", FIXTURES)
def test_import_export_import_gives_the_same_bank(name: str, fmt: str) -> None:
    bank = imported(name)
    assert again(bank, fmt) == bank


@pytest.mark.parametrize("fmt", list(EXPORT_FORMATS))
def test_sample_bank_round_trip(fmt: str) -> None:
    """The editors' records (key points, errata) stay in the YAML bank: exports carry what a
    quiz needs."""
    bank = load_bank(HERE / "sample.yaml")
    plain = tuple(replace(q, key_points=(), errata=(), completed_by_editor=False)
                  for q in bank.questions)
    assert again(bank, fmt).questions == plain


def test_awkward_text_survives_every_format() -> None:
    bank = imported("gift.gift")
    q = bank.questions[0]
    odd = q.__class__(**{**{f: getattr(q, f) for f in q.__slots__},
                         "stem": 'Line one: {a} ~b =c #d\n"quoted", 或 | \\ <b>not html</b>',
                         "explanation": "two\nlines"})
    bank = Bank(bank.id, bank.title, bank.language, bank.source, (odd, *bank.questions[1:]))
    for fmt in EXPORT_FORMATS:
        assert again(bank, fmt) == bank, fmt


@pytest.mark.parametrize("fmt", list(EXPORT_FORMATS))
def test_command_line_round_trip(tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "gift.yaml"
    src.write_text(dump_bank(imported("gift.gift")), encoding="utf-8")
    exported = tmp_path / f"out{EXPORT_FORMATS[fmt]}"
    assert main(["bank", "export", str(src), "--format", fmt, "-o", str(exported)]) == 0
    assert f"wrote {exported}: 9 questions as {fmt}" in capsys.readouterr().err
    back = tmp_path / "back.yaml"
    assert main(["bank", "import", str(exported), "--id", "b", "--title", "t", "--source", "s",
                 "-o", str(back)]) == 0
    assert load_bank(back) == load_bank(src)


def test_text_formats_go_to_stdout_and_a_broken_bank_is_refused(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_export(str(HERE / "sample.yaml"), "gift", out=out, err=err) == 0
    assert "::s-001::" in out.getvalue() and err.getvalue() == ""
    broken = HERE / "broken" / "unknown_key.yaml"
    assert run_export(str(broken), "csv", out=out, err=err) == 1
    assert "unknown key 'answr'" in err.getvalue() and "refused, nothing exported" in err.getvalue()
