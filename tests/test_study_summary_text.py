"""What a learner reads at two ends: a review run with nothing more due (its last line offers
/quiz, not 下一题) and a mock report whose short answers await their self-grade (the section's
score is marked provisional), in zh-CN, zh-TW and en."""

from __future__ import annotations

import pytest

from bot.domain.questions import QuestionType
from bot.views.mock_exam_text import render_mock_report
from bot.views.study import MockReportView, PendingShort, RunSummaryView
from bot.views.study_text import render_run_summary

HOW_REVIEW = {
    "zh-CN": "发送 /quiz 开始新一轮练习；卡片到期后发送 /review 复习。",
    "zh-TW": "傳送 /quiz 開始新一輪練習；卡片到期後傳送 /review 複習。",
    "en": "Send /quiz to start another round; /review once a card is due.",
}
HOW_NEXT = {
    "zh-CN": "发送「下一题」或 /quiz 开始新一轮练习。",
    "zh-TW": "傳送「下一題」或 /quiz 開始新一輪練習。",
    "en": "Send next or /quiz to start another round.",
}


@pytest.mark.parametrize("language", ["zh-CN", "zh-TW", "en"])
def test_a_finished_review_offers_quiz_and_not_next(language):
    due = "🎉 现在没有到期的卡片。下一张卡片 2026-12-06 10:00 CST 到期。"
    done = RunSummaryView(language, "review", None, (), 1, 1, 0, 20, True, due)
    lines = render_run_summary(done).splitlines()
    assert lines[-2:] == [due, HOW_REVIEW[language]]
    assert HOW_NEXT[language] not in lines
    stopped = RunSummaryView(language, "review", None, (), 1, 1, 0, 20, False)  # cards may be left
    assert render_run_summary(stopped).splitlines()[-1] == HOW_NEXT[language]
    practice = RunSummaryView(language, "random", None, (), 1, 1, 0, 20, True)
    assert render_run_summary(practice).splitlines()[-1] == HOW_NEXT[language]


def test_a_replaced_runs_summary_has_no_last_line():
    view = RunSummaryView("zh-CN", "sequential", None, (), 2, 1, 1, 65, False)
    assert render_run_summary(view, how=False).splitlines() == [
        "📋 练习小结 · 顺序练习",
        "作答 2 题 · 答对 1 题（正确率 50%）",
        "新增错题 1 道",
        "用时 1 分 5 秒",
    ]


SECTIONS = {
    "zh-CN": "单选题：30 / 30 · 简答题：4 / 20（待自评）",
    "zh-TW": "單選題：30 / 30 · 簡答題：4 / 20（待自評）",
    "en": "Single choice: 30 / 30 · Short answer: 4 / 20 (awaiting self-grade)",
}


@pytest.mark.parametrize("language", ["zh-CN", "zh-TW", "en"])
def test_a_section_awaiting_a_self_grade_is_marked_provisional(language):
    sections = ((QuestionType.SINGLE, 30.0, 30.0), (QuestionType.SHORT, 4.0, 20.0))
    pending = (PendingShort(62, "stem", "answer", "reference", ()),)
    waiting = MockReportView(language, 34, 50, 30, None, sections, 600, (), pending)
    assert SECTIONS[language] in render_mock_report(waiting).splitlines()
    graded = MockReportView(language, 34, 50, 30, True, sections, 600, (), ())
    text = render_mock_report(graded)
    assert "待自评" not in text and "待自評" not in text and "awaiting self-grade" not in text
