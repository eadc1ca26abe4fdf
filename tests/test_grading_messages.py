"""Why an answer was refused is told in the chat's language: grading errors carry a catalog key
and params (bot.domain.reading.invalid_response), never an English sentence inside a Chinese reply."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from bot.application.requests import SelfGrade, SubmitAnswer
from bot.domain.grading import InvalidResponse, grade, self_grade
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind, UserRef
from bot.domain.questions import Question, QuestionType
from bot.locales.i18n import Listed, keys
from bot.views.quiz_text import render_receipt

SINGLE = Question("s", 1, QuestionType.SINGLE, "题干", ("B",), 1.0, tuple((c, c) for c in "ABCD"))
MULTI = Question("m", 2, QuestionType.MULTI, "题干", ("A", "B", "D"), 2.0, tuple((c, c) for c in "ABCD"))
JUDGE = Question("j", 3, QuestionType.JUDGE, "题干", ("true",))
FILL = Question("f", 4, QuestionType.FILL, "题干", ("两种",))
SHORT = Question("h", 5, QuestionType.SHORT, "题干", ("参考",))

REFUSALS = [
    (SINGLE, "", "empty"), (SINGLE, "2", "unreadable"), (SINGLE, "ZZZ", "word"), (SINGLE, "bad", "word"),
    (SINGLE, "、", "no_letter"), (SINGLE, "E", "unknown_letter"), (SINGLE, "AB", "multiple_letters"),
    (MULTI, "clear", "word"), (MULTI, "ABF", "unknown_letter"), (JUDGE, "", "empty"),
    (JUDGE, "maybe", "not_judge"), (FILL, "。", "empty"), (SHORT, " ", "empty"),
]  # fmt: skip
# Words a Chinese message may show in Latin letters: answer forms and the learner's own text.
ZH_ALLOWED = re.compile(r"\b(?:T/F|full/half/zero|[A-H](?:,[A-H])*)\b")
# Answer words an English message names in Chinese on purpose (对/错 is what a Chinese bank uses).
EN_ALLOWED = re.compile("对|错|全对|部分|不会")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _refusal(question: Question, raw: str) -> InvalidResponse:
    with pytest.raises(InvalidResponse) as excinfo:
        grade(question, raw)
    return excinfo.value


def _without_params(text: str, exc: InvalidResponse) -> str:
    for value in exc.params.values():
        for part in value.items if isinstance(value, Listed) else (value,):
            text = text.replace(part, "")
    return text


@pytest.mark.parametrize(("question", "raw", "reason"), REFUSALS)
def test_each_refusal_is_told_in_chinese_and_in_english(question: Question, raw: str, reason: str) -> None:
    exc = _refusal(question, raw)
    assert exc.reason == reason and exc.key in keys()
    zh = _without_params(exc.render("zh-CN"), exc)
    assert CJK.search(zh)
    assert not re.search(r"[A-Za-z]{2,}", ZH_ALLOWED.sub("", zh)), zh
    en = _without_params(exc.render("en"), exc)
    assert not CJK.search(EN_ALLOWED.sub("", en)), en
    assert str(exc) == exc.render("en")  # logs read English


def test_unknown_self_grade_level_has_a_catalog_sentence() -> None:
    with pytest.raises(InvalidResponse) as excinfo:
        self_grade("maybe")
    assert "全对" in excinfo.value.render("zh-CN") and "maybe" in excinfo.value.render("zh-CN")


def test_a_pasted_essay_is_not_quoted_back_whole() -> None:
    exc = _refusal(SINGLE, "这道题我不会" * 1000)
    assert len(exc.render("zh-CN")) < 120


def test_direction_controls_are_not_quoted_back() -> None:
    exc = _refusal(SINGLE, "\u202e不知道\u2066")
    assert exc.params["text"] == "不知道"


CHAT = ChatRef(Platform.CONSOLE, "console", ChatKind.PRIVATE, title="console")
ALICE = UserRef(Platform.CONSOLE, "1", "Alice")


async def _open(quiz, language: str, question_id: str) -> int:
    await quiz.update_settings(CHAT, language=language)
    chat = await quiz.chat(CHAT)
    now = quiz.clock.now()
    question = quiz.banks["sample"].question(question_id)
    round_ = await quiz.open_round(chat, question, RoundKind.PRACTICE, now, now + timedelta(minutes=5))
    return round_.id


@pytest.mark.parametrize(
    ("language", "raw", "expected"),
    [
        ("zh-CN", "2", "无法识别的答案：无法把“2”读作选项字母，请回复 B 或 A,C 这样的字母。"),
        ("zh-CN", "bad", "无法识别的答案：“bad”像是一个词，不是选项字母；请回复 B 或 A,C 这样的字母。"),
        ("zh-CN", "E", "无法识别的答案：E 不是本题的选项（选项：A、B、C、D）。"),
        ("zh-TW", "E", "無法識別的答案：E 不是本題的選項（選項：A、B、C、D）。"),
        ("en", "E", "Couldn't read that answer: E is not an option of this question (options: A, B, C, D)."),
        ("en", "2", "Couldn't read that answer: "
                    "Can't read \"2\" as option letters; reply with letters like B or A,C."),
        ("en", "bad", "Couldn't read that answer: "
                      "\"bad\" looks like a word, not option letters; reply with letters like B or A,C."),
    ],
)  # fmt: skip
async def test_a_chat_sees_the_refusal_in_its_language(quiz, language: str, raw: str, expected: str) -> None:
    round_id = await _open(quiz, language, "s-1")
    receipt = await quiz.submit(SubmitAnswer(round_id, ALICE, raw))
    assert render_receipt(receipt) == expected
    assert await quiz.store.answer_count(round_id) == 0


async def test_a_bad_self_grade_is_told_in_the_chats_language(quiz) -> None:
    round_id = await _open(quiz, "zh-CN", "s-5")
    await quiz.submit(SubmitAnswer(round_id, ALICE, "因为注意力"))
    receipt = await quiz.self_grade(SelfGrade(round_id, ALICE, "maybe"))
    expected = "无法识别的答案：无法识别自评“maybe”；请用 全对、部分 或 不会（full/half/zero）。"
    assert render_receipt(receipt) == expected
