"""The import's progress bar: drawn on stderr when it is a terminal, never otherwise; and the
compiled-bank cache that start-up and `bank check` use."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bank.check import run_check
from bank.compiled import load_bank_report_cached
from bank.import_cmd import run_import
from bank.loader import load_bank


@pytest.fixture(autouse=True)
def _english_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the CLI's English lines (it speaks zh-CN unless the locale says otherwise)."""
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)

SAMPLE = Path(__file__).parent / "banks" / "sample.yaml"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def paper(tmp_path: Path, items: int) -> Path:
    src = tmp_path / "big.txt"
    src.write_text("".join(f"{n}. 第{n}题\nA. 甲\nB. 乙\n答案：{'AB'[n % 2]}\n"
                           for n in range(1, items + 1)), encoding="utf-8")
    return src


@pytest.mark.parametrize("tty", [True, False])
def test_progress_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         tty: bool) -> None:
    stderr = Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    out = io.StringIO()
    assert run_import(str(paper(tmp_path, 1200)), str(tmp_path / "o.yaml"), out=out) == 0
    bar = stderr.getvalue()
    if tty:
        assert "\rbig.txt: reading  [" in bar and "building [#########################] 100%\n" in bar
    else:
        assert bar == ""
    assert "1200 items" in out.getvalue()


def test_compiled_cache_is_used_and_invalidated(tmp_path: Path) -> None:
    bank_file = tmp_path / "b.yaml"
    bank_file.write_bytes(SAMPLE.read_bytes())
    cache = tmp_path / "cache"
    first = load_bank_report_cached(bank_file, cache)
    [entry] = cache.glob("*.json")
    assert first.bank == load_bank(SAMPLE)
    # a second load reads the entry: prove it by planting a marker in it
    payload = json.loads(entry.read_text(encoding="utf-8"))
    payload["bank"][1] = "from the cache"
    entry.write_text(json.dumps(payload), encoding="utf-8")
    assert load_bank_report_cached(bank_file, cache).bank.title == "from the cache"
    # an edit is a new key: loaded in full, the old entry replaced
    bank_file.write_text(SAMPLE.read_text(encoding="utf-8").replace("Sample bank", "Edited"),
                         encoding="utf-8")
    assert load_bank_report_cached(bank_file, cache).bank.title == "示例题库 Edited"
    assert len(list(cache.glob("*.json"))) == 1
    # a damaged entry is ignored
    [entry] = cache.glob("*.json")
    entry.write_text("{not json", encoding="utf-8")
    assert load_bank_report_cached(bank_file, cache).bank.title == "示例题库 Edited"


def test_broken_banks_are_never_cached(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    broken = Path(__file__).parent / "banks" / "broken" / "unknown_key.yaml"
    out = io.StringIO()
    assert run_check([str(broken)], out, cache_dir=cache) == 1
    assert "unknown key 'answr'" in out.getvalue()
    assert not cache.exists() or not list(cache.glob("*.json"))
    out = io.StringIO()
    assert run_check([str(SAMPLE)], out, cache_dir=cache) == 0
    again = io.StringIO()
    assert run_check([str(SAMPLE)], again, cache_dir=cache) == 0
    assert again.getvalue() == out.getvalue()
