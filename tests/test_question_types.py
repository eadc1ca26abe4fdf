"""The question-type registry (bot/domain/question_types): every type provides every part — checked
through each type's own examples, never by naming a type, so a new type is tested here by its
entry in TYPES — the words for a type come from one place, a type word no type accepts is never
taken for another type, and a fill item with a tolerance is graded by value."""

from __future__ import annotations

import csv
import dataclasses
import inspect
import io
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank.export_cmd import run_export
from bank.exporters import EXPORT_FORMATS, export_bank, table_rows
from bank.importer import import_source, table
from bank.importer.clean import to_simplified
from bank.loader import load_bank_text
from bank.schema import SCHEMA_PATH, bank_schema
from bank.yaml_io import dump_bank
from bot.application.commands.arguments import QTYPE_WORDS, Arg, ArgKind
from bot.application.presenting import correct_label, option_views
from bot.domain.grading import Verdict, grade
from bot.domain.kinds import AnswerPolicy, InputKind, OptionCount, OptionView, RevealPolicy, RoundKind
from bot.domain.question_types import TYPES, QuestionTypeRules, type_for_word, type_words
from bot.domain.question_types.base import Example
from bot.domain.questions import Bank, Question, QuestionType
from bot.locales.i18n import catalog, t
from bot.views.quiz import QuestionView, RevealView
from bot.views.quiz_text import render_question, render_reveal

_ABSTRACT = {
    name for name, value in vars(QuestionTypeRules).items() if getattr(value, "__isabstractmethod__", False)
}
# Every example of every type, by name (single-1, fill-2, ...): the tests below never name a type.
EXAMPLES = [
    pytest.param(qtype, example, id=f"{qtype}-{n}")
    for qtype, rules in TYPES.items()
    for n, example in enumerate(rules.examples, 1)
]


def _bank(items: list[tuple[QuestionType, Example]]) -> Bank:
    """A bank of these examples, through the loader (checked as any bank file is)."""
    questions = [
        {"id": f"q-{n}", "number": n, "type": str(qtype), **example.item}
        for n, (qtype, example) in enumerate(items, 1)
    ]
    data = {"id": "types", "title": "每种题型", "language": "zh-CN", "source": "examples",
            "questions": questions}  # fmt: skip
    return load_bank_text(json.dumps(data, ensure_ascii=False))


def _question(qtype: QuestionType, example: Example) -> Question:
    return _bank([(qtype, example)]).questions[0]


ALL = [(qtype, example) for qtype, rules in TYPES.items() for example in rules.examples]


def test_every_question_type_has_rules() -> None:
    assert set(TYPES) == set(QuestionType)
    assert all(rules.qtype is qtype for qtype, rules in TYPES.items())


@pytest.mark.parametrize(("qtype", "example"), EXAMPLES)
def test_each_type_module_provides_every_part(qtype: QuestionType, example: Example) -> None:
    rules = TYPES[qtype]
    question = _question(qtype, example)
    # class attributes: how it is answered, the words for it, its bank schema part and keys
    assert isinstance(rules.input_kind, InputKind)
    assert rules.words and all(isinstance(w, str) and w for w in rules.words)
    assert isinstance(rules.takes_options, bool)
    assert bool(question.options) == rules.takes_options
    assert isinstance(rules.schema, dict) and "answer" in rules.schema.get("properties", {})
    for schema in rules.own_keys.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    assert isinstance(rules.in_contests, bool) and isinstance(rules.one_press, bool)
    assert rules.reveal_key in catalog("en").messages
    # the abstract parts are implemented in the type's own module
    for name in _ABSTRACT:
        assert inspect.getmodule(getattr(type(rules), name)) is not inspect.getmodule(QuestionTypeRules)
    # bank: the answer as written round-trips through the checks and the loader's form
    written = rules.yaml_answer(question)
    written = list(written) if isinstance(written, tuple) else written
    letters = [letter for letter, _ in question.options] or None
    assert rules.answer_problems(written, letters) == []
    assert rules.answer_problems(None, letters)
    assert rules.bank_answer(written) == question.answer
    assert load_bank_text(dump_bank(_bank([(qtype, example)]))).questions[0] == question
    # answering: the right reply read and graded right (or left to the learner), the wrong not
    response = rules.read(question, example.right)
    assert isinstance(response, str)
    verdict = rules.verdict(question, response, example.right, partial_credit=False)
    assert verdict in (Verdict.CORRECT, Verdict.PENDING)
    assert grade(question, example.right).verdict is verdict
    assert grade(question, example.wrong).verdict is not Verdict.CORRECT
    # showing: buttons, labels, reference, tallies
    views = rules.option_views(question, "en")
    assert all(isinstance(v, OptionView) for v in views)
    # buttons, or options shown
    assert bool(views) == (TYPES[question.type].is_choice or bool(question.options))
    assert set(rules.correct_tokens(question)) <= {v.token for v in views}
    assert rules.response_label(question, response, "zh-CN")
    assert rules.correct_label(question, "en")
    assert isinstance(rules.reference(question, "en"), str)
    tallies = rules.tally(question, [(response, str(verdict))], "en")
    assert tallies and all(isinstance(c, OptionCount) for c in tallies)


def _views(question: Question, language: str) -> tuple[QuestionView, RevealView]:
    rules, now = TYPES[question.type], datetime(2026, 1, 1, tzinfo=UTC)
    options = option_views(question, language)
    asked = QuestionView(1, 1, RoundKind.PRACTICE, question.type, rules.input_kind, question.number,
                         question.stem, options, question.points, now, now, RevealPolicy.PRACTICE,
                         AnswerPolicy.FIRST, language, "UTC")  # fmt: skip
    revealed = RevealView(1, 1, RoundKind.DAILY, question.type, question.number, question.stem, options,
                          rules.correct_tokens(question), correct_label(question, language), "", (), 0, (),
                          (), language)  # fmt: skip
    return asked, revealed


@pytest.mark.parametrize(("qtype", "example"), EXAMPLES)
@pytest.mark.parametrize("language", ["zh-CN", "en"])
def test_the_text_layout_asks_the_type_how_to_show_it(
    qtype: QuestionType, example: Example, language: str
) -> None:
    question = _question(qtype, example)
    rules = TYPES[qtype]
    asked, revealed = _views(question, language)
    shown, reveal = render_question(asked), render_reveal(revealed)
    for option in asked.options:
        line = f"{option.label}. {option.text}"
        assert (line in shown.splitlines()) is rules.lists_options
        assert (line in reveal.splitlines()) is rules.lists_options
    assert t(language, rules.reveal_key, answer=correct_label(question, language)) in reveal
    assert t(language, f"type.{qtype}") in shown


def test_contests_and_reaction_dailies_take_the_types_that_say_so() -> None:
    from bot.application import contests, daily

    assert set(contests.CHOICE_TYPES) == {q for q, rules in TYPES.items() if rules.in_contests}
    assert set(daily.REACTION_TYPES) == {q for q, rules in TYPES.items() if rules.one_press}
    # One press answers only a type answered by pressing one of its buttons.
    for qtype in daily.REACTION_TYPES:
        assert TYPES[qtype].is_choice and TYPES[qtype].input_kind is not InputKind.CHOOSE_MANY


def _in_gift(item: tuple[QuestionType, Example]) -> bool:
    question = _question(*item)
    return TYPES[question.type].gift_body(question, str) is not None


@pytest.mark.parametrize("fmt", ["csv", "gift", "xlsx"])
def test_every_type_exports_and_imports_back_as_itself(fmt: str) -> None:
    bank = _bank([item for item in ALL if fmt != "gift" or _in_gift(item)])  # GIFT: the types it holds
    back = import_source(export_bank(bank, fmt), f"types.{EXPORT_FORMATS[fmt][1:]}", bank_id="types")
    assert not back.errors and not back.warnings, [w.message for w in back.warnings]
    assert back.bank is not None
    got = {q.number: q for q in back.bank.questions}
    for q in bank.questions:
        back_q = got[q.number]
        assert (back_q.type, back_q.answer, back_q.options, back_q.tolerance) == (
            q.type, q.answer, q.options, q.tolerance
        )


def _csv_row(word: str, question: Question) -> bytes:
    buffer = io.StringIO()
    rows = table_rows(Bank("t", "t", "zh-CN", "", (question,)))
    rows[1][rows[0].index("题型")] = word  # a Chinese bank's header
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


@pytest.mark.parametrize(("qtype", "example"), EXAMPLES)
def test_a_type_word_in_the_source_settles_the_type(qtype: QuestionType, example: Example) -> None:
    question = _question(qtype, example)
    for word in (str(qtype), *TYPES[qtype].words):
        back = import_source(_csv_row(word, question), "t.csv", bank_id="t")
        assert back.bank is not None and not back.warnings, (word, [w.message for w in back.warnings])
        (got,) = back.bank.questions
        assert (got.type, got.answer) == (qtype, question.answer), word


# Words for types the registry may not have (ordering, matching...) and words no type has: those
# that name no type in TYPES.
NOT_TYPES = [
    word
    for word in ("排序题", "排序", "排序題", "ordering", "order", "连线题", "匹配题", "matching", "多选排序",
                 "选择")
    if type_for_word(word) is None
]


@pytest.mark.parametrize("word", NOT_TYPES)
@pytest.mark.parametrize(("qtype", "example"), [(q, r.examples[0]) for q, r in TYPES.items()])
def test_a_type_word_no_type_accepts_warns_and_the_item_is_not_imported(
    word: str, qtype: QuestionType, example: Example
) -> None:
    # A row typed 排序题 answered BADC was taken for a multi answered [A, B, C, D]: its order lost.
    back = import_source(_csv_row(word, _question(qtype, example)), "t.csv", bank_id="t")
    assert back.bank is None or not back.bank.questions
    (warning,) = [w for w in back.warnings if w.kind == "type"]
    # (the importer reads traditional characters as simplified)
    assert warning.key == "import.answers.unknown_type" and repr(to_simplified(word)) in warning.message
    for language in ("zh-CN", "zh-TW"):  # the types it could be, named in the reader's language
        text = warning.text(language)
        assert all(t(language, f"import.type.{q}") in text for q in TYPES)
        assert not re.search(r"[A-Za-z]{2,}", text.replace(repr(to_simplified(word)), "")), text


_WORDS = st.text(st.sampled_from("排序连线匹配题型组合ABCDxyz"), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(_WORDS.filter(lambda w: type_for_word(w) is None), st.sampled_from(ALL))
def test_no_unknown_type_word_is_taken_for_a_type(word: str, item: tuple[QuestionType, Example]) -> None:
    back = import_source(_csv_row(word, _question(*item)), "t.csv", bank_id="t")
    assert back.bank is None or not back.bank.questions
    assert any(w.key == "import.answers.unknown_type" for w in back.warnings)


def test_the_bank_schema_names_every_type_and_its_own_keys() -> None:
    schema = bank_schema()
    question = schema["$defs"]["question"]
    ids = [str(q) for q in TYPES]
    assert question["properties"]["type"]["enum"] == ids
    sections = schema["$defs"]["paper"]["properties"]["sections"]["items"]
    assert sections["properties"]["type"]["enum"] == ids
    for rules in TYPES.values():
        for key in rules.own_keys:
            assert key in question["properties"]
    # bank/schema.json is what every type shares: it names no type, so a new one leaves it be
    shared = SCHEMA_PATH.read_text(encoding="utf-8")
    for qtype, rules in TYPES.items():
        assert f'"{qtype}"' not in shared
        assert not any(f'"{key}"' in shared for key in rules.own_keys)


@pytest.mark.parametrize(("qtype", "example"), EXAMPLES)
def test_a_paper_section_of_each_type_is_valid(qtype: QuestionType, example: Example) -> None:
    bank = dump_bank(_bank([(qtype, example)]))
    section = f"    - {{type: {qtype}, count: 1, points: 2}}\n"
    paper = f"paper:\n  sections:\n{section}  minutes: 10\n  pass_mark: 1\n"
    loaded = load_bank_text(bank + paper)
    assert loaded.paper is not None and loaded.paper.sections[0].type is qtype


def test_importer_arguments_and_grading_share_one_list_of_type_words() -> None:
    # The table importer, the paper reader and the `type` argument all read TYPES' words.
    assert table.TYPE_WORDS == type_words()
    assert {q: w for q, w in QTYPE_WORDS.items()} == {q: r.words for q, r in TYPES.items()}
    arg = Arg("type", ArgKind.QTYPE)
    for qtype, rules in TYPES.items():
        for word in (str(qtype), *rules.words):
            assert type_for_word(word) is qtype
            assert arg.read(word) is qtype
            assert table.TYPE_WORDS[word.casefold()] is qtype
    from bank.importer import paper

    for section, pattern in paper._KINDS:
        if section is not None:
            assert set(pattern.split("|")) == {w for w in TYPES[section].words if not w.isascii()}
    # and one list of true/false words: grading and the importer read the same vocabulary
    from bank.importer.answers import parse_judge
    from bot.domain.reading.vocabulary import FALSE_WORDS, TRUE_WORDS

    trues = _bank(ALL).questions
    judges = [q for q in trues if TYPES[q.type].input_kind is InputKind.TRUE_FALSE]
    (judge,) = [q for q in judges if q.answer == ("true",)]
    for word in TRUE_WORDS:
        assert parse_judge(word, loose=True) is True
        assert grade(judge, word).verdict is Verdict.CORRECT
    for word in FALSE_WORDS:
        assert parse_judge(word, loose=True) is False
        assert grade(judge, word).verdict is Verdict.WRONG


def test_a_word_names_at_most_one_type() -> None:
    seen: dict[str, QuestionType] = {}
    for qtype, rules in TYPES.items():
        for word in (str(qtype), *rules.words):
            assert seen.setdefault(word.casefold(), qtype) is qtype, word


def _numeric(answer: str, tolerance: float | None) -> Question:
    return Question(
        id="n", number=1, type=QuestionType.FILL, stem="π ≈ ____", answer=(answer,), tolerance=tolerance
    )


@pytest.mark.parametrize(
    ("answer", "tolerance", "given", "verdict"),
    [
        ("3.14", 0.01, "3.14", Verdict.CORRECT),
        ("3.14", 0.01, "3.15", Verdict.CORRECT),  # at the bound: inclusive
        ("3.14", 0.01, "3.13", Verdict.CORRECT),
        ("3.14", 0.01, "3.1416", Verdict.CORRECT),
        ("3.14", 0.01, "3.16", Verdict.WRONG),
        ("3.14", 0.01, "3.12", Verdict.WRONG),
        ("1.5", 0.5, "1", Verdict.CORRECT),
        ("1.5", 0.5, "2", Verdict.CORRECT),
        ("1.5", 0.5, "2.01", Verdict.WRONG),
        ("1.5", 0.5, "-1.5", Verdict.WRONG),
        ("100", 5, "一百零五", Verdict.CORRECT),  # Chinese numerals are numbers too
        ("100", 5, "1e2", Verdict.CORRECT),
        ("3.14", 0.01, "pi", Verdict.WRONG),  # not a number: compared as text
        ("3.14", 0, "3.14", Verdict.CORRECT),
        ("3.14", 0, "3.15", Verdict.WRONG),
        ("3.14", None, "3.15", Verdict.WRONG),  # no tolerance: the number itself
        ("4.8GB", 0.2, "5GB", Verdict.CORRECT),
        ("4.8GB", 0.2, "5", Verdict.CORRECT),  # the unit may be left out
        ("4.8GB", 0.2, "5MB", Verdict.WRONG),  # never across units
    ],
)
def test_a_fill_answer_with_a_tolerance_is_graded_by_value(
    answer: str, tolerance: float | None, given: str, verdict: Verdict
) -> None:
    assert grade(_numeric(answer, tolerance), given).verdict is verdict


@pytest.mark.parametrize("qtype", list(TYPES), ids=str)
def test_every_answer_problem_of_a_type_reads_in_chinese(qtype: QuestionType) -> None:
    # A bank checked in a Chinese chat shows each type's answer problems in Chinese (the type's
    # check_texts), not the checker's English.
    from bank.check_text import check_text

    rules = TYPES[qtype]
    for letters in (["A", "B", "C"], None):
        bads: tuple[object, ...] = (None, 42, 4.5, [], {}, "", "  ", [1, 2], ["A", "A"], ["Z"], "Z", "ZZ")
        for bad in bads:
            for problem in rules.answer_problems(bad, letters):
                for language in ("zh-CN", "zh-TW"):
                    text = check_text(language, problem)  # (true/false: what a bank file writes)
                    assert not re.search(r"[a-z]{3,}", re.sub(r"\b(true|false)\b", "", text)), (problem, text)


@pytest.mark.parametrize(("qtype", "example"), EXAMPLES)
def test_a_gift_export_of_an_item_gift_cannot_hold_is_refused_naming_it(
    qtype: QuestionType, example: Example, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A type whose gift_body is None (GIFT has no form for it) stops a GIFT export, in the CLI's
    # language, rather than writing the item as another type. Here each type in turn says so.
    class NoGift(type(TYPES[qtype])):  # type: ignore[misc]
        def gift_body(self, question: Question, escape: Callable[[str], str]) -> str | None:
            return None

    path = tmp_path / "bank.yaml"
    other = next(item for item in ALL if item[0] is not qtype)
    path.write_text(dump_bank(_bank([other, (qtype, example)])), encoding="utf-8")
    monkeypatch.setitem(TYPES, qtype, NoGift())
    out, err = io.StringIO(), io.StringIO()
    assert run_export(str(path), "gift", out=out, err=err, language="zh-CN") == 1
    assert out.getvalue() == "" and "第 2 题" in err.getvalue() and "未写入" in err.getvalue()
    assert run_export(str(path), "csv", out=out, err=err, language="zh-CN") == 0  # CSV holds every type


@pytest.mark.parametrize(("qtype", "example"), EXAMPLES)
def test_a_mock_exams_shuffled_options_keep_every_type_right(qtype: QuestionType, example: Example) -> None:
    # The options shown in another order carry the answer with them: the bank's letters come
    # back (in their order, for a type whose answer is an order), and the answer as the shown
    # letters write it is graded right.
    from bot.domain import option_shuffle as shuffle

    question = _question(qtype, example)
    order = "".join(reversed(question.letters))
    seen = shuffle.shown(question, order)
    back = {shown_: bank for bank, shown_ in shuffle._mapping(question, order).items()} if order else {}
    in_bank = tuple(back.get(a, a) for a in seen.answer)
    if TYPES[qtype].ordered_answer:
        assert in_bank == question.answer
    assert sorted(in_bank) == sorted(question.answer)
    reply = TYPES[qtype].table_answer(seen) if question.options else example.right
    assert grade(seen, reply).verdict is not Verdict.WRONG
    # what a mock keeps (the bank's letters) is graded right against the bank's item at hand-in
    kept = shuffle.to_bank(question, order, TYPES[qtype].read(seen, reply))
    assert grade(question, kept).verdict is not Verdict.WRONG
    assert shuffle.to_shown(question, order, kept) == TYPES[qtype].read(seen, reply)


@pytest.mark.parametrize("language", ["zh-CN", "en"])
def test_a_reveal_nobody_answered_says_so_once(language: str) -> None:
    """"无人作答。" then "无人答对。" said the same thing twice; once someone answered, the second line
    is the news."""
    question = _question(*ALL[0])
    _, nobody = _views(question, language)
    said = render_reveal(nobody)
    assert t(language, "reveal.no_answers") in said and t(language, "reveal.nobody_right") not in said
    wrong = dataclasses.replace(nobody, counts=(OptionCount("A", "A", 1, False),), total_answers=1)
    assert t(language, "reveal.nobody_right") in render_reveal(wrong)
