"""What issue 20 found on Telegram, each through the real PTB against the fake: a time zone that
is a tzdata folder or too long a name, a 309-digit deadline, a report id beyond SQLite's integers
are refusals in the chat's language naming the argument (they were IsADirectoryError, OSError,
OverflowError tracebacks and "something went wrong"); a callback query without its sender is
refused with one warning line; /help quiz and /help 练习 show one command."""

from __future__ import annotations

import html
import logging

import pytest

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_world import CallbackQueryState
from tests.test_telegram_harness import ANN, CAT, GROUP, TelegramHarness, round_of, tg_fixture  # noqa: F401

REPRODUCTIONS = [
    ("/tz Etc", "时区", "Etc/GMT"),
    ("/tz US", "时区", "US/"),
    ("/daily set 09:30 12h ml America/Argentina", "时区", "America/Argentina/Buenos_Aires"),
    ("/tz " + "Europe/" * 40 + "Paris", "时区", "Asia/Shanghai"),
    ("/daily set 09:30 " + "9" * 309, "截止", "12h"),
    ("/reports resolve 18446744073709551616", "编号", "2147483647"),
]


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize(("line", "arg", "hint"), REPRODUCTIONS)
async def test_issue_20_inputs_are_refusals_in_the_chat_language(
    tg: TelegramHarness, caplog: pytest.LogCaptureFixture, line: str, arg: str, hint: str
) -> None:
    await tg.start(language="zh-CN")
    caplog.set_level(logging.WARNING)
    sent = await tg.say(CAT.id, CAT, line)  # a Chinese client: the private chat speaks Chinese
    assert sent["text"].startswith(f"参数“{arg}”有误") and hint in sent["text"], sent["text"]
    assert "用法：" in sent["text"] and t("zh-CN", "error.internal") not in sent["text"]
    assert tracebacks(caplog) == []


async def test_a_click_without_its_sender_is_refused_in_one_line(
    tg: TelegramHarness, caplog: pytest.LogCaptureFixture
) -> None:
    server = tg.server
    app = await tg.start()
    await tg.say(GROUP, ANN, "/quiz single")
    question = server.last_message(GROUP.id)
    caplog.set_level(logging.WARNING)
    data = question.callback_data[0]
    payload = {"id": "4100000000001", "chat_instance": "ci", "data": data, "message": question.to_json()}
    state = CallbackQueryState("4100000000001", GROUP.id, question.message_id, data)
    server.callbacks[state.id] = state
    server.queue_update("callback_query", payload)  # no "from": Telegram never sends that
    answer = await server.wait_for_callback_answer("4100000000001")
    assert answer["text"] == t("en", "error.no_user")
    assert await app.store.round_answers(round_of(question)) == []
    lines = [r for r in caplog.records if r.name.startswith("studybot")]
    assert [(r.levelno, r.exc_info) for r in lines] == [(logging.WARNING, None)]
    server.fake_errors.clear()  # the forged update breaks the spec on purpose


@pytest.mark.parametrize(("language", "line", "shown", "not_shown"), [
    ("zh-CN", "/help quiz", ["/quiz 的用法", "[练习方式]", "顺序 | 背题", "单选 | 多选 | 判断 | 填空 | 简答"],
     ["/daily"]),
    ("zh-CN", "/help 练习", ["/quiz 的用法", "[题号]", "试卷或题库里的编号"], ["/daily"]),
    ("en", "/help quiz", ["How to use /quiz", "[practice]", "next | memorise", "single | multi"], ["/daily"]),
    ("en", "/help daily", ["/daily set <time>", "/daily off", "/daily show", "HH:MM"], ["/quiz"]),
])  # fmt: skip
async def test_help_for_one_command_shows_its_arguments_and_their_choices(
    tg: TelegramHarness, language: str, line: str, shown: list[str], not_shown: list[str]
) -> None:
    await tg.start(language=language)
    person = ANN if language == "en" else CAT
    text = html.unescape((await tg.say(person.id, person, line))["text"])
    for part in shown:
        assert part in text, (part, text)
    for part in not_shown:
        assert part not in text, (part, text)
