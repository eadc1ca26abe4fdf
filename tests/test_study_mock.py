"""Mock exams on the shipped bank through the application layer and the real SQLite store:
the declared paper, answers kept across a restart with the clock by wall time, grading only at
hand-in, the reminder and the automatic hand-in, and each bad input answered clearly."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest

from bank.loader import load_bank
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain import option_shuffle as shuffle
from bot.domain.clock import ManualClock
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.paper import draw, paper_of
from bot.domain.questions import QuestionType
from bot.locales.i18n import bank_text, t
from bot.views.study import MockQuestionView, MockReportView
from studybot.bootstrap import PACKAGED_BANKS, bootstrap
from studybot.config import Config
from tests.fakes.ports import ManualScheduler, RecordingPort

SHIPPED = load_bank(PACKAGED_BANKS / "ai_trainer_2025.yaml")
ME = Caller(ChatRef(Platform.CONSOLE, "me", ChatKind.PRIVATE), UserRef(Platform.CONSOLE, "me", "Me"))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2025, 3, 1, 9, 0, tzinfo=UTC))


@pytest.fixture
async def make(tmp_path, clock):
    apps = []

    async def build(language: str = "en"):
        cfg = Config(
            data_dir=tmp_path, default_bank=SHIPPED.id, language=language, sqlite_synchronous="NORMAL"
        )
        app = await bootstrap(
            cfg,
            clock=clock,
            rng=random.Random(7),
            banks={SHIPPED.id: SHIPPED},
            scheduler=ManualScheduler(clock),
        )
        app.port = RecordingPort()
        app.add_port(app.port)
        await app.start()
        apps.append(app)
        return app

    yield build
    for app in apps:
        if app.store._db is not None:
            await app.close()


def key_answer(question, order: str = "") -> str:
    """The right answer as the person types it: in the letters the mock shows (options shuffled)."""
    question = shuffle.shown(question, order)
    if question.type is QuestionType.MULTI:
        return "".join(question.answer)
    return question.answer[0]


async def run(app, line: str, caller: Caller = ME) -> str:
    reply = await app.application.run_text(line, caller)
    return render_reply(reply)


def test_the_shipped_paper_is_the_real_exam():
    paper = paper_of(SHIPPED)
    assert [(str(s.type), s.count, s.points) for s in paper.sections] == [
        ("single", 30, 1.0),
        ("multi", 10, 2.0),
        ("judge", 10, 1.0),
        ("fill", 10, 2.0),
        ("short", 2, 10.0),
    ]
    assert paper.total == 100 and paper.minutes == 90 and paper.pass_mark == 60
    _, items = draw(SHIPPED, paper, random.Random(1))
    assert len(items) == 62 and len({i.question_id for i in items}) == 62


def test_a_section_larger_than_the_bank_takes_what_there_is_and_a_smaller_one_is_drawn():
    from dataclasses import replace

    from bot.domain.questions import Paper, PaperSection

    paper = Paper((PaperSection(QuestionType.SINGLE, 5, 1), PaperSection(QuestionType.SHORT, 9, 10)), 30, 20)
    sections, items = draw(replace(SHIPPED, paper=paper), paper, random.Random(3))
    assert [(s.count, s.points) for s in sections] == [(5, 1.0), (2, 10.0)]
    again = draw(replace(SHIPPED, paper=paper), paper, random.Random(4))[1]
    assert {i.question_id for i in items[:5]} != {i.question_id for i in again[:5]}  # drawn at random
    no_paper = paper_of(replace(SHIPPED, paper=None))
    assert sum(s.count for s in no_paper.sections) == 62


async def test_every_key_answer_and_full_self_grades_give_100(make):
    app = await make()
    start = await run(app, "/mock")
    assert "62 questions · sections: 5 · 100 pt · 90 min · pass at 60" in start
    assert "Item 1/62" in start and "1:30:00 left" in start
    mock = await app.mocks.store.open_mock(await app.quiz.user_id(ME.user))
    for number, item in enumerate(mock.items, 1):
        text = await run(app, f"/mock {number} {key_answer(SHIPPED.question(item.question_id), item.order)}")
        assert "kept" in text or "Answer sheet: 62/62" in text, text
    report = await run(app, "/mock submit")
    # The reference answers cover every key point: their provisional scores count until graded
    assert "Score: 100 / 100" in report and "2 short answers wait for your self-grade" in report
    review = await run(app, "/mock review 61")  # 61 or 62 of the bank: the items are drawn
    assert "By key points: about 10 / 10 points" in review and "Key points covered:\n✅ " in review
    assert "Key points missed" not in review and "/mock grade 61 full | half | zero" in review
    for number in (61, 62):
        report = await run(app, f"/mock grade {number} full")
    assert "Score: 100 / 100" in report and "Passed (pass mark 60)" in report


def wrong_answer(question, order: str = "") -> str:
    """A wrong letter as the person sees the options."""
    shown = shuffle.shown(question, order)
    return next(letter for letter in shown.letters if letter not in shown.answer)


async def test_handing_in_one_wrong_answer_gives_0_with_every_section(make):
    app = await make()
    await run(app, "/mock")
    mock = await app.mocks.store.open_mock(await app.quiz.user_id(ME.user))
    first = SHIPPED.question(mock.items[0].question_id)
    await run(app, f"/mock 1 {wrong_answer(first, mock.items[0].order)}")
    asked = await run(app, "/模拟考试 交卷")
    assert asked.startswith("61 items of 62 are unanswered. Hand in anyway?")
    report = await run(app, "/模拟考试 交卷 确认")
    assert "Score: 0 / 100" in report and "Not passed" in report
    for line in (
        "Single choice: 0 / 30",
        "Multiple choice: 0 / 20",
        "True or false: 0 / 10",
        "Fill in the blank: 0 / 20",
        "Short answer: 0 / 20",
    ):
        assert line in report
    notebook = await app.storage.study.notebook(await app.quiz.user_id(ME.user), SHIPPED.id)
    assert [m.question_id for m in notebook] == [first.id]  # blanks: no notebook


async def test_a_restart_keeps_answers_and_the_clock(make, clock):
    app = await make()
    await run(app, "/mock")
    await run(app, "/mock 3 B")
    await run(app, "/mock flag 5")
    clock.advance(timedelta(minutes=30))
    await app.close()
    again = await make()
    resumed = await run(again, "/mock")
    assert "Resuming your mock exam" in resumed and "1:00:00 left" in resumed
    sheet = await run(again, "/mock sheet")
    assert "1/62 answered" in sheet and "Unanswered: 1–2, 4–62" in sheet and "🚩 Flagged: 5" in sheet
    shown = await run(again, "/mock go 3")
    assert "Your answer: B" in shown
    assert set(again.scheduler.jobs) >= {"mock-end:1", "mock-remind:1"}


async def test_the_reminder_and_the_automatic_hand_in(make, clock):
    app = await make()
    await run(app, "/mock")
    await run(app, "/mock 1 A")
    clock.advance(timedelta(minutes=80))
    await app.scheduler.run_due()
    assert [n.key for n in app.port.of("notice")] == ["mock.reminder"]
    clock.advance(timedelta(minutes=10))
    await app.scheduler.run_due()
    assert [n.key for n in app.port.of("notice")] == ["mock.reminder", "mock.timed_out"]
    handed = await run(app, "/mock submit")  # too late: the clock handed it in
    assert handed.startswith("⏰ Time was up: your mock exam was handed in automatically (")
    assert "Score:" in await run(app, "/mock report")


async def test_bad_input_gets_a_clear_message_and_nothing_is_lost(make, clock):
    app = await make()
    await run(app, "/mock")
    assert await run(app, "/mock 99 B") == "Item 99 is not on this paper: it has items 1–62."
    assert "kept" in await run(app, "/mock 2 C")
    twice = await run(app, "/mock")
    assert "Resuming" in twice
    assert "Answer sheet: 1/62" in await run(app, "/mock sheet")
    # a long short answer is kept as practice keeps it (the mock once refused one over 1,000)
    assert "kept" in await run(app, "/mock 61 " + "梯度裁剪后加噪声。" * 150)
    assert "Answer sheet: 2/62" in await run(app, "/mock sheet")
    clock.advance(timedelta(minutes=91))
    late = await run(app, "/mock 4 A")
    assert late.startswith("⏰ Time was up: the paper was handed in")
    report = await app.application.run_text("/mock report", ME)
    assert isinstance(report.view, MockReportView) and report.view.used_seconds == 90 * 60


async def test_mock_answers_feed_the_notebook_at_hand_in(make):
    app = await make()
    await run(app, "/mock")
    mock = await app.mocks.store.open_mock(await app.quiz.user_id(ME.user))
    first = SHIPPED.question(mock.items[0].question_id)
    wrong = wrong_answer(first, mock.items[0].order)
    await run(app, f"/mock 1 {wrong}")
    user_id = await app.quiz.user_id(ME.user)
    assert await app.storage.study.notebook(user_id, SHIPPED.id) == []  # nothing graded yet
    await run(app, "/mock submit confirm")
    notebook = await app.storage.study.notebook(user_id, SHIPPED.id)
    assert [m.question_id for m in notebook] == [first.id]
    listed = await run(app, "/错题本")
    assert f"{first.number}." in listed and "missed 1 time" in listed


async def test_the_first_question_view_is_rendered_by_kind(make):
    app = await make()
    reply = await app.application.run_text("/mock start", ME)
    assert isinstance(reply.view, MockQuestionView) and not reply.public


async def test_bad_input_in_a_chinese_chat_gets_chinese_and_loses_nothing(make, clock):
    """Each refusal in the chat's language; what was given before it is kept."""
    app = await make("zh-CN")
    zh = "zh-CN"
    await run(app, "/mock")
    assert await run(app, "/mock 99 B") == t(zh, "mock.no_such_item", number=99, count=62)
    assert (await run(app, "/mock 2 C")).startswith(t(zh, "mock.kept", number=2))
    again = await run(app, "/模拟考试")  # twice: the same paper, not a second one
    assert again.startswith(t(zh, "mock.resumed", title=bank_text(zh, SHIPPED.title)))
    assert "1/62" in await run(app, "/mock sheet")
    user_id = await app.quiz.user_id(ME.user)
    assert len(await app.mocks.store.history(user_id, 5)) == 0  # nothing handed in: one open paper

    clock.advance(timedelta(minutes=95))  # the bot was down at the end: no job handed it in
    late = await app.application.run_text("/mock 交卷", ME)
    assert isinstance(late.view, MockReportView) and late.view.used_seconds == 90 * 60
    assert t(zh, "mock.time_used", minutes=90, seconds=0) in render_reply(late)
    [handed] = await app.mocks.store.history(user_id, 5)
    kept = (await app.mocks.store.answers(handed.id))[1].response  # the answer given in time
    second = handed.items[1]
    assert shuffle.to_shown(SHIPPED.question(second.question_id), second.order, kept) == "C"
    again = await run(app, "/mock submit")
    assert again == t(zh, "mock.handed_in_by_clock", score=f"{handed.score:g}", total="100")

    group = ChatRef(Platform.CONSOLE, "-5", ChatKind.GROUP, title="学习群")
    member = Caller(group, UserRef(Platform.CONSOLE, "m", "小王"))
    await run(app, "/quiz single", member)
    too_long = await run(app, "/report " + "错" * 5000, member)
    assert too_long == t(zh, "report.too_long", length=5000, limit=500)
    assert await app.storage.reports.open_reports(chat_id=None, guild=None) == []
    asked = await app.store.last_round((await app.quiz.chat(group)).id)
    number = SHIPPED.question(asked.question_id).number
    assert await run(app, "/纠错 选项有误", member) == t(zh, "report.thanks", id=1, number=number)
    assert await run(app, "/reports", member) == t(zh, "error.not_admin")


async def test_two_mock_starts_at_once_give_one_paper(make):
    """Two /mock at the same moment for one learner (a double tap, two devices): the second sees
    the first (the one-open-mock index, then a resume), not a second paper or an error."""
    app = await make()
    store, tries = app.mocks.store, []
    create = store.create_mock

    async def counted(new):
        tries.append(new)
        return await create(new)

    store.create_mock = counted
    first, second = await asyncio.gather(run(app, "/mock"), run(app, "/mock"))
    assert len(tries) == 2  # both got past "is one open?" before either had stored its paper
    assert sorted("Resuming" in reply for reply in (first, second)) == [False, True], (first, second)
    assert first.splitlines()[-3:] == second.splitlines()[-3:]  # the same first item
    me = await app.quiz.user_id(ME.user)
    (open_mock,) = [m for m in await app.mocks.store.open_mocks() if m.user_id == me]
    assert await run(app, "/mock sheet") == await run(app, "/mock sheet")  # still the one paper
    assert open_mock.position == 0


OUT_OF_RANGE = {
    "zh-CN": ("第 0 题不在试卷里：本卷 1–62 题。", "第 999 题不在题库里：本题库 1–62 题。",
              "第 99 题不在试卷里：本卷 1–62 题。"),
    "zh-TW": ("第 0 題不在試卷裡：本卷 1–62 題。", "第 999 題不在題庫裡：本題庫 1–62 題。",
              "第 99 題不在試卷裡：本卷 1–62 題。"),
    "en": ("Item 0 is not on this paper: it has items 1–62.",
           "Question 999 is not in this bank: its questions are 1–62.",
           "Item 99 is not on this paper: it has items 1–62."),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(OUT_OF_RANGE))
async def test_a_number_outside_the_paper_or_bank_names_their_own_range(make, language):
    """`/mock 0` is no usage error of a subcommand nobody typed, and no 1–9999: the paper's
    range, as `/quiz 999`, `/memorise 999`, `/favorites add 99` and `/mock review 99` name theirs."""
    app = await make(language)
    on_paper, in_bank, reviewed = OUT_OF_RANGE[language]
    await run(app, "/mock start")
    assert await run(app, "/mock 0") == on_paper
    assert await run(app, "/mock 0 B") == on_paper
    assert await run(app, "/mock 62 B") != on_paper
    for line in ("/quiz 999", "/memorise 999", "/favorites add 999", "/mistakes cause 999 粗心"):
        assert await run(app, line) == in_bank, line
    assert await run(app, "/favorites add 0") == in_bank.replace("999", "0")
    await run(app, "/mock submit confirm")
    assert await run(app, "/mock review 99") == reviewed


@pytest.mark.parametrize(
    ("language", "none", "counts"),
    [("zh-CN", "本轮没有作答。", "0 题"), ("zh-TW", "本輪沒有作答。", "0 題"),
     ("en", "Nothing was answered in this round.", "Answered 0")],
)  # fmt: skip
async def test_stopping_a_run_with_nothing_answered_says_so_without_zero_counts(make, language, none, counts):
    app = await make(language)
    await run(app, "/quiz 填空")
    stopped = (await run(app, "/quiz stop")).splitlines()
    assert stopped[1] == none and not any(counts in line for line in stopped), stopped
    if language == "zh-CN":
        how = "发送「下一题」或 /quiz 开始新一轮练习。"
        assert stopped == ["📋 练习小结 · 专项练习 · 填空题", "本轮没有作答。", how]
