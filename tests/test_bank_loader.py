"""Tests for the bank loader/validator (bank/loader.py), the YAML helpers and dump_bank
(bank/yaml_io.py) and the JSON Schema (bank/schema.json)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bank.compiled import load_banks
from bank.loader import (
    SCHEMA_PATH,
    BankError,
    BankProblem,
    check_data,
    load_bank,
    load_bank_report,
    load_bank_text,
    load_bank_text_report,
)
from bank.schema import bank_schema
from bank.yaml_io import bank_to_dict, dump_bank, load_yaml, parse_located
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Erratum, Paper, PaperSection, Question, QuestionType

BANKS = Path(__file__).parent / "banks"
SAMPLE = BANKS / "sample.yaml"
SHIPPED = Path(__file__).parent.parent / "bank" / "ai_trainer_2025.yaml"

HEADER = "id: t\ntitle: T\nlanguage: en\nsource: s\nquestions:\n"  # questions start on line 6


def bank_text(*items: str) -> str:
    """A bank whose questions are `items`, each a block of `key: value` lines (line 6 on)."""
    lines = []
    for item in items:
        first, *rest = textwrap.dedent(item).strip().splitlines()
        lines += [f"  - {first}", *(f"    {line}" for line in rest)]
    return HEADER + "\n".join(lines) + "\n"


def errors_of(text: str) -> list[BankProblem]:
    return load_bank_text_report(text, "b.yaml").errors


def only_error(text: str) -> BankProblem:
    errors = errors_of(text)
    assert len(errors) == 1, "\n".join(map(str, errors))
    return errors[0]


JUDGE = "id: j1\nnumber: 1\ntype: judge\nstem: S\nanswer: true"
AB = "options: {A: a, B: b}"


def qtext(kind: str, rest: str) -> str:
    """An item `q` of type `kind` with `rest` from its line 10 on (its stem is on line 9)."""
    return f"id: q\nnumber: 1\ntype: {kind}\nstem: S\n{rest}"


# ------------------------------------------------------------------ the sample and round trips


def test_sample_bank_loads_into_domain_types() -> None:
    bank = load_bank(SAMPLE)
    assert (bank.id, bank.language, len(bank.questions)) == ("sample", "zh-CN", 5)
    single, multi, judge, fill, short = bank.questions
    assert single.type is QuestionType.SINGLE and single.answer == ("C",)
    assert single.options[2] == ("C", "自注意力掩码") and single.letters == ("A", "B", "C", "D")
    assert multi.answer == ("A", "B", "D") and multi.points == 2.0
    assert judge.answer == ("false",)
    assert fill.answer == ("交叉熵", "交叉熵损失", "cross-entropy")
    assert short.key_points == ("去重", "缺失值", "异常值", "格式统一")
    assert short.errata == (
        Erratum(
            "stem", "简述数据清洗的主要", "简述数据清洗的主要步骤。", "the item was cut off in the source"
        ),
    )
    assert short.completed_by_editor and not single.completed_by_editor
    assert load_bank_report(SAMPLE).warnings == []


def test_round_trip_of_the_sample() -> None:
    bank = load_bank(SAMPLE)
    assert load_bank_text(dump_bank(bank)) == bank


# fmt: off
AWKWARD = [
    "no", "Yes", "off", "y", "N", "tRuE", "null", "~", "0o17", "017", "1:30", "2025-01-01", ".inf",
    "1e3", "- dash", "#hash", "a: b", "'quoted'", '"dq"', "  lead", "trail  ", "multi\nline\n",
    "x\n\n", "tab\there", "\u2028ls", "nel\x85", "bom\ufeff", "ctl\x01", "[flow]", "{map}",
    "&anchor", "*alias", "!tag", "%pct", "@at", "`tick", "|", ">",
]
# fmt: on


def test_round_trip_of_awkward_text() -> None:
    questions = tuple(
        Question(
            f"q{i}",
            i,
            QuestionType.FILL,
            text,
            (text, "x"),
            explanation=text,
            errata=(Erratum("answer", text, text, "why"),),
        )
        for i, text in enumerate(AWKWARD, 1)
    )
    bank = Bank("awk", "Awkward", "en", "\n".join(AWKWARD), questions)
    dumped = dump_bank(bank)
    assert load_bank_text(dumped) == bank
    # Text that a YAML 1.1 tool would read as a bool/number/date is quoted for it too.
    plain = yaml.safe_load(dumped)
    assert [q["stem"] for q in plain["questions"]] == AWKWARD


def test_dump_layout_is_the_documented_one() -> None:
    dumped = dump_bank(load_bank(SAMPLE))
    lines = dumped.splitlines()
    assert lines[:5] == [
        "id: sample",
        "title: 示例题库 Sample bank",
        "language: zh-CN",
        "source: written for the studybot test suite",
        "questions:",
    ]
    first = lines[lines.index("  - id: s-001") : lines.index("  - id: s-002")]
    keys = [ln.split(":")[0].strip() for ln in first if ln.startswith("    ") and ":" in ln]
    assert keys[:7] == ["number", "type", "points", "tags", "stem", "options", "A"]
    assert "    tags: [transformer]" in first and "    answer: C" in first
    assert "    stem: 在Transformer架构中，用于防止未来信息泄露的核心机制是" in first
    assert "    answer: [A, B, D]" in lines and "    answer: false" in lines
    assert "" in first  # questions are separated by a blank line
    assert "{" not in dumped  # block style except tags/multi answers


PRINTABLE = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
NON_BLANK = PRINTABLE.filter(str.strip)


# Every example of every type (bot/domain/question_types): the strategy below never names a type.
EXAMPLES = [(qtype, example) for qtype, rules in TYPES.items() for example in rules.examples]


@st.composite
def banks(draw: st.DrawFn) -> Bank:
    questions = []
    for n in range(1, draw(st.integers(1, 4)) + 1):
        kind, example = draw(st.sampled_from(EXAMPLES))
        rules = TYPES[kind]
        options: tuple[tuple[str, str], ...] = ()
        if rules.takes_options:  # the example's letters, any texts
            letters = list(example.item["options"])
            texts = draw(st.lists(NON_BLANK, min_size=len(letters), max_size=len(letters)))
            options = tuple(zip(letters, texts, strict=True))
        errata = tuple(
            Erratum(draw(NON_BLANK), draw(PRINTABLE), draw(PRINTABLE), draw(NON_BLANK))
            for _ in range(draw(st.integers(0, 1)))
        )
        questions.append(
            Question(
                id=f"q-{n}",
                number=n,
                type=kind,
                stem=draw(NON_BLANK),
                answer=rules.bank_answer(example.item["answer"]),
                points=draw(st.sampled_from([1.0, 2.0, 0.5, 2.25])),
                options=options,
                explanation=draw(PRINTABLE),
                tags=tuple(
                    draw(st.lists(st.from_regex(r"[a-z0-9-]{1,8}", fullmatch=True), max_size=3, unique=True))
                ),
                key_points=tuple(draw(st.lists(NON_BLANK, max_size=2))) if "key_points" in rules.own_keys
                else (),
                errata=errata,
                completed_by_editor=bool(errata) and draw(st.booleans()),
                tolerance=example.item.get("tolerance"),
            )
        )
    tags = dict.fromkeys(tag for q in questions for tag in q.tags)
    # a display name for some of the tags (each its own: `·n` keeps two from being one name)
    names = tuple((tag, f"{draw(PRINTABLE)}·{i}") for i, tag in enumerate(tags) if draw(st.booleans()))
    return Bank("gen", draw(NON_BLANK), "zh-CN", draw(PRINTABLE), tuple(questions),
                paper=draw(st.none() | papers()), tag_names=names)


@st.composite
def papers(draw: st.DrawFn) -> Paper:
    kinds = draw(st.lists(st.sampled_from(list(QuestionType)), min_size=1, max_size=4, unique=True))
    points = st.sampled_from([1.0, 2.0, 0.5, 2.25])
    sections = tuple(PaperSection(kind, draw(st.integers(1, 40)), draw(points)) for kind in kinds)
    minutes = draw(st.sampled_from([90.0, 0.05, 1440.0, 7.5]))
    return Paper(sections, minutes, draw(st.sampled_from([60.0, 0.0, 12.5])))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks())
def test_round_trip_property(bank: Bank) -> None:
    """load(dump(bank)) is the bank, its declared paper and tag names included."""
    assert load_bank_text(dump_bank(bank)) == bank
    assert check_data(json.loads(json.dumps(bank_to_dict(bank)))).bank == bank


def test_the_shipped_bank_comes_back_whole_paper_and_tag_names_included() -> None:
    """`bank import` and an export's re-import write the bank with dump_bank: the paper a mock
    exam sits, and the tags' names, are in what it writes."""
    bank = load_bank(SHIPPED)
    assert bank.paper is not None and bank.paper.total == 100 and bank.tag_names
    dumped = dump_bank(bank)
    paper = "paper:\n  minutes: 90\n  pass_mark: 60\n  sections:\n    - {type: single, count: 30, points: 1}\n"  # noqa: E501
    assert paper in dumped
    assert load_bank_text(dumped) == bank
    assert check_data(bank_to_dict(bank)).bank == bank


# ------------------------------------------------------------------ YAML 1.2 scalars


def test_only_true_and_false_are_booleans() -> None:
    data = load_yaml("[yes, no, on, off, y, n, Y, N, True, FALSE, tRUE, 'true']")
    assert data == ["yes", "no", "on", "off", "y", "n", "Y", "N", True, False, True, "true"]


def test_numbers_dates_and_nulls_follow_yaml_1_2() -> None:
    data = load_yaml("[017, 0o17, 0x1F, 1_000, 1:30, 2025-01-01, 1.5, 1e3, .inf, ~, null, '']")
    assert data == [17, 15, 31, "1_000", "1:30", "2025-01-01", 1.5, 1000.0, float("inf"), None, None, ""]


def test_option_keys_stay_text() -> None:
    assert load_yaml("{Y: a, N: b, on: c, off: d, 1: e}") == {
        "Y": "a",
        "N": "b",
        "on": "c",
        "off": "d",
        "1": "e",
    }


def test_parse_located_records_lines() -> None:
    doc = parse_located("a: 1\nb:\n  - x\n  - y\n")
    assert doc.lines[("b", 1)] == 4 and doc.key_lines[("b",)] == 2
    assert doc.line_of(("b", 1, "missing")) == 4


def test_control_character_is_a_problem_with_its_line() -> None:
    error = only_error(bank_text(JUDGE.replace("stem: S", "stem: S\x01")))
    assert error.line == 9 and "U+0001 is not allowed" in error.message


def test_python_tags_are_refused_not_executed() -> None:
    error = only_error(bank_text(JUDGE.replace("stem: S", "stem: !!python/object:os.system x")))
    assert error.line == 9 and "unsupported tag" in error.message


# ------------------------------------------------------------------ rules, one by one


@pytest.mark.parametrize(
    ("item", "line", "message"),
    [
        (JUDGE.replace("true", "no"), 10, "judge answer must be true or false, got the string 'no'"),
        (JUDGE.replace("true", "1"), 10, "judge answer must be true or false, got the number 1"),
        (JUDGE + "\noptions: {A: a, B: b}", 11, "judge items take no options"),
        (JUDGE.replace("stem: S", "stem: ''"), 9, "stem is empty"),
        (JUDGE.replace("stem: S", "stem: true"), 9, "stem must be text, got the boolean true; quote"),
        (JUDGE.replace("judge", "choice"), 8, "unknown question type 'choice'"),
        (JUDGE.replace("number: 1", "number: 1.5"), 7, "number must be an integer, got the number"),
        (JUDGE + "\npoints: 0", 11, "points must be positive, got 0"),
        (JUDGE + "\npoints: .inf", 11, "points must be a finite number"),
        (JUDGE + "\ntags: [NLP]", 11, "tags#1 'NLP' does not match"),
        (JUDGE + "\ntags: [a, a]", 11, "tags has duplicate entries"),
        (JUDGE + "\nkey_points: [x]", 11, "key_points is for short items, not judge"),
        (JUDGE + "\ncompleted_by_editor: true", 11, "completed_by_editor is true but there are no"),
        (JUDGE + "\nerrata:\n  - {field: stem, was: a, now: b}", 12, "missing required key 'why'"),
        (JUDGE + "\nanwser: true", 11, "unknown key 'anwser' (did you mean 'answer'?)"),
        (
            qtext("single", AB + "\nanswer: true"),
            11,
            "single answer must be one option letter, got the boolean true; quote",
        ),
        (qtext("single", AB + "\nanswer: AB"), 11, "single answer must be one option letter A–H, got 'AB'"),
        (qtext("single", "options: {A: a}\nanswer: A"), 10, "options needs at least 2 entries, got 1"),
        (qtext("single", "options: {A: a, B: ''}\nanswer: A"), 10, "options.B is empty"),
        (
            qtext("single", "options: {A: a, B: 2}\nanswer: A"),
            10,
            'options.B must be text, got the number 2; quote it ("2")',
        ),
        (qtext("single", "options: {A: a, I: b}\nanswer: A"), 10, "option letter 'I' must be one of A–H"),
        (qtext("multi", AB + "\nanswer: [A, A, B]"), 11, "multi answer repeats A"),
        (
            qtext("multi", AB + "\nanswer: A"),
            11,
            "multi answer needs at least 2 different letters, got 1 (A)",
        ),
        (qtext("multi", AB + "\nanswer: ABC"), 11, "answer C not among the options A, B"),
        (qtext("multi", AB + "\nanswer: [A, x]"), 11, "multi answer must be option letters A–H, got 'x'"),
        (qtext("multi", "answer: [A, B]"), 6, "multi items need options"),
        (qtext("fill", "answer: []"), 10, "fill answer needs at least one accepted alternative"),
        (qtext("fill", "answer: [a, ' ']"), 10, "fill answer item 2 is empty"),
        (
            qtext("fill", "answer: false"),
            10,
            'fill answer must be text, got the boolean false; quote it ("false")',
        ),
        (qtext("short", "answer: [a, b]"), 10, "short answer must be one reference text, got a list"),
        (qtext("short", "answer:"), 10, "short answer is empty"),
        (qtext("short", "answer: x\nanswer: y"), 11, "duplicate key 'answer' (first on line 10)"),
    ],
)
def test_rule(item: str, line: int, message: str) -> None:
    error = only_error(bank_text(item))
    assert error.line == line, str(error)
    assert error.question_id == ("j1" if item.startswith("id: j1") else "q")
    assert message in error.message, str(error)


def test_duplicate_ids_and_numbers() -> None:
    errors = errors_of(bank_text(JUDGE, JUDGE, JUDGE.replace("j1", "j2")))
    assert [(e.line, e.question_id, e.message) for e in errors] == [
        (11, "j1", "duplicate question id 'j1' (first on line 6)"),
        (12, "j1", "duplicate question number 1 (first on line 7)"),
        (17, "j2", "duplicate question number 1 (first on line 7)"),
    ]


def test_bank_level_errors_have_no_question_id() -> None:
    errors = errors_of("id: t\ntitle: ''\nlanguage: en\nquestions: []\nextra: 1\n")
    assert [(e.line, e.question_id, e.message) for e in errors] == [
        (1, None, "missing required key 'source'"),
        (2, None, "title is empty"),
        (4, None, "the bank has no questions"),
        (5, None, "unknown key 'extra'"),
    ]
    assert only_error("- a\n- b\n").message.startswith("a bank file must be a mapping")


def test_item_without_id_is_named_by_position() -> None:
    error = only_error(bank_text(JUDGE, "number: 2\ntype: judge\nstem: S\nanswer: false"))
    assert (error.line, error.question_id) == (11, "#2")


def test_yaml_syntax_error_has_the_mark_line() -> None:
    error = only_error(bank_text(JUDGE, "id: j2\nnumber: 2\ntype: judge\nstem: [unclosed\nanswer: x"))
    assert error.line is not None and error.line >= 14 and error.question_id is None
    assert error.message.startswith("YAML syntax error")


# ------------------------------------------------------------------ accepted forms


@pytest.mark.parametrize("written", ["[A, B, D]", "ABD", "A,B,D", "'A, B, D'", "A、B、D", "[D, B, A]"])
def test_multi_answer_forms_are_normalised(written: str) -> None:
    item = qtext("multi", f"options: {{A: a, B: b, C: c, D: d}}\nanswer: {written}")
    assert load_bank_text(bank_text(item)).questions[0].answer == ("A", "B", "D")


def test_defaults_and_one_string_fill_answer() -> None:
    q = load_bank_text(bank_text(qtext("fill", "answer: no"))).questions[0]
    assert (q.answer, q.points, q.tags, q.explanation, q.errata) == (("no",), 1.0, (), "", ())


def test_completed_by_editor_false_needs_no_errata() -> None:
    assert load_bank_text(bank_text(JUDGE + "\ncompleted_by_editor: false")).questions[0]


# ------------------------------------------------------------------ warnings


@pytest.mark.parametrize(
    ("stem", "warned"),
    [
        ("机器?习", True),
        ("?∞", True),
        ("a\ufffdb", True),
        ("什么是过拟合？", False),
        ("What is it?", False),
        ("以下正确的是？（ ）", False),
        ("Why? Because.", False),
    ],
)
def test_lost_character_warning(stem: str, warned: bool) -> None:
    report = load_bank_text_report(bank_text(JUDGE.replace("stem: S", f"stem: '{stem}'")))
    assert report.bank is not None
    assert bool(report.warnings) is warned
    if warned:
        assert report.warnings[0].line == 9 and "may have lost characters" in report.warnings[0].message


def test_duplicate_option_text_warning() -> None:
    item = qtext("single", "options: {A: x, B: y, C: ' x'}\nanswer: A")
    report = load_bank_text_report(bank_text(item))
    assert report.bank is not None
    assert [w.message for w in report.warnings] == ["options A and C have the same text ' x'"]


# ------------------------------------------------------------------ API surface


def test_problem_str_and_bank_error() -> None:
    assert str(BankProblem("b.yaml", 3, "q1", "bad")) == "b.yaml:3: [q1] bad"
    assert str(BankProblem("b.yaml", None, None, "bad")) == "b.yaml: bad"
    with pytest.raises(BankError) as caught:
        load_bank_text(bank_text(JUDGE.replace("true", "no"), JUDGE), "x.yaml")
    assert len(caught.value.problems) == 3
    assert "x.yaml:10: [j1] judge answer must be true or false" in str(caught.value)


def test_unreadable_files_are_problems(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("id: é".encode("latin-1"))
    report = load_bank_report(bad)
    assert report.bank is None and report.errors[0].message.startswith("cannot read")
    with pytest.raises(BankError):
        load_bank(tmp_path / "missing.yaml")


def test_load_banks_from_directory_and_paths(tmp_path: Path) -> None:
    assert [b.id for b in load_banks(BANKS)] == ["sample"]
    assert [b.id for b in load_banks([SAMPLE])] == ["sample"]
    (tmp_path / "a.yaml").write_text(SAMPLE.read_text("utf-8"), "utf-8")
    (tmp_path / "b.yaml").write_text(SAMPLE.read_text("utf-8"), "utf-8")
    (tmp_path / "c.yaml").write_text(bank_text(JUDGE.replace("true", "no")), "utf-8")
    with pytest.raises(BankError) as caught:
        load_banks(tmp_path)
    messages = [str(p) for p in caught.value.problems]
    assert any("bank id 'sample' is also used by" in m for m in messages)
    assert any(m.startswith(f"{tmp_path / 'c.yaml'}:10: [j1]") for m in messages)


def test_schema_is_valid_and_accepts_the_sample() -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text("utf-8")))
    schema = bank_schema()  # the file with each question type's rules
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(load_yaml(SAMPLE.read_text("utf-8")), schema)


@pytest.mark.parametrize("path", sorted((BANKS / "broken").glob("*.yaml")), ids=lambda p: p.stem)
def test_broken_fixtures_fail_to_load(path: Path) -> None:
    with pytest.raises(BankError):
        load_bank(path)


PAPER = (
    "paper:\n  minutes: {minutes}\n  pass_mark: 1\n  sections:\n    - {{type: single, count: 1, points: 1}}\n"
)


@pytest.mark.parametrize("minutes", ["90", "0.05", "1440"])
def test_a_papers_time_is_any_positive_number_of_minutes_up_to_a_day(minutes: str) -> None:
    bank = load_bank_text(SAMPLE.read_text(encoding="utf-8") + PAPER.format(minutes=minutes))
    assert bank.paper is not None and bank.paper.minutes == float(minutes)  # 0.05: three seconds


@pytest.mark.parametrize("minutes", ["0", "-1", "1441", "soon"])
def test_a_papers_time_of_none_or_more_than_a_day_is_refused(minutes: str) -> None:
    with pytest.raises(BankError) as caught:
        load_bank_text(SAMPLE.read_text(encoding="utf-8") + PAPER.format(minutes=minutes))
    assert "minutes" in str(caught.value)
