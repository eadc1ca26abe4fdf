"""The fast paths for large banks give exactly what the slow, general ones give: the direct
YAML writer against PyYAML's emitter, the C-parser loader against the line-keeping one."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank import yaml_io
from bank.importer import import_source
from bank.loader import load_bank
from bot.domain.questions import Bank

HERE = Path(__file__).parent / "banks"
SHIPPED = Path(__file__).parent.parent / "bank" / "ai_trainer_2025.yaml"


def slow_dump(bank: Bank) -> str:
    original = yaml_io._fast_question
    yaml_io._fast_question = lambda q: None
    try:
        return yaml_io.dump_bank(bank)
    finally:
        yaml_io._fast_question = original


def banks() -> list[Bank]:
    found = [load_bank(SHIPPED), load_bank(HERE / "sample.yaml")]
    for path in sorted((HERE / "import").iterdir()):
        if path.suffix != ".py" and path.name != "merged.xlsx":
            found.append(import_source(path.read_bytes(), path.name, bank_id="x").bank)
    return found


@pytest.mark.parametrize("bank", banks(), ids=lambda b: b.source or b.id)
def test_fast_dump_equals_pyyaml(bank: Bank) -> None:
    assert yaml_io.dump_bank(bank) == slow_dump(bank)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=12))
def test_fast_dump_of_any_text(text: str) -> None:
    bank = load_bank(HERE / "sample.yaml")
    q = bank.questions[0]
    odd = replace(q, stem=text or "x", explanation=text, options=(("A", text or "y"), ("B", "z")))
    bank = replace(bank, questions=(odd,))
    assert yaml_io.dump_bank(bank) == slow_dump(bank)


def slow_report(text: str, name: str):
    from bank import loader

    original = loader._fast_report
    loader._fast_report = lambda text, filename: None
    try:
        return loader.load_bank_text_report(text, name)
    finally:
        loader._fast_report = original


BANK_FILES = [SHIPPED, HERE / "sample.yaml", *sorted((HERE / "broken").glob("*.yaml"))]


@pytest.mark.parametrize("path", BANK_FILES, ids=lambda p: p.name)
def test_fast_load_reports_what_the_slow_one_does(path: Path) -> None:
    from bank.loader import load_bank_text_report

    text = path.read_text(encoding="utf-8")
    assert load_bank_text_report(text, path.name) == slow_report(text, path.name)


@pytest.mark.parametrize("path", BANK_FILES, ids=lambda p: p.name)
def test_surely_valid_only_when_the_schema_agrees(path: Path) -> None:
    from bank.checks import _validator
    from bank.fast_load import Doubt, fast_parse, surely_valid

    try:
        data = fast_parse(path.read_text(encoding="utf-8"))
    except Doubt:
        return
    if surely_valid(data):
        assert not list(_validator().iter_errors(data))


def test_aliases_and_duplicate_keys_take_the_slow_path() -> None:
    from bank.fast_load import Doubt, fast_parse

    for text in ("a: &x 1\nb: *x\n", "a: 1\na: 2\n", "a: !!python/name:os.system x\n"):
        with pytest.raises(Doubt):
            fast_parse(text)
    assert fast_parse("A: no\nN: yes\n1: 017\nd: 2025-01-01\n") == {
        "A": "no", "N": "yes", "1": 17, "d": "2025-01-01"}
