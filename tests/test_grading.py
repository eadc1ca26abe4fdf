"""Table tests for bot.domain.grading: parsing, canonical forms and verdicts for every question type."""

from __future__ import annotations

import dataclasses

import pytest

from bot.domain.grading import (
    Grade,
    InvalidResponse,
    Verdict,
    answers_match,
    canonical_response,
    grade,
    normalize_text,
    parse_number,
    self_grade,
)
from bot.domain.questions import Question, QuestionType


def _question(qtype: QuestionType, answer: tuple[str, ...], letters: str = "") -> Question:
    return Question(
        id=f"t-{qtype}",
        number=1,
        type=qtype,
        stem="题干",
        answer=answer,
        options=tuple((letter, f"选项 {letter}") for letter in letters),
    )


def single(answer: str = "B", letters: str = "ABCD") -> Question:
    return _question(QuestionType.SINGLE, (answer,), letters)


def multi(answer: str = "ABD", letters: str = "ABCDE") -> Question:
    return _question(QuestionType.MULTI, tuple(answer), letters)


def judge(answer: bool) -> Question:
    return _question(QuestionType.JUDGE, ("true" if answer else "false",))


def fill(*alternatives: str) -> Question:
    return _question(QuestionType.FILL, alternatives)


def short(reference: str = "参考答案") -> Question:
    return _question(QuestionType.SHORT, (reference,))


# --- single ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "B", "b", " B ", "\tb\n", "Ｂ", "ｂ", "B.", "B。", "(B)", "（B）", "[B]", "【B】", "B、",
        "B,", "B!", "选B", "选 B", "我选B", "选择B", "答案B", "答案：B", "答案是 B", "答：b",
        "B选项", "选项B", "BB", "b b", "“B”",
        # lead-ins in English and Chinese: words around the letter, never letters themselves
        "I choose B", "i pick b", "I'd choose B", "I’d pick B", "I would pick B", "I go with B",
        "my answer is B",
        "the answer is b", "answer: B", "Answer B", "Option B", "option (B)", "choice B",
        "正确答案是B", "正确答案：B", "应选B", "我选择 B", "答案为B",
    ],
)  # fmt: skip
def test_single_accepts_noisy_forms_of_the_letter(raw: str) -> None:
    assert canonical_response(single(), raw) == "B"
    assert grade(single(), raw) == Grade(Verdict.CORRECT, 1.0, "B")


@pytest.mark.parametrize(
    ("answer", "raw", "verdict", "response"),
    [
        ("B", "B", Verdict.CORRECT, "B"),
        ("B", "A", Verdict.WRONG, "A"),
        ("B", "c", Verdict.WRONG, "C"),
        ("B", "Ｄ", Verdict.WRONG, "D"),
        ("A", "a.", Verdict.CORRECT, "A"),
        ("D", "（d）", Verdict.CORRECT, "D"),
    ],
)
def test_single_verdicts(answer: str, raw: str, verdict: Verdict, response: str) -> None:
    result = grade(single(answer), raw)
    assert result.verdict is verdict
    assert result.fraction == (1.0 if verdict is Verdict.CORRECT else 0.0)
    assert result.response == response


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("E", "unknown_letter"),
        ("ｅ", "unknown_letter"),
        ("Z", "unknown_letter"),
        ("AB", "multiple_letters"),
        ("A,B", "multiple_letters"),
        ("B C", "multiple_letters"),
        ("A、C", "multiple_letters"),
        ("1", "unreadable"),
        ("B1", "unreadable"),
        ("不知道", "unreadable"),
        ("é", "unreadable"),
        ("选", "no_letter"),
        ("。。", "no_letter"),
        ("()", "no_letter"),
        ("2", "unreadable"),
        ("B 吧", "unreadable"),
        ("I think B", "word"),  # only the listed lead-ins are skipped
        ("B is right", "word"),
        # words are never read as letters: a reaction to the question is not an answer
        ("bad", "word"),
        ("Bad", "word"),
        ("clear", "word"),
        ("Clear", "word"),
        ("CLEAR", "word"),  # L and R are past H: no bank has them, so it is a word
        ("ok", "word"),
        ("no", "word"),
        ("be", "word"),  # rising letters, but an English word
        ("bb", "word"),  # lower case must rise strictly: a repeat is not a list
        ("cab", "word"),
        ("B or C", "word"),
        ("I", "unknown_letter"),  # one letter is always a letter
    ],
)
def test_single_rejects(raw: str, reason: str) -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        grade(single(), raw)
    assert excinfo.value.reason == reason
    assert str(excinfo.value)  # a plain-English message for the learner


def test_single_with_three_options_rejects_d() -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        canonical_response(single("A", letters="ABC"), "D")
    assert excinfo.value.reason == "unknown_letter"
    assert "A, B, C" in str(excinfo.value)


def test_invalid_response_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not an option"):
        canonical_response(single(), "E")


# --- multi -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "ABD", "A,B,D", "A、B、D", "a b d", "A，B，D", "D,A,B", "DBA", "ABDD", "A B D A",
        "ＡＢＤ", "A;B;D", "A；B；D", "A/B/D", "A+B+D", "A和B和D", "选ABD", "答案：A、B、D。",
        "(A)(B)(D)", "  a,b ,d  ", "A|B|D",
        # capitals in any order; lower case when it rises (people list options in order) and
        # is no English word; mixed case as a phone capitalises the first letter
        "BAD", "DAB", "abd", "Abd", "aBD", "A and B and D", "A, B and D", "A & B & D",
        "I choose A, B, D", "选项A、B、D", "答案是ABD", "正确答案：ABD", "a,b,d", "a、b、d", "(a)(b)(d)",
    ],
)  # fmt: skip
def test_multi_input_forms_are_order_free(raw: str) -> None:
    assert canonical_response(multi("ABD"), raw) == "A,B,D"
    assert grade(multi("ABD"), raw) == Grade(Verdict.CORRECT, 1.0, "A,B,D")


@pytest.mark.parametrize(
    ("answer", "raw", "partial_credit", "verdict", "fraction", "response"),
    [
        ("ABD", "ABD", False, Verdict.CORRECT, 1.0, "A,B,D"),
        ("ABD", "ABD", True, Verdict.CORRECT, 1.0, "A,B,D"),
        ("ABD", "AB", False, Verdict.WRONG, 0.0, "A,B"),
        ("ABD", "AB", True, Verdict.PARTIAL, 0.5, "A,B"),
        ("ABD", "D", True, Verdict.PARTIAL, 0.5, "D"),
        ("ABD", "d", False, Verdict.WRONG, 0.0, "D"),
        ("ABD", "ABC", True, Verdict.WRONG, 0.0, "A,B,C"),
        ("ABD", "ABCD", True, Verdict.WRONG, 0.0, "A,B,C,D"),
        ("ABD", "ABCD", False, Verdict.WRONG, 0.0, "A,B,C,D"),
        ("ABD", "C", True, Verdict.WRONG, 0.0, "C"),
        ("ABD", "CE", True, Verdict.WRONG, 0.0, "C,E"),
        ("ABD", "A、C", True, Verdict.WRONG, 0.0, "A,C"),
        ("ABCDE", "ABCDE", False, Verdict.CORRECT, 1.0, "A,B,C,D,E"),
        ("ABCDE", "ABCD", True, Verdict.PARTIAL, 0.5, "A,B,C,D"),
        ("AC", "C,A", False, Verdict.CORRECT, 1.0, "A,C"),
        ("AC", "A", True, Verdict.PARTIAL, 0.5, "A"),
    ],
)
def test_multi_verdicts(
    answer: str,
    raw: str,
    partial_credit: bool,
    verdict: Verdict,
    fraction: float,
    response: str,
) -> None:
    assert grade(multi(answer), raw, partial_credit=partial_credit) == Grade(verdict, fraction, response)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        (" \n", "empty"),
        ("ABF", "unknown_letter"),
        ("F", "unknown_letter"),
        ("A,B,Z", "unknown_letter"),
        ("A2", "unreadable"),
        ("A和不知道", "unreadable"),
        ("、、", "no_letter"),
        # English words made of option letters: once graded A,B,D (correct!), now refused
        ("bad", "word"),
        ("Bad", "word"),
        ("dab", "word"),
        ("dba", "word"),  # lower case and not rising: was read as A,B,D; write DBA or d,b,a
        ("add", "word"),
        ("bed", "word"),
        ("abed", "word"),
        ("ad", "word"),  # rising, but an English word: refused, the learner writes AD
        ("ab", "word"),
        ("ace", "word"),
        ("beg", "word"),
        ("clear", "word"),
        ("fade", "word"),
        ("Abdd", "word"),
        ("ABDX", "word"),
    ],
)
def test_multi_rejects(raw: str, reason: str) -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        grade(multi("ABD"), raw, partial_credit=True)
    assert excinfo.value.reason == reason


def test_partial_credit_does_not_apply_to_single() -> None:
    assert grade(single("B"), "A", partial_credit=True).verdict is Verdict.WRONG


# --- judge -------------------------------------------------------------------------------------

TRUE_FORMS = [
    "对", "正确", "√", "✓", "✔", "✅", "✔️", "T", "t", "true", "True", "TRUE", "yes", "Yes",
    "Y", "y", "Ｔ", "ｔｒｕｅ", "ＹＥＳ", " 对 ", "对。", "正确！", "「对」", "是", "对的",
    "正确的", "是的", "R", "right", "Right", "correct", "☑", "（√）",
]  # fmt: skip
FALSE_FORMS = [
    "错", "错误", "×", "✗", "✘", "❌", "❎", "F", "f", "false", "False", "FALSE", "no", "NO",
    "N", "n", "Ｆ", "ｆａｌｓｅ", "ｎｏ", " 错 ", "错。", "错误!", "x", "X", "不对", "否",
    "错误的", "错的", "不正确", "不是", "✕", "W", "wrong", "incorrect", "（×）",
]  # fmt: skip


@pytest.mark.parametrize("raw", TRUE_FORMS)
def test_judge_true_forms(raw: str) -> None:
    assert canonical_response(judge(True), raw) == "true"
    assert grade(judge(True), raw) == Grade(Verdict.CORRECT, 1.0, "true")
    assert grade(judge(False), raw) == Grade(Verdict.WRONG, 0.0, "true")


@pytest.mark.parametrize("raw", FALSE_FORMS)
def test_judge_false_forms(raw: str) -> None:
    assert canonical_response(judge(False), raw) == "false"
    assert grade(judge(False), raw) == Grade(Verdict.CORRECT, 1.0, "false")
    assert grade(judge(True), raw) == Grade(Verdict.WRONG, 0.0, "false")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("  ", "empty"),
        ("A", "not_judge"),
        ("maybe", "not_judge"),
        ("对错", "not_judge"),
        ("不知道", "not_judge"),
        ("1", "not_judge"),
        ("tru", "not_judge"),
        ("。", "not_judge"),
    ],
)
def test_judge_rejects(raw: str, reason: str) -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        grade(judge(True), raw)
    assert excinfo.value.reason == reason


# --- fill: normaliser --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("ReLU", "relu"),
        ("  Re LU \t", "relu"),
        ("ＲｅＬＵ", "relu"),
        ("梯度 下降", "梯度下降"),
        ("梯度下降。", "梯度下降"),
        ("梯度下降.", "梯度下降"),
        ("梯度下降！？", "梯度下降"),
        ("过拟合；", "过拟合"),
        ("过拟合，", "过拟合"),
        ("f(x)", "f(x)"),
        ("f（x）", "f(x)"),
        ("a，b", "a,b"),
        ("a、b", "a,b"),
        ("a：b", "a:b"),
        ("a；b", "a;b"),
        ("“数据”", '"数据"'),
        ("‘数据’", "'数据'"),
        ("《数据安全法》", "<数据安全法>"),
        ("【数据】", "[数据]"),
        ("x²", "x^2"),
        ("10⁻⁴", "10^-4"),
        ("−1", "-1"),
        ("Straße", "strasse"),
        ("a\u200bb", "ab"),
        ("3.125％", "3.125%"),
        ("e.g.", "e.g"),
        ("。", ""),
        ("", ""),
    ],
)
def test_normalize_text(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected


# --- fill: numbers -----------------------------------------------------------------------------

FIVE_E_MINUS_4 = [
    "5e-4", "5E-04", "0.0005", "5×10^-4", "5*10^-4", "5×10⁻⁴", "5x10^-4", "5·10^-4", "5X10^-4",
    "5 × 10^-4", "5×10^(-4)", "5×10^{-4}", "5*10**-4", "5e−4", "５ｅ－４", "+5e-4", "0.00050",
    ".0005", "5⋅10^-4", "5e-4。", "50e-5", "1/2000",
]  # fmt: skip


@pytest.mark.parametrize("raw", FIVE_E_MINUS_4)
def test_parse_number_spellings_of_five_e_minus_four(raw: str) -> None:
    assert parse_number(raw) == pytest.approx(5e-4, rel=1e-12)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("0", 0.0),
        ("-0", 0.0),
        ("42", 42.0),
        ("+42", 42.0),
        ("−3.5", -3.5),
        ("－3.5", -3.5),
        ("3.125%", 3.125),
        ("3.125％", 3.125),
        ("1,000", 1000.0),
        ("12,345.5", 12345.5),
        ("1,000,000", 1e6),
        ("１２３", 123.0),
        ("1/2", 0.5),
        ("-3/4", -0.75),
        ("10^3", 1000.0),
        ("10⁶", 1e6),
        ("2×10³", 2000.0),
        ("1e+3", 1000.0),
        ("7.", 7.0),
        (" 7 ", 7.0),
    ],
)
def test_parse_number_values(raw: str, value: float) -> None:
    assert parse_number(raw) == value


@pytest.mark.parametrize(
    "raw",
    [
        "", "abc", "1e-3x", "lr=1e-3", "1,5", "0,001", "1,0000", "12,34", "1/0", "inf", "nan",
        "1e999", "10^999", "e5", "5e", "1.2.3", "--5", "5-", "五", "3 apples", "1/", "x10^3",
    ],
)  # fmt: skip
def test_parse_number_rejects(raw: str) -> None:
    assert parse_number(raw) is None


# --- fill: matching ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "given"),
    [(a, b) for a in ("5e-4", "0.0005") for b in FIVE_E_MINUS_4]
    + [
        ("3.125", "3.125%"),
        ("3.125%", "3.125"),
        ("3.125%", "3.125％"),
        ("1000", "1,000"),
        ("1000", "1e3"),
        ("0.5", "1/2"),
        ("0", "-0"),
        ("0", "0.0"),
        ("0.1", "0.1000000000001"),
        ("ReLU", "relu"),
        ("ReLU", " R e L U 。"),
        ("梯度下降", "梯度下降。"),
        ("梯度下降", "梯度 下降"),
        ("f(x)=max(0,x)", "f（x）＝max（0，x）"),
        ("a,b,c", "a、b、c"),
        ("x^2", "x²"),
        ("“监督学习”", '"监督学习"'),
        ("lr=1e-3", "LR = 1e-3"),
        # a % value and its fraction are one value (was refused: 3.125% vs 0.03125)
        ("0.03125", "3.125%"),
        ("3.125%", "0.03125"),
    ],
)
def test_answers_match(expected: str, given: str) -> None:
    assert answers_match(expected, given)


@pytest.mark.parametrize(
    ("expected", "given"),
    [
        ("1e-3", "lr=1e-3"),
        ("lr=1e-3", "lr=0.001"),  # numbers inside text are not compared by value
        ("1.5", "1,5"),
        ("0.001", "0,001"),
        ("0", "1e-300"),
        ("0.1", "0.10001"),
        ("5e-4", "5e-3"),
        ("5e-4", "-5e-4"),
        ("ReLU", "Sigmoid"),
        ("梯度下降", "随机梯度下降"),
        ("f(x)", "fx"),
    ],
)
def test_answers_do_not_match(expected: str, given: str) -> None:
    assert not answers_match(expected, given)


@pytest.mark.parametrize(
    ("alternatives", "raw", "verdict"),
    [
        (("ReLU", "线性整流函数"), "relu", Verdict.CORRECT),
        (("ReLU", "线性整流函数"), "线性整流函数。", Verdict.CORRECT),
        (("ReLU", "线性整流函数"), "tanh", Verdict.WRONG),
        (("5e-4",), "5×10⁻⁴", Verdict.CORRECT),
        (("5e-4",), "0.005", Verdict.WRONG),
        (("3.125",), "3.125%", Verdict.CORRECT),
        (("0.03125",), "3.125%", Verdict.CORRECT),  # was WRONG: 3.125% is 0.03125
        (("0.03125",), "0.3125%", Verdict.WRONG),
        (("数据清洗", "数据清理"), "数据 清理", Verdict.CORRECT),
        ((), "anything", Verdict.WRONG),
    ],
)
def test_fill_verdicts(alternatives: tuple[str, ...], raw: str, verdict: Verdict) -> None:
    result = grade(fill(*alternatives), raw)
    assert result.verdict is verdict
    assert result.fraction == (1.0 if verdict is Verdict.CORRECT else 0.0)
    assert result.response == raw.strip()


# --- fill: quantities (bot.domain.reading.quantities), decided by what the key means -----------


@pytest.mark.parametrize(
    ("key", "given"),
    [
        # Chinese numerals are numbers: 二种 where 两种 is accepted
        ("两种", "二种"), ("两种", "2种"), ("2种", "二种"), ("两种", "两 种"), ("三层", "3层"),
        ("十五", "15"), ("二十", "20"), ("一百零五", "105"), ("两千", "2000"), ("三万五千", "35000"),
        ("2024", "二〇二四"), ("0", "零"), ("10", "十"),
        # a count's measure word may be left out (the stem's blank often carries it)
        ("两种", "2"), ("两种", "二"), ("3", "三层"),
        # data sizes: G for GB, spacing and case, a known unit left out on either side
        ("4.8 GB", "4.8G"), ("4.8 GB", "4.8GB"), ("4.8 GB", "4.8 gb"), ("4.8 GB", "4.8"),
        ("4.8", "4.8 GB"), ("4.8G", "4.8 GB"), ("512MB", "512 M"), ("1,000 GB", "1000GB"),
        ("32位", "32 bit"), ("32位", "32"),
        # units spelled in Chinese or English
        ("5kg", "5千克"), ("5kg", "5公斤"), ("3秒", "3s"), ("3秒", "3 sec"), ("200ms", "200毫秒"),
        ("90℃", "90°C"), ("90℃", "90摄氏度"), ("2小时", "2h"), ("10 epochs", "10轮"), ("10 epochs", "10"),
        ("1.5倍", "1.5"), ("2019年", "2019"), ("3个月", "三个月"),
        # 万/亿 multiply
        ("100万", "1000000"), ("100万", "一百万"), ("1.5亿", "150000000"), ("100万元", "1000000元"),
        # a percentage: the % left out, its fraction, or 百分之
        ("50%", "50"), ("50%", "0.5"), ("50%", "百分之五十"), ("50%", "50 %"), ("50%", "５０％"),
        ("0.5", "50%"), ("50", "50%"), ("百分之五十", "0.5"), ("12.5%", "0.125"),
        # text with a count inside: the numeral before a measure word is read
        ("第二种", "第2种"), ("两个阶段", "2个阶段"), ("三层感知机", "3层感知机"),
    ],
)  # fmt: skip
def test_quantities_match(key: str, given: str) -> None:
    assert answers_match(key, given)
    assert answers_match(given, key)


@pytest.mark.parametrize(
    ("key", "given"),
    [
        # another unit is another answer, even of the same kind (no conversion: 1000 or 1024?)
        ("4.8 GB", "4.8 MB"), ("4.8 GB", "4.8 TB"), ("4.8 GB", "4.8 GiB"), ("4.8 GB", "4800 MB"),
        ("4.8 GB", "5 GB"), ("4.8 GB", "4.9"), ("5kg", "5g"), ("5kg", "5000g"), ("3秒", "3ms"),
        ("3秒", "3分钟"), ("90度", "90℃"), ("3天", "3日"), ("3个月", "3月"), ("2小时", "2天"),
        # counts: another number or another measure word
        ("两种", "3种"), ("两种", "2个"), ("两种", "两个"), ("两种", "三"), ("两种", "12种"),
        # percentages: the value must agree one way or the other
        ("50%", "5%"), ("50%", "0.05"), ("50%", "500"), ("50%", "5"), ("50%", "50‰"), ("50%", "50 GB"),
        ("0.5", "5%"), ("50", "0.5"),
        # text after a number that is no unit keeps the answer text: 3 is not 3D
        ("3D", "3"), ("3D打印", "3"), ("3D", "3d打印"), ("5e", "5"), ("1,5", "1.5"), ("3 apples", "3"),
        # Chinese words that hold numerals are not numbers
        ("百度", "100度"), ("百科", "100科"), ("千万", "10000000"), ("万一", "10001"), ("统一", "统1"),
        ("一一", "11"), ("十两", "12"), ("一心一意", "1心1意"),
        # spoken shorthands are not read: 一百一 is 110 and 三万五 is 35000 in speech
        ("101", "一百一"), ("110", "一百一"), ("30005", "三万五"), ("35000", "三万五"),
        # 三千克 reads as 3 千克 (3 kg): equal in mass to 3000克, but units are not converted
        ("3000克", "三千克"),
    ],
)  # fmt: skip
def test_quantities_do_not_match(key: str, given: str) -> None:
    assert not answers_match(key, given)
    assert not answers_match(given, key)


@pytest.mark.parametrize(
    ("alternatives", "raw", "verdict"),
    [
        (("两种",), "二种", Verdict.CORRECT),
        (("两种",), "2种", Verdict.CORRECT),
        (("两种",), "2个", Verdict.WRONG),
        (("4.8 GB",), "4.8G", Verdict.CORRECT),
        (("4.8 GB",), "4.8", Verdict.CORRECT),
        (("4.8 GB",), "4.8 MB", Verdict.WRONG),
        (("50%",), "0.5", Verdict.CORRECT),
        (("50%",), "50", Verdict.CORRECT),
        (("50%",), "0.05", Verdict.WRONG),
    ],
)
def test_fill_quantity_verdicts(alternatives: tuple[str, ...], raw: str, verdict: Verdict) -> None:
    assert grade(fill(*alternatives), raw).verdict is verdict


@pytest.mark.parametrize("raw", ["", "   ", "\n", "。", "，。！"])
def test_fill_rejects_empty(raw: str) -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        grade(fill("ReLU"), raw)
    assert excinfo.value.reason == "empty"


def test_fill_response_keeps_user_text_stripped() -> None:
    assert canonical_response(fill("ReLU"), "  Re LU。 \n") == "Re LU。"


# --- short -------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["监督学习需要标注数据", "  some text  ", "A", "对"])
def test_short_is_pending(raw: str) -> None:
    result = grade(short(), raw, partial_credit=True)
    assert result == Grade(Verdict.PENDING, 0.0, raw.strip())
    assert not result.is_final


@pytest.mark.parametrize("raw", ["", "  ", "\t\n"])
def test_short_rejects_empty(raw: str) -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        grade(short(), raw)
    assert excinfo.value.reason == "empty"


@pytest.mark.parametrize(
    ("level", "verdict", "fraction"),
    [
        ("full", Verdict.CORRECT, 1.0),
        ("FULL", Verdict.CORRECT, 1.0),
        (" full ", Verdict.CORRECT, 1.0),
        ("全对", Verdict.CORRECT, 1.0),
        ("correct", Verdict.CORRECT, 1.0),
        ("half", Verdict.PARTIAL, 0.5),
        ("部分", Verdict.PARTIAL, 0.5),
        ("partial", Verdict.PARTIAL, 0.5),
        ("zero", Verdict.WRONG, 0.0),
        ("不会", Verdict.WRONG, 0.0),
        ("wrong", Verdict.WRONG, 0.0),
    ],
)
def test_self_grade(level: str, verdict: Verdict, fraction: float) -> None:
    assert self_grade(level) == Grade(verdict, fraction, "")
    assert self_grade(level, response=" my answer ") == Grade(verdict, fraction, "my answer")
    assert self_grade(level).is_final


@pytest.mark.parametrize("level", ["", "pending", "maybe", "1", "对", "ful"])
def test_self_grade_rejects_unknown_level(level: str) -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        self_grade(level)
    assert excinfo.value.reason == "unknown_level"


# --- Grade / Verdict ---------------------------------------------------------------------------


def test_grade_is_frozen_and_verdict_is_a_str() -> None:
    result = grade(single(), "B")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.verdict = Verdict.WRONG  # type: ignore[misc]
    assert Verdict.PENDING == "pending"
    assert {v.value for v in Verdict} == {"correct", "partial", "wrong", "pending"}
