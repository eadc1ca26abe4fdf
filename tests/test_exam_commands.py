"""`/exam`, `/settings` and the reminder that carries the plan, on the real SQLite store through
the application layer and the hand-driven scheduler the other reminder tests use; and the
console, in process, in Chinese (what a learner reads)."""

from __future__ import annotations

import io
import math
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from adapters.console import ConsoleAdapter
from bot.application.app import Application
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, SubmitAnswer
from bot.application.study.reminders import reminder_job
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.locales.i18n import t

PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
ANN = UserRef(Platform.CONSOLE, "10", "Ann")
ME = Caller(PRIVATE, ANN)
SHANGHAI = ZoneInfo("Asia/Shanghai")
# The clock starts 2026-12-02 09:00 in Shanghai (tests/conftest.py START).


@pytest.fixture
async def app(make_app):
    built = await make_app()
    built.app_layer = Application(built.quiz, built.dailies, built.contests, study=built.study)
    return built


async def ask(app, line: str, caller: Caller = ME) -> str:
    return render_reply(await app.app_layer.run_text(line, caller))


async def test_exam_sets_shows_and_removes_the_date_with_todays_plan(app):
    assert await ask(app, "/exam") == t("en", "exam.none")
    said = await ask(app, "/exam 2026-12-12 30min")  # ten days out
    assert said.startswith("Exam date set.\nExam: Dec 12 (10 days to go)\nTime a day: 30 minutes\n")
    # Five items never seen, ten days: one a day, in bank order; nothing to review yet.
    assert "New items: 1 (no. 1) — /quiz next" in said and "Reviews: nothing worth reviewing today" in said
    assert await ask(app, "/exam") == said.removeprefix("Exam date set.\n")
    assert "10 days to go" in await ask(app, "/stats")
    assert await ask(app, "/exam off") == "Exam date removed."
    assert await ask(app, "/exam off") == t("en", "exam.none")
    assert "to go" not in await ask(app, "/stats")


async def test_bad_dates_and_times_are_refused_in_the_chats_words(app):
    assert "expected a date, year first" in await ask(app, "/exam 2026-13-01")
    assert "expected a date, year first" in await ask(app, "/exam 2026-02-30")
    assert "between 5 minutes and 16 hours" in await ask(app, "/exam 2026-12-20 3000min")
    assert "between 5 minutes and 16 hours" in await ask(app, "/exam 2026-12-20 1min")
    assert await ask(app, "/exam 2026-12-02") == t("en", "exam.not_ahead", today="Dec 2")
    assert await ask(app, "/exam 2031-01-01") == t("en", "exam.too_far", years=3)
    assert await ask(app, "/exam") == t("en", "exam.none")  # nothing was kept
    # Other ways of writing them
    assert "Exam: Dec 20" in await ask(app, "/exam 2026年12月20日 1.5h")
    assert "Time a day: 90 minutes" in await ask(app, "/exam")
    assert "Time a day: 45 minutes" in await ask(app, "/考试 2026/12/20 45分钟")


async def test_too_little_time_is_said_plainly(app):
    # Five new items over two days, at a minute each (30 s, twice for a first sight) is three
    # minutes today; five minutes hold it. The sample bank's short answer costs 6 minutes new.
    said = await ask(app, "/exam 2026-12-04 5min")
    assert "Not enough time" not in said
    said = await ask(app, "/exam 2026-12-03 5min")  # all five today: more than five minutes
    assert "Not enough time: today's 5 new items alone take about" in said


async def test_settings_quiet_hours_and_day_start(app, clock):
    assert await ask(app, "/settings") == "Quiet hours: none\nYour day starts at 00:00"
    said = await ask(app, "/settings quiet 22:30 07:00")
    quiet = "Quiet hours: 22:30–07:00 (reminders wait until 07:00)"
    assert said == f"Settings saved.\n{quiet}\nYour day starts at 00:00"
    assert await ask(app, "/settings quiet 22:30 22:30") == t("en", "settings.quiet_empty")
    assert await ask(app, "/settings quiet 22:30") == t("en", "settings.quiet_needs_two")
    assert await ask(app, "/settings daystart 13:00") == t("en", "settings.day_start_range", latest="12:00")
    assert (await ask(app, "/settings daystart 4:00")).endswith("Your day starts at 04:00")
    assert (await ask(app, "/settings quiet off")).startswith("Settings saved.\nQuiet hours: none")
    # 01:00 in Shanghai belongs to the day before when the day starts at 04:00: the countdown
    # to an exam on the 12th counts from the 2nd until 04:00 of the 3rd.
    await ask(app, "/exam 2026-12-12")
    clock.advance(16 * 3600)  # 01:00 on the 3rd in Shanghai
    assert "10 days to go" in await ask(app, "/exam")
    assert "10 days to go" in await ask(app, "/stats")  # /stats's days (and due counts) are the same
    clock.advance(3 * 3600)  # 04:00
    assert "9 days to go" in await ask(app, "/exam")
    assert "9 days to go" in await ask(app, "/stats")


async def answer_first(app) -> None:
    view = (await app.app_layer.run_text("/quiz 1", ME)).view
    await app.quiz.submit(SubmitAnswer(view.round_id, ANN, "A"))
    await app.quiz.flush()


async def test_the_reminder_carries_the_plan_and_keeps_out_of_quiet_hours(app, make_app, clock):
    await answer_first(app)
    await ask(app, "/exam 2026-12-12 30min")
    await ask(app, "/settings quiet 19:30 21:15")
    said = await ask(app, "/review remind on 20:00")  # 20:00 falls inside: it moves to 21:15
    assert said.endswith("\nThat is inside your quiet hours: it comes at 21:15.")
    user_id = await app.quiz.user_id(ANN)
    job = reminder_job(user_id)
    when = app.scheduler.next_run(job)
    assert when is not None and when.astimezone(SHANGHAI).strftime("%H:%M") == "21:15"
    await app.close()
    again = await make_app()  # a restart: the job is rebuilt with the quiet hours
    await again.start()
    when = again.scheduler.next_run(job)
    assert when is not None and when.astimezone(SHANGHAI).strftime("%H:%M") == "21:15"
    await again.scheduler.advance((when - clock.now()).total_seconds())
    told = again.port.of("notice")
    assert told and told[-1].key == "exam.reminder", told
    params = dict(told[-1].params)
    plan = str(params["plan"])
    # The day's plan as /exam shows it: the countdown, the time, the new item and the review.
    again.app_layer = Application(again.quiz, again.dailies, again.contests, study=again.study)
    assert plan == await ask(again, "/exam")
    assert plan.startswith("Exam: Dec 12 (10 days to go)\nTime a day: 30 minutes\nToday's plan (about ")
    assert "New items: today's are done" in plan  # question 1, answered this morning, was today's one
    assert params["count"] == 1 and "Reviews: 1 card — /review" in plan
    text = t("en", "exam.reminder", count=1, plan=plan)
    assert text.startswith("1 review card is due today.\nExam: Dec 12")
    # The next day's reminder: still at the end of the quiet hours, once.
    before = len(again.port.of("notice"))
    await again.scheduler.advance(24 * 3600)
    assert len(again.port.of("notice")) == before + 1
    plan = str(dict(again.port.of("notice")[-1].params)["plan"])
    assert plan.startswith("Exam: Dec 12 (9 days to go)") and "New items: 1 (no. 2)" in plan  # the next one
    # Quiet hours changed: the reminder moves at once, back to 20:00 without them.
    await ask(again, "/settings quiet off")
    when = again.scheduler.next_run(job)
    assert when is not None and when.astimezone(SHANGHAI).strftime("%H:%M") == "20:00"
    await ask(again, "/settings quiet 19:00 20:30")
    when = again.scheduler.next_run(job)
    assert when is not None and when.astimezone(SHANGHAI).strftime("%H:%M") == "20:30"


async def test_the_plan_alone_is_worth_a_reminder_on_a_day_with_nothing_due(app):
    await ask(app, "/exam 2026-12-12")
    await ask(app, "/review remind on 20:00")
    await app.scheduler.advance(12 * 3600)
    (told,) = app.port.of("notice")
    assert told.key == "exam.reminder_plan" and dict(told.params)["count"] == 0
    assert "New items: 1 (no. 1)" in str(dict(told.params)["plan"])


async def test_without_an_exam_the_reminder_is_as_before(app):
    await answer_first(app)
    await ask(app, "/review remind on 20:00")
    await app.scheduler.advance(12 * 3600)
    (told,) = app.port.of("notice")
    assert told.key == "review.reminder" and dict(told.params)["count"] == 1


# ---------------------------------------------------------------- the console, in Chinese


async def test_console_exam_then_exam_then_stats_in_chinese(make_app, tmp_path):
    app = await make_app(language="zh-CN")
    out = io.StringIO()
    console = ConsoleAdapter(app.application, data_dir=app.config.data_dir,
                             stdin=io.StringIO("/exam 2026-12-20 30min\n/exam\n/stats\n"), stdout=out,
                             user=UserRef(Platform.CONSOLE, "me", "我"))  # fmt: skip
    await console.run()
    text = out.getvalue()
    (tmp_path / "console.txt").write_text(text, encoding="utf-8")
    days = (18, "12月20日")
    head = f"考试日期：{days[1]}（距考试还有 {days[0]} 天）\n每天学习时间：30 分钟\n"
    assert "已设置考试日期。\n" + head in text
    assert text.count(head) == 2  # /exam shows it again
    assert f"新题：{math.ceil(5 / 18)} 道（第 1 题），发送 /quiz 顺序 开始" in text
    assert "复习：今天没有需要复习的题" in text
    assert "距考试还有 18 天" in text.split("📈")[1]  # in /stats, after its title
    assert not any(word in text for word in ("Exam", "exam date", "days to go", "Today's plan"))


def test_day_boundary_moves_today_in_local_days():
    from datetime import UTC, datetime, time

    from bot.views.progress import LocalDays

    at = datetime(2026, 12, 2, 18, 30, tzinfo=UTC)  # 02:30 on the 3rd in Shanghai
    assert LocalDays.at(at, "Asia/Shanghai").today.day == 3
    days = LocalDays.at(at, "Asia/Shanghai", time(4))
    assert days.today.day == 2 and days.start(1) == datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
    assert days.local_date(at + timedelta(hours=2)).day == 3  # 04:30: the 3rd


def test_console_process_with_the_shipped_bank_in_chinese(tmp_path):
    """As a newcomer runs it (the real clock, the shipped bank): /exam with a date 16 days on and
    30 minutes, two items answered, /exam again, /stats."""
    from datetime import datetime

    from tests.test_console import run_console

    today = datetime.now(SHANGHAI).date()
    exam = today + timedelta(days=16)
    script = f"/exam {exam.isoformat()} 30min\n/quiz next\nA\n\nB\n/quiz 结束\n/exam\n/stats\n/quit\n"
    result = run_console(tmp_path, script)
    out = result.stdout
    assert result.returncode == 0, result.stderr
    label = f"{exam.month}月{exam.day}日"
    assert f"已设置考试日期。\n考试日期：{label}（距考试还有 16 天）\n每天学习时间：30 分钟\n" in out
    assert f"新题：{math.ceil(62 / 16)} 道（第 1–4 题），发送 /quiz 顺序 开始" in out  # 62 items over 16 days
    after = out[out.index("📋 练习小结") :]
    assert "新题：2 道（第 3–4 题），发送 /quiz 顺序 开始" in after  # two of today's four are done
    assert "复习：2 张，发送 /review 开始" in after  # the two answered, due again today
    stats = after.split("📈 学习进度")[1]
    assert "距考试还有 16 天" in stats
    assert "今天到期 2 张" in stats, stats  # the same two cards, by the same "due today"


async def test_ready_forecasts_to_the_exam_date_set_with_exam(app, clock):
    for index in range(40):  # /ready needs 20 final answers (a short answer awaits its self-grade)
        view = (await app.app_layer.run_text(f"/quiz {index % 5 + 1}", ME)).view
        await app.quiz.submit(SubmitAnswer(view.round_id, ANN, "A"))
        await app.quiz.flush()
        clock.advance(600)
    assert t("en", "ready.exam", day="Dec 12") not in await ask(app, "/ready")
    await ask(app, "/exam 2026-12-12")
    assert t("en", "ready.exam", day="Dec 12") in await ask(app, "/ready")
