"""Grading and the bank importer read true/false words and option letters with one vocabulary
and one reader (bot.domain.reading.vocabulary, bot.domain.reading.option_letters): a paper's
answer line and a learner's reply can't disagree."""

from __future__ import annotations

import pytest

from bank.answers import answer_problems, multi_letters
from bank.importer import import_paper
from bank.importer.answers import parse_judge, parse_letters
from bot.domain.grading import InvalidResponse, canonical_response
from bot.domain.questions import Question, QuestionType
from bot.domain.reading.vocabulary import FALSE_WORDS, STRICT_FALSE, STRICT_TRUE, TRUE_WORDS, read_judge

JUDGE = Question("j", 1, QuestionType.JUDGE, "题干", ("true",))
MULTI = Question("m", 2, QuestionType.MULTI, "题干", ("A", "B", "D"), 2.0,
                 tuple((letter, f"选项{letter}") for letter in "ABCDE"))  # fmt: skip
OPTIONS = ("A", "B", "C", "D", "E")


def test_the_two_lists_do_not_overlap() -> None:
    assert not TRUE_WORDS & FALSE_WORDS
    assert STRICT_TRUE <= TRUE_WORDS and STRICT_FALSE <= FALSE_WORDS


@pytest.mark.parametrize("word", sorted(TRUE_WORDS | FALSE_WORDS))
def test_grading_and_importer_agree_on_every_judge_word(word: str) -> None:
    meant = word in TRUE_WORDS
    assert canonical_response(JUDGE, word) == ("true" if meant else "false")
    assert parse_judge(word, loose=True) is meant
    assert parse_judge(word.upper(), loose=True) is meant
    assert parse_judge(f"（{word}）", loose=True) is meant  # the importer's answer lines bracket it
    strict = word in STRICT_TRUE | STRICT_FALSE
    assert parse_judge(word, loose=False) is (meant if strict else None)


@pytest.mark.parametrize("word", ["对错", "maybe", "不知道", "1", "tru", "A", "正确答案"])
def test_neither_reads_a_non_word(word: str) -> None:
    assert read_judge(word) is None
    assert parse_judge(word, loose=True) is None
    with pytest.raises(InvalidResponse):
        canonical_response(JUDGE, word)


LETTER_FORMS = [
    "ABD", "A,B,D", "A、B、D", "A B D", "A，B，D", "（ABD）", "DBA", "abd", "a,b,d", "A和B和D",
    "B", "b", "(B)", "B.", "E", "A、C", "ACD", "选B", "答案是B",
    # refused by both: words, digits, letters past the options
    "bad", "dba", "clear", "add", "ace", "B1", "2", "F", "ABF", "对", "正确", "",
]  # fmt: skip


@pytest.mark.parametrize("text", LETTER_FORMS)
def test_grading_and_importer_agree_on_option_letters(text: str) -> None:
    try:
        graded: tuple[str, ...] | None = tuple(canonical_response(MULTI, text).split(","))
    except InvalidResponse:
        graded = None
    assert parse_letters(text, OPTIONS) == graded


def test_a_paper_answer_that_is_a_word_is_not_read_as_letters() -> None:
    """`答案：bad` once became A, B, D; now it is taken as the text of the option it names."""
    result = import_paper(
        "1. 这道题怎么样（ ）\nA. good\nB. bad\nC. fine\nD. so-so\n答案：bad\n"
        "2. 以下正确的有（ ）\nA. 甲\nB. 乙\nC. 丙\nD. 丁\n答案：abd\n",
        bank_id="t",
    )
    assert [(q.type, q.answer) for q in result.bank.questions] == [
        (QuestionType.SINGLE, ("B",)),
        (QuestionType.MULTI, ("A", "B", "D")),
    ]


@pytest.mark.parametrize(
    ("answer", "letters"),
    [("ABD", ["A", "B", "D"]), ("A,B,D", ["A", "B", "D"]), ("A、B、D", ["A", "B", "D"]),
     (" A B D ", ["A", "B", "D"]), (["A", "B"], ["A", "B"]), ("A,B,Z", ["A", "B", "Z"]),
     ("abd", ["abd"]), ("选AB", ["选AB"]), ("bad", ["bad"])],
)  # fmt: skip
def test_bank_multi_answers_use_the_same_reader_held_to_capitals(answer, letters) -> None:
    assert multi_letters(answer) == letters


def test_bank_check_names_the_boolean_a_judge_word_means() -> None:
    (problem,) = answer_problems(QuestionType.JUDGE, "正确", None)
    assert problem.endswith("; write true")
    (problem,) = answer_problems(QuestionType.JUDGE, "×", None)
    assert problem.endswith("; write false")
    (problem,) = answer_problems(QuestionType.JUDGE, "maybe", None)
    assert "write" not in problem
