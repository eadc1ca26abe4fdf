"""Error reports (纠错) that reach someone, end to end on Telegram (the real python-telegram-bot
against the fake Bot API): `/report N reason` files against question N; a report made in a
private chat reaches the operators the config names (`admins:`) in private and in their
/reports, and not the reporter's own /reports; an uploaded bank's reports reach the admin who
uploaded it; the resolution answers the report message in the chat it was made in, naming the
reporter. Also the zh-TW /start greeting, whose bank title is in traditional characters."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from bot.locales.i18n import bank_text, t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.fakes.telegram_server import FakeTelegramServer
from tests.test_telegram_harness import BOB, BOSS, GROUP, TelegramHarness, tg_fixture  # noqa: F401

ZH = "zh-CN"
LI = FakeUser(21, "小李", "xiaoli", "zh-hans")  # her Telegram speaks Chinese: so does her chat
UPLOADS = Path(__file__).parent / "banks" / "upload"


async def sent(tg: TelegramHarness, chat_id: int, text: str) -> dict[str, Any]:
    """The bot's next message in `chat_id` with `text` in it (whatever else it sent meanwhile)."""
    return await tg.server.wait_for_request(
        "sendMessage", lambda p: p["chat_id"] == chat_id and text in p["text"]
    )


def said(tg: TelegramHarness, chat_id: int, user: FakeUser, text: str) -> int:
    """A user writes `text`; the id of their message (what a reply names)."""
    update = tg.server.user_message(chat_id, user, text)
    return int(update["message"]["message_id"])


def replied_to(params: dict[str, Any]) -> int | None:
    reply = params.get("reply_parameters")
    return int(reply["message_id"]) if reply else None


async def test_report_n_files_against_question_n_and_a_missing_n_is_refused_in_chinese(
    tg: TelegramHarness,
) -> None:
    app = await tg.start(language=ZH)
    tg.server.user_message(LI.id, LI, "/quiz 1")
    await tg.question(LI.id)  # question 1 is the last one shown
    thanks = await tg.say(LI.id, LI, "/report 3 天空不总是蓝的")
    assert thanks["text"] == t(ZH, "report.thanks", id=1, number=3)
    report = await app.storage.reports.get_report(1)
    assert report is not None and report.question_id == "s-3" and report.text == "天空不总是蓝的"
    refused = await tg.say(LI.id, LI, "/report 99 题目有误")
    assert refused["text"] == t(ZH, "report.no_such_number", number=99, first=1, last=5)
    # Without a number: the question last shown, as before; a reason that starts with a word.
    assert (await tg.say(LI.id, LI, "/纠错 选项 D 应该是 4"))["text"] == t(
        ZH, "report.thanks", id=2, number=1
    )


async def test_a_private_report_reaches_the_operator_and_the_answer_names_the_reporter(
    tg: TelegramHarness,
) -> None:
    app = await tg.start(language=ZH, admins={"telegram": [BOSS.id]})
    await tg.say(BOSS.id, BOSS, "/start")  # the operator has a private chat with the bot
    tg.server.user_message(LI.id, LI, "/quiz 1")
    await tg.question(LI.id)
    report_message = said(tg, LI.id, LI, "/report 选项 D 应该是 4")
    assert (await sent(tg, LI.id, "#1"))["text"] == t(ZH, "report.thanks", id=1, number=1)

    told = await sent(tg, BOSS.id, "#1")  # the operator hears of it in private, in his chat's language
    title = bank_text("en", tg.bank.title)
    assert told["text"] == t("en", "report.owner_notice_private", id=1, number=1, bank=title, reporter="小李",
                             chat="", text="选项 D 应该是 4")  # fmt: skip

    # In her own private chat she is its admin, not the bank's: her report is not hers to close.
    assert (await tg.say(LI.id, LI, "/reports"))["text"] == t(ZH, "reports.none")
    assert (await tg.say(LI.id, LI, "/reports resolve 1"))["text"] == t(ZH, "reports.not_open", id=1)
    listed = await tg.say(BOSS.id, BOSS, "/reports")
    assert "#1" in listed["text"] and "小李" in listed["text"] and "选项 D 应该是 4" in listed["text"]

    tg.server.user_message(BOSS.id, BOSS, "/reports resolve 1 已改正题库")
    await sent(tg, BOSS.id, t("en", "reports.resolved", id=1))
    answer = await sent(tg, LI.id, "#1")
    assert answer["text"] == t(ZH, "report.resolved_named", name="小李", id=1, number=1, note="已改正题库")
    assert replied_to(answer) == report_message
    assert (await tg.say(BOSS.id, BOSS, "/reports"))["text"] == t("en", "reports.none")
    assert (await app.storage.reports.get_report(1)).state == "resolved"  # type: ignore[union-attr]


async def test_a_resolution_in_a_group_answers_the_report_and_names_the_reporter(tg: TelegramHarness) -> None:
    tg.server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.start(language="en")
    tg.server.user_message(GROUP, BOB, "/quiz 2")
    await tg.question(GROUP.id)
    report_message = said(tg, GROUP.id, BOB, "/report 2 C is prime too?")
    assert (await sent(tg, GROUP.id, "#1"))["text"] == t("en", "report.thanks", id=1, number=2)
    listed = await tg.say(GROUP, BOSS, "/reports")
    assert "#1" in listed["text"] and "Bob" in listed["text"]
    tg.server.user_message(GROUP, BOSS, "/reports dismiss 1 4 is not prime")
    await sent(tg, GROUP.id, t("en", "reports.dismissed", id=1))
    answer = await sent(tg, GROUP.id, "your report #1")
    assert answer["text"] == t(
        "en", "report.dismissed_named", name="Bob", id=1, number=2, note="4 is not prime"
    )
    assert replied_to(answer) == report_message


async def test_an_uploaded_banks_reports_reach_the_admin_who_uploaded_it(tg: TelegramHarness) -> None:
    ada = FakeUser(30, "Ada", "ada", "en")  # an operator: she looks after the configured banks only
    tg.server.set_member_status(GROUP.id, BOSS, "administrator")
    await tg.start(language="en", admins={"telegram": [ada.id]})
    await tg.say(BOSS.id, BOSS, "/start")
    await tg.say(ada.id, ada, "/start")
    tg.server.user_document(
        GROUP, BOSS, "physics.csv", (UPLOADS / "physics.csv").read_bytes(), "/bank import"
    )
    await sent(tg, GROUP.id, "physics.csv")
    assert "physics" in (await tg.say(GROUP, BOSS, "/bank confirm"))["text"]
    tg.server.user_message(GROUP, BOB, "/quiz 1")
    await tg.question(GROUP.id)
    await tg.say(GROUP, BOB, "/report 1 the unit is wrong")
    told = await sent(tg, BOSS.id, "#1")
    assert "the unit is wrong" in told["text"] and "Bob" in told["text"] and GROUP.title in told["text"]
    listed = await tg.say(BOSS.id, BOSS, "/reports")  # in private too: he uploaded it
    assert "#1" in listed["text"] and "the unit is wrong" in listed["text"]
    assert (await tg.say(ada.id, ada, "/reports"))["text"] == t("en", "reports.none")
    assert not [p for p in tg.server.calls("sendMessage") if p["chat_id"] == ada.id and "#1" in p["text"]]


async def test_the_zh_tw_start_greeting_shows_the_bank_title_in_traditional_characters(
    telegram_server: FakeTelegramServer,  # noqa: F811
    tmp_path: Path,
    bank,
    clock,
) -> None:
    chinese = dataclasses.replace(bank, title="人工智能训练师题库")
    tg = TelegramHarness(telegram_server, tmp_path, chinese, clock)
    mei = FakeUser(22, "美", "mei", "zh-hant")
    try:
        await tg.start(language="zh-TW")
        greeting = await tg.say(mei.id, mei, "/start")
        assert "「" + bank_text("zh-TW", chinese.title) + "」" in greeting["text"], greeting["text"]
        assert "訓練師題庫" in greeting["text"] and "训练师题库" not in greeting["text"]
    finally:
        await tg.stop()
