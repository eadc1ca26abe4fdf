"""The drilling loop in the console, as a real process in Chinese (the shipped bank): the
place of sequential practice, Enter or `n` for the next question, chit-chat after a graded
answer not taken as an answer, the self-grade words, `/quiz 结束` with its summary, and the
no-match message naming its filter in Chinese."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.process import BotProcess

READY = "studybot 控制台"


def stored_responses(data: Path) -> list[str]:
    with sqlite3.connect(data / "studybot.db") as db:
        return [row[0] for row in db.execute("SELECT response FROM answers ORDER BY id")]


async def test_enter_and_n_drill_on_in_order_and_the_run_ends_with_a_summary(tmp_path):
    data = tmp_path / "data"
    bot = await BotProcess.start(data)
    try:
        await bot.wait_for(READY)
        bot.send("/quiz 5")
        await bot.wait_for("第 5 / 62 题")
        bot.send("A")
        await bot.wait_for("回车、n 或「下一题」：下一题")  # what to do next, after the grade
        bot.send("还行吧")  # chit-chat after the grade
        await bot.wait_for("这道题已经批改过了，这句话不计为答案。")
        bot.send("")  # Enter alone
        await bot.wait_for("第 6 / 62 题")
        bot.send("n")
        await bot.wait_for("第 7 / 62 题")
        bot.send("下一题")
        await bot.wait_for("第 8 / 62 题")
        bot.send("/quiz 结束")
        await bot.wait_for("新增错题")
        bot.send("/quiz next")  # the place is kept: question 9
        await bot.wait_for("第 9 / 62 题")
        bot.send("/quiz 多选 nosuch")
        await bot.wait_for("题库中没有符合条件的题目（nosuch / 多选题）。")
        bot.send("/quiz 61")  # a short answer: graded by oneself
        await bot.wait_for("第 61 / 62 题")
        bot.send("分块计算")
        await bot.wait_for("全对 / 部分 / 不会")
        bot.send("还行吧")
        await bot.wait_for("请对照参考答案给自己打分，回复 全对 / 部分 / 不会（或 1 / 2 / 3）。")
        bot.send("部分")
        await bot.wait_for("已自评")
    finally:
        assert await bot.quit() == 0
    out = bot.output
    summary = out[out.index("📋 练习小结 · 顺序练习") :]
    assert summary.splitlines()[1] == "作答 1 题 · 答对 0 题（正确率 0%）"
    assert summary.splitlines()[2] == "新增错题 1 道"
    assert out.count("参考答案：") == 1  # the reference once, not again for the chit-chat
    assert stored_responses(data) == ["A", "分块计算"]  # nothing else was taken as an answer
    assert "Traceback" not in out


async def test_enter_on_an_unanswered_question_shows_its_answer_and_a_new_mode_sums_up_the_last(tmp_path):
    data = tmp_path / "data"
    bot = await BotProcess.start(data)
    try:
        await bot.wait_for(READY)
        bot.send("/quiz 51")  # a fill-in item
        await bot.wait_for("第 51 / 62 题")
        bot.send("")  # Enter with no answer: skipped, but not without its answer
        await bot.wait_for("第 52 / 62 题")
        bot.send("5e-4")
        await bot.wait_for("回车、n 或「下一题」：下一题")
        bot.send("/quiz 多选")  # another mode: the sequential run ends, its summary above
        await bot.wait_for(" · 多选题 · ")
    finally:
        assert await bot.quit() == 0
    out = bot.output
    skipped = out[out.index("⏭ 跳过了第 51 题") : out.index("第 52 / 62 题")]
    assert skipped.splitlines()[:2] == [
        "⏭ 跳过了第 51 题（不计分，不记错题）。答案：4096 / 4×1024 / 4*1024 / 4×d_model / 4*d_model"
        " / 4d_model",
        "解析：通常d_ff=4×d_model。",
    ]
    summary = out[out.index("📋 练习小结 · 顺序练习") :]
    assert summary.splitlines()[1:3] == ["作答 1 题 · 答对 1 题（正确率 100%）", "新增错题 0 道"]
    assert summary.index(" · 多选题 · ") > 0  # the new mode's question comes after it
    assert "发送「下一题」或 /quiz 开始新一轮练习。" not in summary  # no "how to go on" above a question
    assert stored_responses(data) == ["5e-4"]  # the skipped item took no answer
    assert "Traceback" not in out
