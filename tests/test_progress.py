"""/stats as a learner reads it: texts that agree with each other and with the place (no rank in
a private chat, "weakest" only when a tag is weaker, "due today" as /review sees it, in the
chat's days), and a chart whose content says the same: the chart data the renderer is given,
the figure drawn from it (counts on the bars, 0 % visible, dated axes, whole numbers), the PNG.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from adapters.charts.matplotlib_charts import MatplotlibCharts
from adapters.console.files import save_file
from bot.application.app import Application
from bot.application.replies import FileView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.views.charts import ChartData, TagBar
from bot.views.progress import LocalDays, day_label
from bot.views.quiz import QuestionView
from tests.stats_session import run as run_session
from tests.study_e2e import assert_cjk_chart

PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
GROUP = ChatRef(Platform.CONSOLE, "-20", ChatKind.GROUP, title="group")
ANN = UserRef(Platform.CONSOLE, "10", "Ann")
ME = Caller(PRIVATE, ANN)
HAN = re.compile(r"[\u3400-\u9fff]")


class InProcessCharts:
    """The real drawing code, in this process, remembering what it was given."""

    def __init__(self) -> None:
        self.seen: list[ChartData] = []

    async def render(self, data: ChartData) -> bytes:
        self.seen.append(data)
        return MatplotlibCharts().render(data)

    async def close(self) -> None:
        pass


@pytest.fixture
async def app(make_app):
    built = await make_app()
    built.app_layer = Application(built.quiz, built.dailies, built.contests, study=built.study)
    await built.study.charts.close()
    built.charts = built.study.charts = InProcessCharts()
    return built


async def ask(app, line: str, caller: Caller = ME):
    return await app.app_layer.run_text(line, caller)


async def answer(app, line: str, right: bool, caller: Caller = ME) -> str:
    """Ask with `line` (/quiz single, /review…) and answer right or wrong; the question's id."""
    view = (await ask(app, line, caller)).view
    assert isinstance(view, QuestionView), view
    round_ = await app.store.get_round(view.round_id)
    question = app.banks["sample"].question(round_.question_id)
    if str(question.type) == "judge":
        response = question.answer[0] if right else ("false" if question.answer[0] == "true" else "true")
    elif str(question.type) == "multi":
        response = ",".join(question.answer) if right else question.answer[0]
    else:
        response = question.answer[0] if right else next(c for c in "ABCD" if c not in question.answer)
    await app.quiz.submit(SubmitAnswer(view.round_id, caller.user, response))
    await app.quiz.flush()
    return question.id


# ---------------------------------------------------------------- the texts


async def test_a_private_chat_shows_no_group_rank(app):
    await answer(app, "/quiz single", True)
    shown = render_reply(await ask(app, "/stats"))
    assert "Rank" not in shown, shown
    await answer(app, "/quiz single", True, Caller(GROUP, ANN))
    assert "Rank here: #1" in render_reply(await ask(app, "/stats", Caller(GROUP, ANN)))


async def test_stats_group_in_a_private_chat_is_the_persons_own_progress(make_app):
    app = await make_app(language="zh-CN")
    app.app_layer = Application(app.quiz, app.dailies, app.contests, study=app.study)
    await answer(app, "/quiz single", False)
    shown = render_reply(await ask(app, "/stats group"))
    assert "本群" not in shown and "📈 学习进度" in shown, shown


async def test_no_tag_is_the_weakest_when_every_tag_stands_equal(app):
    await answer(app, "/quiz single", True)  # math
    await answer(app, "/quiz judge", True)  # physics
    shown = render_reply(await ask(app, "/stats"))
    assert "Weakest" not in shown
    assert "Accuracy by tag:\n  math: 100% (1/1)\n  physics: 100% (1/1)" in shown, shown
    await answer(app, "/quiz single", False)
    shown = render_reply(await ask(app, "/stats"))
    assert "Weakest tags:\n  math: 50% (1/2)\nMistake notebook" in shown, shown  # physics is not weak


async def test_due_today_agrees_with_review_once_review_has_nothing_left(app, clock):
    clock.set(datetime.fromisoformat("2026-12-02T21:00:00+08:00"))
    for line in ("/quiz single", "/quiz judge", "/quiz multi"):
        await answer(app, line, True)
    # Each card comes back within minutes (a learning step): /review has nothing *now* and says
    # when the next comes, so /stats counts them as due later today (not "none within 7 days").
    assert render_reply(await ask(app, "/review")).startswith("🎉 Nothing due now. The next card is due")
    shown = render_reply(await ask(app, "/stats"))
    assert "Due today 3, within 7 days 3" in shown, shown
    assert app.charts.seen[-1].forecast[:2] == (3, 0)  # the chart says the same
    clock.set(datetime.fromisoformat("2026-12-03T08:00:00+08:00"))  # the next day: all three due
    assert "Due today 3, within 7 days 3" in render_reply(await ask(app, "/stats"))
    assert app.charts.seen[-1].forecast[:2] == (3, 0)


async def test_review_says_today_is_done_only_when_nothing_more_falls_due_today(make_app, clock):
    app = await make_app(language="zh-CN")
    app.app_layer = Application(app.quiz, app.dailies, app.contests, study=app.study)
    await answer(app, "/quiz single", True)  # a new card: due again in minutes, still today
    later_today = render_reply(await ask(app, "/review"))
    assert later_today.startswith("🎉 现在没有到期的卡片。下一张卡片 2026-12-02 09:"), later_today
    clock.set(datetime.fromisoformat("2026-12-02T23:55:00+08:00"))
    await answer(app, "/review", True)  # reviewed again: next due in days
    clock.advance(60)
    assert render_reply(await ask(app, "/review")).startswith("🎉 今天的复习都完成了。下一张卡片 2026-12-")


async def test_answers_count_on_the_chats_own_days(app, clock):
    # 23:30 and 00:30 in Shanghai are the same UTC day (15:30 and 16:30 UTC) but two local days.
    clock.set(datetime.fromisoformat("2026-12-02T23:30:00+08:00"))
    await answer(app, "/quiz single", True)
    clock.set(datetime.fromisoformat("2026-12-03T00:30:00+08:00"))
    await answer(app, "/quiz judge", False)
    await ask(app, "/stats")
    chart = app.charts.seen[-1]
    assert chart.days[-2:] == ("Dec 2", "Dec 3") and len(chart.days) == 30
    assert chart.answers[-2:] == (1, 1) and chart.right[-2:] == (1, 0)
    assert chart.forecast_days[:2] == ("Today", "Dec 4")


async def test_the_chart_data_and_the_text_say_the_same(tmp_path):
    session = await run_session(tmp_path, "zh-CN")
    view, (chart,) = session.reply.view, session.charts
    days = LocalDays.at(session.now, "Asia/Shanghai")
    assert chart.days[-1] == day_label("zh-CN", days.today) == f"{days.today.month}月{days.today.day}日"
    assert sum(chart.answers) == view.summary.answers  # every answer of the three weeks, on its day
    assert chart.forecast[0] == view.due_today and sum(chart.forecast[:7]) == view.due_week
    assert [(b.name, b.right, b.total) for b in chart.tags] == list(view.by_tag)
    assert all(b.label == f"{100 * b.right / b.total:.0f}%（{b.right}/{b.total}）" for b in chart.tags)
    assert [round(p.share, 2) for p in chart.mocks] == [0.52, 0.61, 0.57, 0.73]
    assert [p.label for p in chart.mocks] == ["52/100", "61/100", "57/100", "73/100"]
    trend = [v for v in chart.trend() if v is not None]
    assert trend and all(0 <= v <= 1 for v in trend)
    assert_cjk_chart(session.reply.files[0].data, "zh-CN")


def _texts(axes) -> list[str]:
    return [t.get_text() for t in axes.texts]


def test_the_figure_labels_every_bar_and_dates_its_axes():
    data = ChartData(
        language="en", title="Progress", tag_title="Accuracy by tag (%)",
        tags=(TagBar("zero", 0, 3, "0% (0/3)"), TagBar("half", 2, 4, "50% (2/4)"),
              TagBar("all", 5, 5, "100% (5/5)")),
        no_tags="-", activity_title="Answers", days=tuple(f"Nov {d}" for d in range(1, 31)),
        answers=(0,) * 27 + (3, 1, 2), right=(0,) * 27 + (2, 1, 0), answers_legend="Answers",
        accuracy_legend="Accuracy (last 7 days)", trend_days=7, forecast_title="Due",
        forecast_days=("Today", *(f"Dec {d}" for d in range(2, 15))), forecast=(1, 0, 3) + (0,) * 11,
        mock_title="Mocks", mocks=(), no_mocks="No mock exam handed in yet", pass_legend="Pass mark",
    )  # fmt: skip
    figure = MatplotlibCharts().figure(data)
    tags, activity, trend, forecast, mocks = figure.axes[0], figure.axes[1], figure.axes[4], *figure.axes[2:4]
    assert {"0% (0/3)", "50% (2/4)", "100% (5/5)"} <= set(_texts(tags))
    widths = [p.get_width() for p in tags.patches[3:]]  # after the three grey tracks
    assert widths[0] > 0 and widths[1] == 50 and widths[2] == 100  # 0 % still shows a stub
    assert [t.get_text() for t in tags.get_yticklabels()] == ["zero", "half", "all"]
    assert _texts(activity) == ["3", "1", "2"] and _texts(forecast) == ["1", "3"]  # counts on the bars
    for axes in (activity, forecast):
        ticks = [v for v in axes.get_yticks() if axes.get_ylim()[0] <= v <= axes.get_ylim()[1]]
        assert ticks and all(float(v).is_integer() for v in ticks), ticks  # whole answers and cards
    dates = [t.get_text() for t in activity.get_xticklabels()]
    assert dates[-1] == "Nov 30" and all(d.startswith("Nov ") for d in dates) and len(dates) >= 5
    assert forecast.get_xticklabels()[0].get_text() == "Today"
    line = trend.get_lines()[0].get_ydata()
    assert list(line[-3:]) == pytest.approx([100 * 2 / 3, 75.0, 50.0])  # right / answered, last 7 days
    assert _texts(mocks) == ["No mock exam handed in yet"]


async def test_an_english_chart_has_no_chinese_of_its_own(tmp_path):
    session = await run_session(tmp_path, "en")
    (chart,) = session.charts
    figure = MatplotlibCharts().figure(chart)
    words = [figure.get_suptitle()]
    for axes in figure.axes:
        words += [axes.get_title(loc="left"), *_texts(axes)]
        words += [t.get_text() for t in (*axes.get_xticklabels(), *axes.get_yticklabels())]
        legend = axes.get_legend()
        words += [t.get_text() for t in legend.get_texts()] if legend else []
    # The tag bars are named as the bank names its tags (the shipped bank: in Chinese, shown as
    # the bank has it in every language); nothing else of the chart is Chinese.
    tag_names = {bar.name for bar in chart.tags}
    assert tag_names and tag_names <= set(dict(session.bank.tag_names).values()), tag_names
    assert not [w for w in words if HAN.search(w) and w not in tag_names], words
    assert chart.days[-1] == day_label("en", LocalDays.at(session.now, "Europe/London").today)


@pytest.mark.parametrize(
    ("language", "weakest"), [("zh-CN", "联邦学习"), ("zh-TW", "聯邦學習"), ("en", "联邦学习")]
)
async def test_stats_names_tags_as_the_bank_does(tmp_path, language, weakest):
    """/stats' text and its chart's tag bars show the bank's display names (`tag_names:`), in the
    chat's script (traditional for zh-TW), never the slugs (federated-learning, moe, …)."""
    session = await run_session(tmp_path, language)
    shown = render_reply(session.reply)
    (chart,) = session.charts
    slugs = set(session.bank.tags)
    assert weakest in shown and weakest in {bar.name for bar in chart.tags}, shown
    assert not [word for word in slugs if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", shown)], shown
    assert not slugs & {bar.name for bar in chart.tags}


# ---------------------------------------------------------------- the console's file


def test_the_console_keeps_one_progress_chart_and_every_export(tmp_path):
    first = save_file(tmp_path, FileView("progress.png", b"old", image=True, latest=True))
    second = save_file(tmp_path, FileView("progress.png", b"new", image=True, latest=True))
    assert first == second == (tmp_path / "progress.png").resolve() and second.read_bytes() == b"new"
    exports = [save_file(tmp_path, FileView("mistakes.csv", b"x")) for _ in range(2)]
    assert [p.name for p in exports] == ["mistakes.csv", "mistakes-2.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mistakes-2.csv", "mistakes.csv", "progress.png"]


def test_day_starts_follow_the_zone_across_a_clock_change():
    days = LocalDays.at(datetime.fromisoformat("2026-03-29T12:00:00+00:00"), "Europe/London")
    yesterday, today, tomorrow = days.starts(-1, 2)[:3]
    assert today - yesterday == timedelta(hours=24)
    assert tomorrow - today == timedelta(hours=23)  # the clocks go forward at 01:00 that day
    assert tomorrow == datetime.fromisoformat("2026-03-29T23:00:00+00:00")  # midnight, summer time
