"""The application layer: catalog commands run for a caller, permission and scope checked once,
replies in the chat's language; the text layout every text platform shares."""

from __future__ import annotations

import re

import pytest

from bot.application.app import Application, HelpView
from bot.application.replies import DailyReply, TextView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.views.quiz import ContestStatusView, LeaderboardView, QuestionView, StatsView

PRIVATE = ChatRef(Platform.TELEGRAM, "10", ChatKind.PRIVATE, title="Ann")
GROUP = ChatRef(Platform.TELEGRAM, "-20", ChatKind.GROUP, title="study group")
ANN = UserRef(Platform.TELEGRAM, "10", "Ann")
BOB = UserRef(Platform.TELEGRAM, "11", "Bob")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
async def application(make_app):
    app = await make_app()
    return Application(app.quiz, app.dailies, app.contests)


async def test_quiz_posts_a_public_question_of_the_asked_type(application):
    reply = await application.run_text("/quiz judge", Caller(GROUP, ANN))
    assert isinstance(reply.view, QuestionView) and reply.public
    assert str(reply.view.qtype) == "judge"


async def test_admin_commands_are_refused_to_members_and_allowed_to_admins(application):
    refused = await application.run_text("/daily set 08:30", Caller(GROUP, BOB, admin=False))
    assert refused.view == TextView("Only admins can use this command.")
    allowed = await application.run_text("/daily set 08:30 30m", Caller(GROUP, ANN, admin=True))
    assert isinstance(allowed.view, DailyReply) and allowed.view.daily is not None
    assert allowed.view.daily.local_time == "08:30" and allowed.view.daily.deadline_seconds == 1800
    shown = await application.run_text("/daily", Caller(GROUP, BOB))
    assert "08:30" in render_reply(shown)


async def test_in_a_private_chat_its_person_is_the_admin(application):
    reply = await application.run_text("/daily 07:15", Caller(PRIVATE, ANN))
    assert isinstance(reply.view, DailyReply) and reply.view.daily.local_time == "07:15"


async def test_scope_private_only(application):
    reply = await application.run_text("/start", Caller(GROUP, ANN, admin=True))
    assert reply.view == TextView("This command works in a private chat only.")


async def test_language_switch_answers_in_the_new_language(application):
    reply = await application.run_text("/lang zh", Caller(PRIVATE, ANN))
    assert reply.language == "zh-CN" and reply.view == TextView("语言已设为简体中文。")
    refused = await application.run_text("/contest start -1 x", Caller(PRIVATE, ANN))
    text = render_reply(refused)
    assert text == "参数“题数”有误：应为 1 到 100 之间的整数。\n用法：/contest 开始 [题数] [秒数] [标签]"


async def test_core_refusals_come_back_as_text(application):
    reply = await application.run_text("/quiz nosuchtag", Caller(PRIVATE, ANN))
    assert isinstance(reply.view, TextView) and "nosuchtag" in reply.view.text
    stopped = await application.run_text("/contest stop", Caller(PRIVATE, ANN))
    assert stopped.view == TextView("No contest is running.")


async def test_boards_stats_and_status(application):
    await application.run_text("/quiz", Caller(GROUP, ANN))
    board = await application.run_text("/leaderboard week", Caller(GROUP, ANN))
    assert isinstance(board.view, LeaderboardView) and board.public
    stats = await application.run_text("/stats", Caller(GROUP, ANN))
    assert isinstance(stats.view, StatsView) and not stats.public
    status = await application.run_text("/contest", Caller(GROUP, ANN))
    assert isinstance(status.view, ContestStatusView) and not status.view.running


async def test_help_lists_what_the_chat_allows_with_admin_commands_apart(application):
    group = await application.run_text("/help", Caller(GROUP, ANN))
    private = await application.run_text("/help", Caller(PRIVATE, ANN))
    assert isinstance(group.view, HelpView) and isinstance(private.view, HelpView)
    group_usages = {row.usage for row in group.view.rows}
    assert "/start" not in group_usages and "/start" in {row.usage for row in private.view.rows}
    text = render_reply(group)
    assert "/contest start [questions] [seconds] [tag]" in text
    assert text.index("Admin commands") < text.index("/contest start")
    await application.run_text("/lang zh", Caller(PRIVATE, ANN))
    chinese = render_reply(await application.run_text("/help", Caller(PRIVATE, ANN)))
    assert CJK.search(chinese) and "/quiz [练习方式] [题号] [题型] [标签]" in chinese
