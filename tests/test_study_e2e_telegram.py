"""The study tools end to end on Telegram (real python-telegram-bot against the fake Bot API,
under a ManualClock), in a Chinese private chat: a mock exam across a restart keeps its answers
and its clock, a short mock on the real clock and the real APScheduler reminds and hands in by
itself with nothing typed, a wrong answer goes into /mistakes and leaves after two right ones, /review serves
a due card and reschedules it, /stats sends a PNG whose Chinese labels are drawn, and a /report
in a group reaches its admin, who resolves it, and the reporter hears back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.locales.i18n import t
from bot.views.quiz_text import local_time
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeMessage, FakeUser
from tests.short_mock import ITEMS, STUDY, TIMEOUT, TOTAL, with_short_paper
from tests.study_e2e import assert_cjk_chart
from tests.test_telegram_harness import (
    BOB,
    BOSS,
    GROUP,
    GROUP_REF,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
    tg_live_fixture,  # noqa: F401
)
from tests.waits import HANG

ZH = "zh-CN"
LI = FakeUser(21, "小李", "xiaoli", "zh-hans")  # her Telegram speaks Chinese: so does her chat
PRIVATE = ChatRef(Platform.TELEGRAM, str(LI.id), ChatKind.PRIVATE)


async def question(tg: TelegramHarness, line: str) -> FakeMessage:
    """Li asks for a question in her private chat; the question message the bot sends."""
    tg.server.user_message(LI.id, LI, line)
    return await tg.question(LI.id)


async def click_answer(tg: TelegramHarness, message: FakeMessage, right: bool) -> str:
    """Li presses the right (or a wrong) button under a question; the toast she sees (the
    receipt that follows in the chat is checked here)."""
    assert tg.app is not None
    round_ = await tg.app.store.get_round(round_of(message))
    assert round_ is not None
    answer = tg.bank.question(round_.question_id).answer
    choices = [data.rsplit(":", 1)[1] for data in message.callback_data if data.startswith("a1:")]
    choice = answer[0] if right else next(c for c in choices if c not in answer)
    toast = await tg.click(LI.id, LI, message.message_id, f"a1:{round_of(message)}:{choice}")
    receipt = await tg.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == LI.id)
    assert t(ZH, "receipt.correct" if right else "receipt.wrong", points=1)[:2] in receipt["text"]
    return toast


async def notice(tg: TelegramHarness, chat_id: int, text: str, timeout: float = HANG) -> dict[str, Any]:
    """The bot's next message in `chat_id` with `text` in it (whatever else it sent meanwhile)."""
    return await tg.server.wait_for_request(
        "sendMessage", lambda p: p["chat_id"] == chat_id and text in p["text"], timeout=timeout
    )


async def test_a_timed_mock_reminds_and_hands_in_by_itself_on_the_real_clock(tg_live: TelegramHarness):
    live = tg_live
    live.bank = with_short_paper(live.bank)  # three seconds
    app = await live.start(language=ZH, study=STUDY)
    started = await live.say(LI.id, LI, "/mock")
    assert started["text"].startswith("<b>" + t(ZH, "mock.started", title="Sample bank"))
    await live.say(LI.id, LI, "/mock 1 A")  # one answer (a blank paper is no result), then nothing
    (mock,) = await app.storage.mocks.open_mocks()
    reminder = await notice(live, LI.id, "⏰", timeout=TIMEOUT)
    assert reminder["text"] == t(ZH, "mock.reminder", count=1, unanswered=ITEMS - 1)
    handed_in = await notice(live, LI.id, "⏰", timeout=TIMEOUT)
    assert datetime.now(UTC) >= mock.ends_at  # at the deadline, not before
    # A scores 0 or 1 point: the paper's options are shuffled
    assert handed_in["text"] in {t(ZH, "mock.timed_out", score=s, total=TOTAL) for s in ("0", "1")}
    done = await app.storage.mocks.get_mock(mock.id)
    assert done is not None and done.submitted_at == mock.ends_at


async def test_a_blank_timed_mock_is_no_result(tg_live: TelegramHarness):
    """Time up on a paper with nothing answered: the learner is told there is no result."""
    live = tg_live
    live.bank = with_short_paper(live.bank)
    app = await live.start(language=ZH, study=STUDY)
    await live.say(LI.id, LI, "/mock")
    (mock,) = await app.storage.mocks.open_mocks()
    await notice(live, LI.id, "⏰", timeout=TIMEOUT)  # the reminder
    told = await notice(live, LI.id, "⏰", timeout=TIMEOUT)
    assert told["text"] == t(ZH, "mock.time_up_empty")
    assert await app.storage.mocks.history(mock.user_id, 10) == []  # nothing kept in the history


async def test_a_mock_keeps_its_answers_and_its_clock_across_a_restart(tg: TelegramHarness) -> None:
    await tg.start(language=ZH)
    started = await tg.say(LI.id, LI, "/mock start ordered")  # the paper as the bank has it
    assert started["text"].startswith("<b>" + t(ZH, "mock.started", title="Sample bank"))
    assert "0:16:00" in started["text"]  # the sample bank's paper: 16 points, a minute a point
    saved = await tg.say(LI.id, LI, "/mock 1 B")
    assert saved["text"].startswith(t(ZH, "mock.kept", number=1))
    await tg.advance(4 * 60)
    await tg.stop()
    tg.clock.advance(60)  # the bot is down for a minute: the paper's clock runs on
    await tg.start()
    # /mock again resumes the same paper; the Chinese alias comes as plain text (Telegram marks
    # only Latin commands) and must not be taken for an answer to the open item.
    twice = await tg.say(LI.id, LI, "/模拟考试")
    assert t(ZH, "mock.resumed", title="Sample bank") in twice["text"] and "0:11:00" in twice["text"]
    sheet = await tg.say(LI.id, LI, "/mock sheet")
    assert "1/5" in sheet["text"] and "0:11:00" in sheet["text"]
    assert t(ZH, "mock.sheet_blank", numbers="2–5") in sheet["text"]
    shown = await tg.say(LI.id, LI, "/mock go 1")
    assert t(ZH, "mock.your_answer", answer="B") in shown["text"]
    assert (await tg.say(LI.id, LI, "/mock 3 对"))["text"].startswith(t(ZH, "mock.kept", number=3))

    await tg.advance(60)  # 10 minutes before the end, by the clock started before the restart
    reminder = await notice(tg, LI.id, "⏰")
    assert reminder["text"] == t(ZH, "mock.reminder", count=10, unanswered=3)
    await tg.advance(10 * 60)
    handed_in = await notice(tg, LI.id, "⏰")
    assert handed_in["text"] == t(ZH, "mock.timed_out", score="2", total="16")
    report = await tg.say(LI.id, LI, "/mock report")
    assert t(ZH, "mock.score", score="2", total="16") in report["text"], report["text"]
    assert t(ZH, "mock.time_used", minutes=16, seconds=0) in report["text"], report["text"]


async def test_mistakes_review_stats_and_a_report_answered(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start(language=ZH)
    wrong = await question(tg, "/quiz single")
    assert await click_answer(tg, wrong, right=False) == t(ZH, "receipt.wrong")
    listed = await tg.say(LI.id, LI, "/错题本")
    assert "2+2=?" in listed["text"] and t(ZH, "mistakes.misses", count=1) in listed["text"]
    for turn in range(2):
        await tg.advance(60)
        practice = await question(tg, "/mistakes practice")
        assert "2+2=?" in practice.text
        if turn == 0:  # the /quiz run it replaced: its summary, a message of its own above it
            summary = await tg.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == LI.id)
            title = "📋 练习小结 · 专项练习 · 单选题\n作答 1 题 · 答对 0 题"
            assert summary["text"].startswith(title), summary
            assert t(ZH, "drill.summary_how") not in summary["text"]
        assert (await click_answer(tg, practice, right=True)).startswith("✅")
    await tg.settle()
    assert (await tg.say(LI.id, LI, "/mistakes"))["text"] == t(ZH, "mistakes.none")

    # /review: the card is due later (two right answers in a row); when it is due it is served,
    # and answering it moves its due time on.
    user_id = await app.quiz.user_id(UserRef(Platform.TELEGRAM, str(LI.id), "小李"))
    waiting = await tg.say(LI.id, LI, "/review")
    first_due = await app.storage.study.next_due(user_id, "sample")
    assert first_due is not None and first_due > tg.clock.now()
    zone = (await app.quiz.chat(PRIVATE)).settings.timezone
    assert waiting["text"] == t(ZH, "review.done", when=local_time(first_due, zone))
    started = tg.clock.now()
    await tg.advance((first_due - started).total_seconds() + 1)
    due = await question(tg, "/review")
    assert "2+2=?" in due.text
    replaced = await tg.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == LI.id)
    assert replaced["text"].startswith("📋 练习小结 · 错题练习\n")  # the run /review replaced
    await click_answer(tg, due, right=True)
    done = await tg.say(LI.id, LI, "/review")
    next_due = await app.storage.study.next_due(user_id, "sample")
    assert next_due is not None and next_due - tg.clock.now() > first_due - started
    assert done["text"] == t(ZH, "review.done", when=local_time(next_due, zone))

    # /stats: the text, then the chart as a photo, its labels in Chinese and drawn.
    stats = await tg.say(LI.id, LI, "/stats")
    photo = await server.wait_for_request("sendPhoto", lambda p: p["chat_id"] == LI.id)
    assert t(ZH, "progress.coverage", done=1, total=5) in stats["text"]
    assert photo["caption"] == t(ZH, "progress.chart_title")
    sent = next(m for m in reversed(server.messages_in(LI.id)) if m.params is photo)
    assert sent.file is not None and sent.file.kind == "photo"
    assert_cjk_chart(sent.file.data, ZH)

    # /report in the group where the question was asked: its admin lists and resolves it with a
    # note, and the reporter hears back there.
    server.set_member_status(GROUP.id, BOSS, "creator")
    server.set_member_status(GROUP.id, BOB, "member")
    server.user_message(GROUP, BOB, "/quiz single")
    await tg.question(GROUP.id)
    lang = (await app.quiz.chat(GROUP_REF)).settings.language
    thanks = await tg.say(GROUP, BOB, "/report 选项 D 应该是 4")
    assert thanks["text"] == t(lang, "report.thanks", id=1, number=1)
    refused = await tg.say(GROUP, BOB, "/reports")
    assert refused["text"] == t(lang, "error.not_admin")
    listed = await tg.say(GROUP, BOSS, "/reports")
    assert "#1" in listed["text"] and "Bob" in listed["text"] and "选项 D 应该是 4" in listed["text"]
    server.user_message(GROUP, BOSS, "/reports resolve 1 已改正题库")
    await notice(tg, GROUP.id, t(lang, "reports.resolved", id=1))  # the admin's answer
    await notice(tg, GROUP.id, t(lang, "report.resolved_named", name="Bob", id=1, number=1,
                                 note="已改正题库"))  # Bob's, named
    assert (await tg.say(GROUP, BOSS, "/reports"))["text"] == t(lang, "reports.none")


async def test_the_drilling_loop_next_button_place_and_summary(tg: TelegramHarness) -> None:
    """After a graded answer the receipt carries 下一题 ▶; pressing it asks the next question in
    order (its place shown), typing 下一题 does too without being graded, chit-chat after a
    graded answer is not graded, and /quiz 结束 gives the run's summary."""
    server = tg.server
    app = await tg.start(language=ZH)
    first = await question(tg, "/quiz 1")
    assert t(ZH, "question.place", n=1, total=5) in first.text
    await click_answer(tg, first, right=False)
    receipt = server.last_message(LI.id)
    rid = round_of(first)  # a wrong answer: 下一题 ▶, and the buttons that tag the mistake's cause
    causes = [f"c1:{rid}:{c}" for c in ("concept", "careless", "unseen", "misremembered")]
    assert receipt.callback_data == [f"n1:{rid}", *causes]
    assert receipt.buttons[0]["text"] == t(ZH, "button.next") == "下一题 ▶"
    # chit-chat after the graded answer: a hint, not a second answer
    chat = await tg.say(LI.id, LI, "好吧")
    assert chat["text"] == t(ZH, "drill.answered_hint")
    await tg.click(LI.id, LI, receipt.message_id, f"n1:{round_of(first)}")
    second = await tg.question(LI.id)
    assert t(ZH, "question.place", n=2, total=5) in second.text and "Primes?" in second.text
    await server.wait_for_request("editMessageReplyMarkup", lambda p: p["message_id"] == receipt.message_id)
    assert receipt.reply_markup is None  # pressed once: it cannot ask twice
    server.user_message(LI.id, LI, "下一题")  # typed: the next question, not an answer to this one
    third = await tg.question(LI.id)
    assert t(ZH, "question.place", n=3, total=5) in third.text
    # ... with the skipped one's answer and explanation first, a message of its own
    skipped = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == LI.id)
    assert skipped["text"] == "⏭ 跳过了第 2 题（不计分，不记错题）。答案：A、B、D\n解析：4 is not prime."
    assert await app.store.round_answers(round_of(second)) == []
    summary = await tg.say(LI.id, LI, "/quiz 结束")
    title = t(ZH, "drill.summary_title", mode=t(ZH, "drill.mode.sequential"))
    assert summary["text"].startswith(f"<b>{title}</b>")
    assert t(ZH, "drill.summary_counts", answered=1, right=0, pct="0%") in summary["text"]
    assert t(ZH, "drill.summary_mistakes", count=1) in summary["text"]
    # the place is kept: the next sequential question is 4
    fourth = await question(tg, "/quiz next")
    assert t(ZH, "question.place", n=4, total=5) in fourth.text
