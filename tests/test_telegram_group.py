"""Telegram groups end to end: an admin's daily with three members answering (a double click, a
tampered button), the reveal at the deadline, the leaderboard; on the real clock and APScheduler,
a daily set seconds ahead posted and revealed by itself, and admin-only contests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.domain.clock import zone
from bot.domain.questions import QuestionType
from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeMessage
from tests.test_telegram_harness import (
    ANN,
    BOB,
    BOSS,
    CAT,
    GROUP,
    GROUP_REF,
    TelegramHarness,
    buttons,
    round_of,
    tg_fixture,  # noqa: F401
    tg_live_fixture,  # noqa: F401
)

# The real contest timer, short: long enough for both players' clicks to arrive on a loaded machine.
SECONDS, PAUSE = 3, 0.2
# A daily on the real clock: set this many seconds ahead (HH:MM:SS), closing this long after.
LEAD, DEADLINE = 2, 2


async def test_group_daily_answers_reveal_and_leaderboard(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    for user in (ANN, BOB, CAT):
        server.set_member_status(GROUP.id, user, "member")

    reply = await tg.say(GROUP, BOSS, "/daily set 09:30 30m physics")
    assert reply["text"].startswith("Daily question set: every day at 09:30 (Asia/Shanghai)")
    assert reply["reply_parameters"]["message_id"] > 0  # in a group, a reply to the command
    assert [p["user_id"] for p in server.calls("getChatMember")] == [BOSS.id]

    await tg.advance(30 * 60)
    question = await tg.question(GROUP.id)
    assert question.text.startswith("Daily question · Q3 · True or false")
    assert "Deadline: 2026-12-02 10:00 CST" in question.text
    round_id = round_of(question)
    true, false = f"a1:{round_id}:true", f"a1:{round_id}:false"

    assert await tg.click(GROUP, ANN, question.message_id, true) == t("en", "receipt.recorded", choice="True")
    tg.clock.advance(5)
    assert await tg.click(GROUP, BOB, question.message_id, true) == t("en", "receipt.recorded", choice="True")
    assert await tg.click(GROUP, BOB, question.message_id, false) == t(
        "en", "receipt.duplicate", choice="True"
    )
    closed = t("en", "receipt.closed")
    for tampered in (f"a1:{round_id}:Z", f"a1:{round_id + 1}:true", f"t1:{round_id}:A", "a1:1:true;drop"):
        assert await tg.click(GROUP, CAT, question.message_id, tampered, check=False) == closed
    tg.clock.advance(5)
    toast = await tg.click(GROUP, CAT, question.message_id, false)
    assert toast == t("en", "receipt.recorded", choice="False")
    assert question.reply_markup is not None
    count = await server.wait_for_request("editMessageText", lambda p: "answered so far" in p["text"])
    assert count["text"].endswith("<i>1 answered so far</i>")  # the first answer shows at once
    assert count["reply_markup"] == question.params["reply_markup"]  # the buttons stay

    await tg.advance(30 * 60)
    await tg.reveal(question)
    assert question.text.startswith("Answer revealed")
    assert "Correct answer: True" in question.text
    assert "Answers: True✓ 2 · False 1 (3 in all)" in question.text
    assert "Right: Ann, Bob" in question.text
    assert list(buttons(question)) == ["☆ Star"]  # only the ☆ stays under the reveal

    board = await tg.say(GROUP, CAT, "/leaderboard")
    lines = server.last_message(GROUP.id).text.splitlines()
    assert lines == [
        "Leaderboard (all time)",
        "1. Ann — 1 pt (1/1)",
        "2. Bob — 1 pt (1/1)",
        "3. Cat <&> — 0 pt (0/1)",
    ]
    assert "Cat &lt;&amp;&gt;" in board["text"]  # the name escaped for HTML
    week = await tg.say(GROUP, ANN, "/leaderboard week")
    assert week["text"].startswith("<b>Leaderboard (this week)</b>")
    chat = await app.store.find_chat("telegram", str(GROUP.id))
    assert chat is not None and len(await app.store.round_answers(round_id)) == 3


async def test_a_daily_set_seconds_ahead_is_posted_and_revealed_by_itself(tg_live: TelegramHarness) -> None:
    """On the real clock and the real APScheduler, with nothing typed after the command: the daily
    is posted at its local time and turned into its reveal at the deadline."""
    tg, server = tg_live, tg_live.server
    await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    fire_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=LEAD + 1)
    local = fire_at.astimezone(zone("Asia/Shanghai"))  # the group's timezone (the default)
    reply = await tg.say(GROUP, BOSS, f"/daily set {local:%H:%M:%S} {DEADLINE}s physics")
    said = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"  # 04:49, not 04:49:00, one time in 60
    assert reply["text"].startswith(f"Daily question set: every day at {said} (Asia/Shanghai)")
    question = await tg.question(GROUP.id, timeout=LEAD + 10)
    assert datetime.now(UTC) >= fire_at  # at its time, not before
    assert question.text.startswith("Daily question · Q3 · True or false")
    toast = await tg.click(GROUP, ANN, question.message_id, f"a1:{round_of(question)}:true")
    assert toast == t("en", "receipt.recorded", choice="True")
    await tg.reveal(question, timeout=DEADLINE + 10)
    assert datetime.now(UTC) >= fire_at + timedelta(seconds=DEADLINE)
    assert "Correct answer: True" in question.text and "Right: Ann" in question.text


async def answer(tg: TelegramHarness, user, message: FakeMessage, right: bool) -> str:
    """Answer a contest question (found by its number in the bank) right or wrong; the toast."""
    number = int(message.text.split(" · Q")[1].split(" ")[0])
    question = next(q for q in tg.bank.questions if q.number == number)
    round_id = round_of(message)
    if question.type is QuestionType.MULTI:
        letters = question.answer if right else ("C",)
        for letter in letters:
            await tg.click(GROUP, user, message.message_id, f"t1:{round_id}:{letter}")
        return await tg.click(GROUP, user, message.message_id, f"s1:{round_id}")
    token = question.answer[0]
    if not right:
        token = {"true": "false", "false": "true"}.get(token, "A" if token != "A" else "C")
    return await tg.click(GROUP, user, message.message_id, f"a1:{round_id}:{token}")


async def test_contest_is_for_admins_and_runs_to_the_results(tg_live: TelegramHarness) -> None:
    """On the real clock and the real APScheduler: the first question's timer, the pauses and the
    steps after them all fire by themselves."""
    tg = tg_live
    server = tg.server
    app = await tg.start(contest={"pause_seconds": PAUSE})
    server.set_member_status(GROUP.id, BOSS, "administrator")

    refused = await tg.say(GROUP, BOB, f"/contest start 3 {SECONDS}")
    assert refused["text"] == t("en", "error.not_admin")
    assert not (await app.contests.status(GROUP_REF)).running

    server.user_message(GROUP, BOSS, f"/contest start 3 {SECONDS}")
    started = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id)
    assert started["text"] == t("en", "contest.started", count=3, seconds=SECONDS)
    running = await server.wait_for_request(  # the reply to the admin's command
        "sendMessage", lambda p: p["chat_id"] == GROUP.id and p["text"].startswith("Contest running")
    )
    assert running["reply_parameters"]["message_id"]
    for position in range(1, 4):
        message = await tg.question(GROUP.id)  # after the pause, by itself
        assert f"Question {position} of 3" in message.text and f"{SECONDS} seconds" in message.text
        toast = await answer(tg, ANN, message, right=True)
        assert toast == t("en", "receipt.recorded", choice=_choice(message))
        await answer(tg, BOB, message, right=position == 2)
        # Nobody has joined before the first question: it runs its full time on the timer; the
        # later ones close as soon as both players have answered.
        await tg.reveal(message, timeout=SECONDS + 10)
        standings = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id)
        assert standings["text"].startswith(f"<b>Standings after {position} of 3</b>")
    final = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id)
    assert final["text"].startswith("<b>🏆 The contest is over</b>")
    final = server.last_message(GROUP.id).text.splitlines()
    assert final[1].startswith("🥇 1. Ann — ") and final[1].endswith("3/3 right (100%)")
    assert final[2].startswith("🥈 2. Bob — ") and final[2].endswith("1/3 right (33%)")
    status = await tg.say(GROUP, BOSS, "/contest status")
    questions = t("en", "count.questions", count=3)
    assert status["text"] == t("en", "contest.status_done", questions=questions, count=2)
    assert status["text"] == "The last contest is over: 3 questions, 2 players."
    assert len(server.calls("getChatMember")) == 2  # Bob once, the admin once: then cached


def _choice(message: FakeMessage) -> str:
    return "True" if "True or false" in message.text else ("A, B, D" if "Multiple" in message.text else "B")


async def test_the_live_answer_count_is_throttled_and_stops_at_the_reveal(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start(live_count_seconds=0.3)
    server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.say(GROUP, BOSS, "/daily set 09:30 30m physics")
    await tg.advance(30 * 60)
    question = await tg.question(GROUP.id)
    true = f"a1:{round_of(question)}:true"
    for user in (ANN, BOB, CAT, BOB):
        await tg.click(GROUP, user, question.message_id, true)
    await server.wait_for_request("editMessageText", lambda p: p["text"].endswith("3 answered so far</i>"))
    counts = [p["text"].rsplit("\n", 1)[1] for p in server.calls("editMessageText")]
    assert counts[0] == "<i>1 answered so far</i>" and len(counts) <= 3  # the rest coalesced
    await tg.advance(30 * 60)
    await tg.reveal(question)
    await tg.app.quiz.flush()
    assert server.calls("editMessageText")[-1]["text"].startswith("<b>Answer revealed")
    assert question.text.startswith("Answer revealed")
