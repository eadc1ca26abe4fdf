"""`/exam`, `/settings` and the reminder with the plan on Telegram (real python-telegram-bot against
the fake Bot API, a Chinese private chat) and Discord (real discord.py against the fake Discord,
in a DM and in a server), under the ManualClock (2026-12-02 09:00 in Shanghai)."""

from __future__ import annotations

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_study_e2e_discord import Seat, seat  # noqa: F401  (the seat fixture)
from tests.test_telegram_harness import TelegramHarness, tg_fixture  # noqa: F401

ZH = "zh-CN"
LI = FakeUser(21, "小李", "xiaoli", "zh-hans")  # her Telegram speaks Chinese: so does her chat
TIMEOUT = 30.0


async def test_telegram_exam_plan_countdown_and_the_reminder_with_the_plan(tg: TelegramHarness) -> None:
    await tg.start(language=ZH)
    said = await tg.say(LI.id, LI, "/exam 2026-12-20 30min")
    head = "已设置考试日期。\n考试日期：12月20日（距考试还有 18 天）\n每天学习时间：30 分钟"
    assert said["text"].startswith(head)
    assert "新题：1 道（第 1 题），发送 /quiz 顺序 开始" in said["text"]
    shown = await tg.say(LI.id, LI, "/考试")
    assert shown["text"] == said["text"].removeprefix("已设置考试日期。\n")
    stats = await tg.say(LI.id, LI, "/stats")
    assert "距考试还有 18 天" in stats["text"]
    quiet = await tg.say(LI.id, LI, "/设置 免打扰 19:30 21:15")
    assert "免打扰：19:30–21:15（其间的提醒推迟到 21:15）" in quiet["text"]
    await tg.say(LI.id, LI, "/review remind on 20:00")
    await tg.advance(12 * 3600 + 15 * 60)  # 21:15 in Shanghai: the end of the quiet hours
    reminder = await tg.server.wait_for_request(
        "sendMessage", lambda p: p["chat_id"] == LI.id and "今天的计划" in p["text"], timeout=TIMEOUT
    )
    assert reminder["text"].startswith("📅 今天的备考提醒\n考试日期：12月20日（距考试还有 18 天）")
    assert "新题：1 道（第 1 题）" in reminder["text"]


async def test_discord_exam_plan_and_settings(seat: Seat) -> None:  # noqa: F811
    await seat.h.start()
    said = await seat.say("exam", {"date": "2026-12-20", "time_a_day": "30min"}, sub="set")
    assert "Exam: Dec 20 (18 days to go)" in said and "Time a day: 30 minutes" in said
    assert "New items: 1 (no. 1) — /quiz next" in said
    shown = await seat.say("exam", sub="show")
    assert "Today's plan (about 1 minute):" in shown
    assert "18 days to go" in await seat.say("stats")
    bad = await seat.say("exam", {"date": "2026-02-30"}, sub="set")
    assert t("en", "arg.date") in bad
    quiet = await seat.say("settings", {"from": "22:00", "until": "07:00"}, sub="quiet")
    assert "Quiet hours: 22:00–07:00 (reminders wait until 07:00)" in quiet
    assert "Your day starts at 04:00" in await seat.say("settings", {"time": "04:00"}, sub="daystart")
    assert "Exam date removed." in await seat.say("exam", sub="off")
