"""The question-type registry (bot/question_types): every type provides every part, the words
for a type come from one place, and a fill item with a tolerance is graded by value."""

from __future__ import annotations

import inspect

import jsonschema
import pytest

from bank.importer import table
from bank.schema import bank_schema
from bot.commands.arguments import QTYPE_WORDS, Arg, ArgKind
from bot.grading import Verdict, grade
from bot.kinds import InputKind
from bot.messages import OptionCount, OptionView
from bot.model import Question, QuestionType
from bot.question_types import TYPES, QuestionTypeRules, type_for_word, type_words

_ABSTRACT = {
    name for name, value in vars(QuestionTypeRules).items() if getattr(value, "__isabstractmethod__", False)
}


def _sample(qtype: QuestionType) -> Question:
    rules = TYPES[qtype]
    options = (("A", "甲"), ("B", "乙"), ("C", "丙")) if rules.takes_options else ()
    answers = {
        InputKind.CHOOSE_ONE: ("A",),
        InputKind.CHOOSE_MANY: ("A", "B"),
        InputKind.TRUE_FALSE: ("true",),
        InputKind.TYPED: ("42",),
        InputKind.SELF_GRADED: ("参考答案",),
    }
    return Question(
        id="q", number=1, type=qtype, stem="题干", answer=answers[rules.input_kind], options=options
    )


def test_every_question_type_has_rules() -> None:
    assert set(TYPES) == set(QuestionType)
    assert all(rules.qtype is qtype for qtype, rules in TYPES.items())


@pytest.mark.parametrize("qtype", list(QuestionType), ids=str)
def test_each_type_module_provides_every_part(qtype: QuestionType) -> None:
    rules = TYPES[qtype]
    question = _sample(qtype)
    # class attributes: how it is answered, the words for it, its bank schema part and keys
    assert isinstance(rules.input_kind, InputKind)
    assert rules.words and all(isinstance(w, str) and w for w in rules.words)
    assert isinstance(rules.takes_options, bool)
    assert isinstance(rules.schema, dict) and "answer" in rules.schema.get("properties", {})
    for schema in rules.own_keys.values():
        jsonschema.Draft202012Validator.check_schema(schema)
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
    # answering: a right answer read and graded
    right = question.answer[0] if rules.input_kind is not InputKind.CHOOSE_MANY else "AB"
    response = rules.read(question, right)
    assert isinstance(response, str)
    expected = Verdict.PENDING if rules.input_kind is InputKind.SELF_GRADED else Verdict.CORRECT
    assert rules.verdict(question, response, right, partial_credit=False) is expected
    # showing: buttons, labels, reference, tallies
    views = rules.option_views(question, "en")
    assert all(isinstance(v, OptionView) for v in views)
    assert bool(views) == (
        rules.input_kind in (InputKind.CHOOSE_ONE, InputKind.CHOOSE_MANY, InputKind.TRUE_FALSE)
    )
    assert set(rules.correct_tokens(question)) <= {v.token for v in views}
    assert rules.response_label(question, response, "zh-CN")
    assert rules.correct_label(question, "en")
    assert isinstance(rules.reference(question, "en"), str)
    tallies = rules.tally(question, [(response, str(expected))], "en")
    assert tallies and all(isinstance(c, OptionCount) for c in tallies)


def test_the_bank_schema_names_every_type_and_its_own_keys() -> None:
    question = bank_schema()["$defs"]["question"]
    assert question["properties"]["type"]["enum"] == [str(q) for q in QuestionType]
    for rules in TYPES.values():
        for key in rules.own_keys:
            assert key in question["properties"]


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
    from bot.vocabulary import FALSE_WORDS, TRUE_WORDS

    judge = _sample(QuestionType.JUDGE)
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
