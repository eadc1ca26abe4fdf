"""The study commands besides the mock exam, on the real SQLite store: the notebook and its
export, due reviews, favourites, progress with its chart (PNG, CJK glyphs not boxes), error
reports with admins and the reporter told."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import multiprocessing
import os
import signal
import sys

import pytest

from adapters.charts.chart_process import ChartProcess
from adapters.charts.matplotlib_charts import MatplotlibCharts
from bot.application.app import Application
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.views.charts import ChartData, MockPoint, TagBar
from bot.views.quiz import QuestionView
from tests.conftest import make_bank
from tests.waits import HANG

# The recording port speaks for the console.
PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
GROUP = ChatRef(Platform.CONSOLE, "-20", ChatKind.GROUP, title="group")
ANN = UserRef(Platform.CONSOLE, "10", "Ann")
BOB = UserRef(Platform.CONSOLE, "11", "Bob")
ME = Caller(PRIVATE, ANN)


@pytest.fixture
async def app(make_app):
    built = await make_app()
    built.app_layer = Application(built.quiz, built.dailies, built.contests, study=built.study)
    return built


async def answer(app, view: QuestionView, right: bool, user: UserRef = ANN) -> None:
    round_ = await app.store.get_round(view.round_id)
    question = app.banks["sample"].question(round_.question_id)
    if right:
        response = ",".join(question.answer) if str(question.type) == "multi" else question.answer[0]
    else:
        response = (
            next(letter for letter in "ABCD" if letter not in question.answer)
            if question.options
            else ("false" if question.answer == ("true",) else "zzz-wrong")
        )
    await app.quiz.submit(SubmitAnswer(view.round_id, user, response))
    await app.quiz.flush()


async def ask(app, line: str, caller: Caller = ME):
    return await app.app_layer.run_text(line, caller)


async def test_a_wrong_answer_lands_in_the_notebook_and_leaves_after_two_right(app, clock):
    first = (await ask(app, "/quiz single")).view
    await answer(app, first, right=False)
    listed = render_reply(await ask(app, "/mistakes"))
    assert "missed 1 time" in listed
    for _ in range(2):
        clock.advance(60)
        practice = (await ask(app, "/mistakes practice")).view
        assert isinstance(practice, QuestionView)
        await answer(app, practice, right=True)
    assert render_reply(await ask(app, "/mistakes")) == "Your mistake notebook is empty."


async def test_export_sends_csv_and_markdown(app):
    view = (await ask(app, "/quiz single")).view
    await answer(app, view, right=False)
    reply = await ask(app, "/mistakes export")
    names = [f.filename for f in reply.files]
    assert names == ["mistakes.csv", "mistakes.md"]
    rows = list(csv.reader(io.StringIO(reply.files[0].data.decode("utf-8-sig"))))
    assert rows[0][0] == "Number" and len(rows) == 2
    assert reply.files[1].data.decode().startswith("# Mistake notebook")


async def test_export_carries_each_entry_whole_options_answer_and_cause(app):
    view = (await ask(app, "/quiz single")).view
    await answer(app, view, right=False)
    question = app.banks["sample"].question((await app.store.get_round(view.round_id)).question_id)
    said = render_reply(await ask(app, f"/mistakes cause {question.number} careless"))
    assert "careless" in said, said
    reply = await ask(app, "/mistakes export")
    header, row = list(csv.reader(io.StringIO(reply.files[0].data.decode("utf-8-sig"))))
    assert header[4:] == ["Cause", "Question", "Options", "Answer", "Explanation"], header
    entry = dict(zip(header, row, strict=True))
    assert entry["Options"].splitlines() == [f"{letter}. {text}" for letter, text in question.options]
    assert entry["Answer"] == question.answer[0] and entry["Cause"] == "careless"
    page = reply.files[1].data.decode()
    for letter, text in question.options:
        assert f"- {letter}. {text}" in page
    assert "- Cause: careless" in page and f"- Answer: {question.answer[0]}" in page


async def test_export_in_chinese_a_judge_item_has_no_option_list_and_its_answer_in_words(app):
    await ask(app, "/lang zh-CN")
    view = (await ask(app, "/quiz judge")).view
    assert isinstance(view, QuestionView), view
    await answer(app, view, right=False)
    question = app.banks["sample"].question((await app.store.get_round(view.round_id)).question_id)
    reply = await ask(app, "/mistakes export")
    header, row = list(csv.reader(io.StringIO(reply.files[0].data.decode("utf-8-sig"))))
    entry = dict(zip(header, row, strict=True))
    assert entry["选项"] == "" and entry["正确答案"] == ("对" if question.answer == ("true",) else "错")
    assert entry["题型"] == "判断题", entry
    page = reply.files[1].data.decode()
    assert page.startswith("# 错题本") and "- A." not in page and "- 正确答案：" in page and ": " not in page


def _with_a_two_line_option():
    """The sample bank, its single-choice item's option C written over two lines (as a pasted
    option with a formula or a code line beneath it comes)."""
    bank = make_bank()
    first = bank.questions[0]
    options = tuple((k, "line one\nline two" if k == "C" else v) for k, v in first.options)
    questions = (dataclasses.replace(first, options=options), *bank.questions[1:])
    return dataclasses.replace(bank, questions=questions)


@pytest.mark.parametrize("bank", [_with_a_two_line_option()])
async def test_export_keeps_an_option_written_over_two_lines_in_one_bullet(app, bank):
    view = (await ask(app, "/quiz single")).view
    await answer(app, view, right=False)
    reply = await ask(app, "/mistakes export")
    header, row = list(csv.reader(io.StringIO(reply.files[0].data.decode("utf-8-sig"))))
    assert "C. line one\nline two" in dict(zip(header, row, strict=True))["Options"]
    page = reply.files[1].data.decode()
    assert "- C. line one\n  line two\n- D. 22" in page, page
    assert sum(line[:5] in ("- A. ", "- B. ", "- C. ", "- D. ") for line in page.splitlines()) == 4, page


async def test_review_serves_a_due_card_then_says_when_the_next_is_due(app, clock):
    assert "No review cards yet" in render_reply(await ask(app, "/review"))
    view = (await ask(app, "/quiz single")).view
    await answer(app, view, right=False)
    clock.advance(3600)
    due = (await ask(app, "/复习")).view
    assert isinstance(due, QuestionView)
    await answer(app, due, right=True)
    clock.advance(1)
    assert "Nothing due now. The next card is due" in render_reply(await ask(app, "/review"))


async def test_favourites_by_number_listed_and_practised(app):
    assert "No starred questions" in render_reply(await ask(app, "/favorites"))
    assert render_reply(await ask(app, "/favorites add 1")) == "⭐ Question 1 starred"
    assert "1 starred question" in render_reply(await ask(app, "/收藏"))
    practice = (await ask(app, "/favorites practice")).view
    assert isinstance(practice, QuestionView) and practice.number == 1
    outside = "Question 999 is not in this bank: its questions are 1–5."
    assert render_reply(await ask(app, "/favorites add 999")) == outside


async def test_stats_sends_a_chart(app):
    view = (await ask(app, "/quiz single")).view
    await answer(app, view, right=True)
    reply = await ask(app, "/stats")
    assert "Practised 1 /" in render_reply(reply)
    assert reply.files and reply.files[0].image and reply.files[0].data.startswith(b"\x89PNG\r\n\x1a\n")


async def test_group_admins_see_the_weakest_tags_and_members_are_refused(app):
    view = (await ask(app, "/quiz single", Caller(GROUP, BOB))).view
    await answer(app, view, right=False, user=BOB)
    assert "Only admins" in render_reply(await ask(app, "/stats group", Caller(GROUP, BOB)))
    shown = render_reply(await ask(app, "/stats group", Caller(GROUP, ANN, admin=True)))
    # One tag answered: it is not "the weakest" of anything.
    assert shown == "📊 The group's accuracy by tag\nmath: 0% (0/1)"
    view = (await ask(app, "/quiz judge", Caller(GROUP, BOB))).view
    await answer(app, view, right=True, user=BOB)
    shown = render_reply(await ask(app, "/stats group", Caller(GROUP, ANN, admin=True)))
    assert shown == "📉 The group's weakest tags\nmath: 0% (0/1)"  # physics at 100 % is not weak


def _ink(png: bytes) -> tuple[int, int]:
    """Dark pixels in the picture, and their distinct 8x8 patterns (tofu boxes all look alike)."""
    from matplotlib import image as mpimg

    pixels = mpimg.imread(io.BytesIO(png))
    dark = pixels[:, :, :3].mean(axis=2) < 0.5
    return int(dark.sum()), len(
        {
            dark[y : y + 8, x : x + 8].tobytes()
            for y in range(0, dark.shape[0] - 8, 8)
            for x in range(0, dark.shape[1] - 8, 8)
            if dark[y : y + 8, x : x + 8].any()
        }
    )


CHINESE = ChartData(
    language="zh-CN",
    title="学习进度",
    tag_title="各标签正确率",
    tags=(TagBar("机器学习", 0, 2, "0%（0/2）"), TagBar("注意力", 4, 5, "80%（4/5）")),
    no_tags="还没有答过带标签的题",
    activity_title="近 30 天答题数",
    days=tuple(f"11月{d}日" for d in range(1, 31)),
    answers=(1,) * 30,
    right=(1, 0) * 15,
    answers_legend="答题数",
    accuracy_legend="正确率（近 7 天）",
    trend_days=7,
    forecast_title="未来 14 天到期卡片",
    forecast_days=("今天", *(f"12月{d}日" for d in range(2, 15))),
    forecast=(2,) * 14,
    mock_title="模拟考试成绩（%）",
    mocks=(MockPoint("11月20日", 0.52, 0.6, "52/100"), MockPoint("11月27日", 0.71, 0.6, "71/100")),
    no_mocks="还没有交卷的模拟考试",
    pass_legend="及格线",
)


def test_chinese_labels_are_drawn_not_boxes():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)" for tofu
        png = MatplotlibCharts().render(CHINESE)
    assert png.startswith(b"\x89PNG")
    ink, shapes = _ink(png)
    assert ink > 0 and shapes > 50


async def test_the_chart_process_draws_the_same_picture_off_the_event_loop():
    charts = ChartProcess()
    try:
        drawn = await charts.render(CHINESE)
        assert drawn == MatplotlibCharts().render(CHINESE)  # the drawing checked above, byte for byte
        assert await charts.render(CHINESE) == drawn  # the worker stays up for the next chart
    finally:
        await charts.close()


async def test_a_report_reaches_admins_and_the_reporter_hears_back(app):
    in_group = Caller(GROUP, BOB)
    await ask(app, "/quiz single", in_group)
    too_long = render_reply(await ask(app, "/report " + "x" * 5000, in_group))
    assert too_long == "That report is too long: 5000 characters, 500 at most. Please shorten it."
    thanks = render_reply(await ask(app, "/纠错 the answer should be B", in_group))
    assert thanks.startswith("Thank you! Report #1")
    assert "Only admins" in render_reply(await ask(app, "/reports", Caller(GROUP, BOB)))
    # Admins see the reports of their own chat only: not another group's; in a private chat a
    # person is that chat's admin, not the bank's; the console's user runs the bot and sees them.
    elsewhere = Caller(ChatRef(Platform.CONSOLE, "-30", ChatKind.GROUP, title="other"), ANN, admin=True)
    assert render_reply(await ask(app, "/reports", elsewhere)) == "No open reports."
    cy = UserRef(Platform.TELEGRAM, "12", "Cy")
    someone = Caller(ChatRef(Platform.TELEGRAM, "12", ChatKind.PRIVATE), cy)
    assert render_reply(await ask(app, "/reports", someone)) == "No open reports."
    assert "the answer should be B" in render_reply(await ask(app, "/reports", ME))
    refused = render_reply(await ask(app, "/reports resolve 1 not mine", elsewhere))
    assert refused == "There is no open report #1."
    listed = render_reply(await ask(app, "/reports", Caller(GROUP, ANN, admin=True)))
    assert "#1 question" in listed and "the answer should be B" in listed
    done = render_reply(
        await ask(app, "/reports resolve 1 fixed in the bank", Caller(GROUP, ANN, admin=True))
    )
    assert done == "Report #1 resolved; the reporter was told."
    told = app.port.of("notice")[-1]
    assert told.key == "report.resolved_named" and dict(told.params)["note"] == "fixed in the bank"
    assert dict(told.params)["name"] == "Bob"
    again = render_reply(await ask(app, "/reports dismiss 1", Caller(GROUP, ANN, admin=True)))
    assert again == "There is no open report #1."


async def test_a_server_admin_sees_the_reports_of_every_channel_of_their_server(app):
    general = ChatRef(Platform.DISCORD, "100", ChatKind.GROUP, title="general", guild_key="9")
    maths = ChatRef(Platform.DISCORD, "101", ChatKind.GROUP, title="maths", guild_key="9")
    other = ChatRef(Platform.DISCORD, "200", ChatKind.GROUP, title="x", guild_key="8")
    student = UserRef(Platform.DISCORD, "5", "Stu")
    await ask(app, "/quiz single", Caller(maths, student))
    assert render_reply(await ask(app, "/report typo in B", Caller(maths, student))).startswith("Thank you!")
    listed = render_reply(await ask(app, "/reports", Caller(general, student, admin=True)))
    assert "typo in B" in listed
    assert render_reply(await ask(app, "/reports", Caller(other, student, admin=True))) == "No open reports."


async def test_private_practice_never_moves_a_group_board(app):
    view = (await ask(app, "/quiz single")).view
    await answer(app, view, right=True)
    board = render_reply(await ask(app, "/leaderboard", Caller(GROUP, BOB)))
    assert "Ann" not in board


async def test_the_chart_worker_is_warmed_once_at_start_and_then_draws():
    charts = ChartProcess()
    try:
        warming = charts.warm()
        assert charts.warm() is warming  # once per worker
        worker = await asyncio.wrap_future(warming)  # matplotlib and the fonts loaded, no error
        assert worker != os.getpid()
        assert (await charts.render(CHINESE)).startswith(b"\x89PNG")
    finally:
        await charts.close()


async def test_charts_in_flight_when_the_worker_dies_are_drawn_by_one_new_worker():
    """The worker killed (out of memory, say): every chart waiting on it is drawn by a new one,
    and only one: the second chart to find the worker dead must not drop the new worker the
    first one started, leaving it running unowned until the bot exits."""
    others = set(multiprocessing.active_children())  # the suite's shared chart worker, if started
    charts = ChartProcess()
    try:
        os.kill(await asyncio.wrap_future(charts.warm()), signal.SIGKILL)
        drawn = await asyncio.wait_for(asyncio.gather(*(charts.render(CHINESE) for _ in range(3))), HANG)
        assert all(png.startswith(b"\x89PNG") for png in drawn)
        workers = [p for p in multiprocessing.active_children() if p not in others and p.is_alive()]
        assert len(workers) == 1, workers
        assert await charts.render(CHINESE) == drawn[0]  # the new worker stays up for the next chart
    finally:
        await charts.close()


KILLED_BOT = """
import asyncio, sys
from adapters.charts.chart_process import ChartProcess

async def main():
    charts = ChartProcess()
    print(await asyncio.wrap_future(charts.warm()), flush=True)
    await asyncio.Event().wait()  # until killed

if __name__ == "__main__":
    asyncio.run(main())
"""


async def test_the_chart_worker_ends_when_the_bot_is_killed(tmp_path):
    """A pool worker would wait forever on its queue, an orphan holding the bot's stdout open."""
    script = tmp_path / "killed_bot.py"  # not bot.py: that would hide the bot package
    script.write_text(KILLED_BOT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    bot = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stdout=asyncio.subprocess.PIPE, env=env
    )
    assert bot.stdout is not None
    async with asyncio.timeout(HANG):
        worker = int(await bot.stdout.readline())
    gone = asyncio.get_running_loop().create_future()
    pidfd = os.pidfd_open(worker)  # readable once the worker has exited
    asyncio.get_running_loop().add_reader(pidfd, lambda: gone.done() or gone.set_result(None))
    try:
        bot.kill()
        await bot.wait()
        async with asyncio.timeout(HANG):
            await gone
            assert await bot.stdout.read() == b""  # and nothing holds the bot's stdout open
    finally:
        asyncio.get_running_loop().remove_reader(pidfd)
        os.close(pidfd)
