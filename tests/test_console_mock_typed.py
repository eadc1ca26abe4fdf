"""A mock exam in the Chinese console, as a person types it (the shipped bank): the console has no
buttons, so no item says "点选项" or "点「对」或「错」" — neither the item a command shows nor the
next item shown after a typed answer — and `/练习` is the practice command the README names."""

from __future__ import annotations

from tests.process import BotProcess

READY = "studybot 控制台"
TYPE_LETTER = "发送选项字母作答（也可 /mock {n} 字母）"
TYPE_JUDGE = "直接发送 对 或 错（也可 /mock {n} 对）"


async def test_every_mock_item_says_what_to_type_and_names_no_button(tmp_path):
    bot = await BotProcess.start(tmp_path / "data")
    try:
        await bot.wait_for(READY)
        bot.send("/mock start 顺序")  # the paper in bank order
        await bot.wait_for(TYPE_LETTER.format(n=1))
        bot.send("C")  # typed: the next item comes back with the answer's receipt
        await bot.wait_for("📝 第 1 题的答案已记下")
        await bot.wait_for(TYPE_LETTER.format(n=2))
        bot.send("/mock 41")  # a true/false item, shown by a command
        await bot.wait_for(TYPE_JUDGE.format(n=41))
        bot.send("错")  # and the next one, after a typed answer
        await bot.wait_for(TYPE_JUDGE.format(n=42))
        bot.send("/mock quit")
        await bot.wait_for("已放弃这场模拟考试")
        bot.send("/练习 5")
        await bot.wait_for("第 5 / 62 题")
    finally:
        assert await bot.quit() == 0
    out = bot.output
    assert "点选项" not in out and "点「对」" not in out
    assert "未知命令" not in out and "Traceback" not in out
