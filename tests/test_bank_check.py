"""Tests for `studybot bank check` (bank/check.py) against the broken fixtures in tests/banks/broken.

Each fixture states the errors it must produce in `# expect: LINE [QID] text` comments.
"""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bank.check import add_check_parser, default_bank_dir, default_bank_path, run_check
from bank.loader import load_bank_text_report


@pytest.fixture(autouse=True)
def _english_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the CLI's English lines (it speaks zh-CN unless the locale says otherwise)."""
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)

BANKS = Path(__file__).parent / "banks"
BROKEN = sorted((BANKS / "broken").glob("*.yaml"))
EXPECT = re.compile(r"^# expect: (\d+) (?:\[([^\]]+)\] )?(.+)$", re.MULTILINE)


def _expectations(path: Path) -> list[tuple[int, str | None, str]]:
    return [(int(n), qid, text) for n, qid, text in EXPECT.findall(path.read_text("utf-8"))]


def _check(*paths: Path | str) -> tuple[int, list[str]]:
    out = io.StringIO()
    status = run_check([str(p) for p in paths], out=out)
    return status, out.getvalue().splitlines()


def test_there_are_enough_broken_fixtures() -> None:
    assert len(BROKEN) >= 14
    for path in BROKEN:
        assert _expectations(path), f"{path.name} has no '# expect:' comment"


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_broken_bank_is_refused_with_the_right_lines(path: Path) -> None:
    status, lines = _check(path)
    assert status == 1
    errors = [ln for ln in lines if re.match(rf"{re.escape(str(path))}:\d+:", ln)]
    errors = [ln for ln in errors if "warning:" not in ln]
    expected = _expectations(path)
    for line, qid, text in expected:
        prefix = f"{path}:{line}: " + (f"[{qid}] " if qid else "")
        matching = [e for e in errors if e.startswith(prefix) and text in e]
        assert matching, f"expected {prefix}...{text!r} in:\n" + "\n".join(lines)
    # Every error is listed, and nothing else is reported as an error.
    assert len(errors) == len(expected), "\n".join(lines)
    assert lines[-1] == f"{path}: refused, {len(expected)} error" + ("s" * (len(expected) > 1))


def test_every_error_of_a_many_error_bank_is_listed() -> None:
    path = BANKS / "broken" / "many_errors.yaml"
    status, lines = _check(path)
    assert status == 1
    assert len(_expectations(path)) >= 6
    reported_ids = {m.group(1) for ln in lines if (m := re.search(r"\[([^\]]+)\]", ln))}
    assert {"m1", "m2", "#3", "m4"} <= reported_ids


def test_valid_sample_prints_a_summary() -> None:
    status, lines = _check(BANKS / "sample.yaml")
    assert status == 0
    assert lines == [
        f'{BANKS / "sample.yaml"}: OK sample "示例题库 Sample bank": 5 questions '
        "(single 1, multi 1, judge 1, fill 1, short 1), 10 points, 5 tags, 1 errata, 0 warnings"
    ]


def test_directory_means_its_yaml_files_not_subdirectories() -> None:
    status, lines = _check(BANKS)
    assert status == 0
    assert len(lines) == 1 and "OK sample" in lines[0]


def test_one_bad_bank_among_good_ones_fails_the_run() -> None:
    status, lines = _check(BANKS / "sample.yaml", BANKS / "broken" / "judge_no.yaml")
    assert status == 1
    assert any("OK sample" in ln for ln in lines)
    assert any("judge answer must be true or false" in ln for ln in lines)


def test_missing_path_and_empty_directory_are_errors(tmp_path: Path) -> None:
    status, lines = _check(tmp_path / "nope.yaml")
    assert status == 1 and lines == [f"{tmp_path / 'nope.yaml'}: no such file or directory"]
    status, lines = _check(tmp_path)
    assert status == 1 and "no *.yaml bank files" in lines[0]


def test_same_bank_id_in_two_files_is_an_error(tmp_path: Path) -> None:
    text = (BANKS / "sample.yaml").read_text("utf-8")
    (tmp_path / "a.yaml").write_text(text, "utf-8")
    (tmp_path / "b.yaml").write_text(text, "utf-8")
    status, lines = _check(tmp_path)
    assert status == 1
    assert any("bank id 'sample' is also used by" in ln for ln in lines)


def test_warnings_are_printed_but_do_not_fail(tmp_path: Path) -> None:
    text = (BANKS / "sample.yaml").read_text("utf-8").replace("A: SGD", "A: Adam")
    text = text.replace("以下属于常用优化器的有", "以下属于常用优?器的有")
    path = tmp_path / "warn.yaml"
    path.write_text(text, "utf-8")
    status, lines = _check(path)
    assert status == 0
    assert any(ln.startswith(f"{path}:") and "[s-002] warning: options A and B" in ln for ln in lines)
    assert any("[s-002] warning: stem may have lost characters" in ln for ln in lines)
    assert lines[-1].endswith("2 warnings")


def test_examples_in_the_format_doc_pass_the_checker(tmp_path: Path) -> None:
    doc = (Path(__file__).parent.parent / "docs" / "bank-format.md").read_text("utf-8")
    examples = [b for b in re.findall(r"```yaml\n(.*?)```", doc, re.DOTALL) if b.startswith("id:")]
    assert len(examples) >= 2
    for n, example in enumerate(examples):
        (tmp_path / f"example{n}.yaml").write_text(example, "utf-8")
    status, lines = _check(tmp_path)
    assert status == 0, lines
    assert all("OK" in line and line.endswith(" 0 warnings") for line in lines)


def test_default_paths_point_into_the_bank_package() -> None:
    import bank

    assert default_bank_dir() == Path(bank.__file__).resolve().parent
    assert default_bank_path() == default_bank_dir() / "ai_trainer_2025.yaml"


def test_check_subcommand_parses_paths_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="studybot bank")
    add_check_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["check", str(BANKS / "sample.yaml")])
    assert args.func(args) == 0
    assert "OK sample" in capsys.readouterr().out
    args = parser.parse_args(["check"])
    assert args.paths == []
    status = args.func(args)  # the packaged bank directory
    out = capsys.readouterr().out
    assert str(default_bank_dir()) in out
    if default_bank_path().exists():
        assert status == 0, out


SAMPLE_LINES = (BANKS / "sample.yaml").read_text("utf-8").splitlines()
JUNK = [
    "true",
    "no",
    "~",
    "[]",
    "{}",
    "[A, A]",
    "''",
    "1.5",
    "-1",
    ".nan",
    "&a x",
    "*a",
    "!!set {a}",
    "{A: x}",
    "- x",
    "AB",
    "[true]",
    "3",
    "x: y",
    "!!binary aGk=",
    "|\n  a",
    ":",
    "- - x",
    "? [a]",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from("dvri"), st.sampled_from(JUNK)), max_size=4))
def test_mangled_banks_give_problems_never_exceptions(edits: list[tuple[int, str, str]]) -> None:
    lines = list(SAMPLE_LINES)
    for where, op, junk in edits:
        i = where % len(lines)
        if op == "d":
            del lines[i]
        elif op == "v" and ":" in lines[i]:
            lines[i] = lines[i].split(":")[0] + ": " + junk
        elif op == "r":
            lines.insert(i, lines[i])
        else:
            lines[i] = "  " + lines[i]
    bank, errors, _ = load_bank_text_report("\n".join(lines), "m.yaml")
    assert (bank is None) == bool(errors)
    assert all(e.file == "m.yaml" and (e.line is None or e.line >= 1) for e in errors)


def test_tag_names_round_trip_and_a_name_no_item_uses_is_a_warning() -> None:
    """`tag_names:` is kept by the YAML export (load(dump(bank)) == bank), and naming a tag no
    item carries is reported, not refused."""
    from bank.loader import load_bank_text
    from bank.yaml_io import dump_bank

    text = (
        "id: named\ntitle: 标签\nlanguage: zh-CN\nsource: s\n"
        "tag_names:\n  ml: 机器学习\n  cv: 计算机视觉\n"
        "questions:\n  - {id: q1, number: 1, type: judge, tags: [ml], stem: 对吗, answer: true}\n"
    )
    report = load_bank_text_report(text, "named.yaml")
    assert report.bank is not None and not report.errors
    assert [w.message for w in report.warnings] == ["tag_names names 'cv', which no question is tagged with"]
    assert report.bank.tag_names == (("ml", "机器学习"), ("cv", "计算机视觉"))
    dumped = dump_bank(report.bank)
    assert "tag_names:\n  ml: 机器学习\n  cv: 计算机视觉\n" in dumped
    assert load_bank_text(dumped) == report.bank
