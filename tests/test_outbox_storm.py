"""A long 429 storm on every post and edit while a daily closes and a contest runs: afterwards
every reveal, contest step and standing is posted, in order, once, no question keeps its buttons,
and a contest question held back by the storm is posted and gets its whole time from its post
(python-telegram-bot against the fake Telegram server)."""

from __future__ import annotations

import asyncio

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.test_telegram_harness import (
    BOSS,
    GROUP,
    TelegramHarness,
    _is_question,
    tg_fixture,  # noqa: F401
)

POSTS_AND_EDITS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")
REVEAL = "<b>" + t("en", "reveal.title")
PLAYER = FakeUser(20, "Player", "player", "en")


def kind_of(text: str) -> str:
    if text.startswith(REVEAL) or t("en", "reveal.title") in text.split("\n")[0]:
        return "reveal"
    if "Standings after" in text:
        return "standings " + text.split("Standings after ")[1].split(" ")[0]
    if t("en", "standings.final") in text:
        return "final"
    return "other"


async def test_a_three_minute_storm_loses_nothing_and_keeps_the_order(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start(max_retries=0)  # every 429 goes back to the outbox
    server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.say(GROUP, BOSS, "/daily set 09:30 150s")
    await tg.advance(30 * 60)
    daily = await tg.question(GROUP.id)
    await tg.say(GROUP, BOSS, "/contest start 3 20")
    first = await tg.question(GROUP.id)
    storm_from = len(server.log)

    server.storm(*POSTS_AND_EDITS, retry_after=1)
    for _ in range(18):  # three minutes: the first question and the daily close
        await tg.advance(10)
    failed = [e for e in server.log[storm_from:] if e.status == 429]
    assert failed, "the storm hit nothing"
    owed = await app.storage.outbox.pending_posts()  # what an operator's `studybot outbox` lists
    # The second question, never posted, waits with its round open: its time counts from its post.
    assert [p.what for p in owed] == ["reveal", "standings", "question", "reveal"]
    server.calm()
    async with asyncio.timeout(30):
        await app.outbox.settled()
    assert await app.storage.outbox.pending_posts() == []
    [second] = [
        m for m in server.messages_in(GROUP.id)
        if m.message_id not in (daily.message_id, first.message_id) and _is_question(m.text)
    ]  # fmt: skip
    # Answered 15 s after it was posted (minutes after it was asked): still open, and scored
    # by the time since its post, Kahoot's way: round(1000 × (1 − 15/20/2)) = 625.
    await tg.advance(15)
    choice = next(d for d in second.callback_data if d.startswith("a1:"))
    await tg.click(GROUP, PLAYER, second.message_id, choice)
    for _ in range(8):  # the second question's end, the pause, the third question
        await tg.advance(10)
    async with asyncio.timeout(30):
        await app.outbox.settled()
    assert await app.storage.outbox.pending_posts() == []

    delivered = [
        e for e in server.log[storm_from:] if e.ok and e.method in ("sendMessage", "editMessageText")
    ]
    kinds = [kind_of(e.params["text"]) for e in delivered if kind_of(e.params["text"]) != "other"]
    # Each contest step once, in order; the daily's reveal (owed after the second question).
    assert kinds == [
        "reveal", "standings 1", "reveal", "reveal", "standings 2", "reveal", "standings 3", "final",
    ]  # fmt: skip
    edits = [e.params["message_id"] for e in delivered if e.method == "editMessageText"]
    assert first.message_id in edits and daily.message_id in edits and second.message_id in edits
    # The questions posted after the storm: the second (late, given its whole time) and the third.
    assert len([e for e in delivered if e.method == "sendMessage" and _is_question(e.params["text"])]) == 2
    standings = [e.params["text"] for e in delivered if kind_of(e.params["text"]) == "standings 2"]
    assert f"{PLAYER.first_name} — 625" in standings[0], standings  # the seeded first choice is right
    for message in (daily, first, second):
        shown = next(m for m in server.messages_in(GROUP.id) if m.message_id == message.message_id)
        assert shown.text.startswith(t("en", "reveal.title"))
        assert [b["text"] for b in shown.buttons] == ["☆ Star"]  # no answer buttons, only the ☆
