"""A long 429 storm on every post and edit while a daily closes and a contest runs: afterwards
every reveal, contest step and standing is posted, in order, once, and no question keeps its
buttons (python-telegram-bot against the fake Telegram server)."""

from __future__ import annotations

import asyncio

from bot.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    BOSS,
    GROUP,
    TelegramHarness,
    _is_question,
    tg_fixture,  # noqa: F401
)

POSTS_AND_EDITS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")
REVEAL = "<b>" + t("en", "reveal.title")


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
    for _ in range(18):  # three minutes of contest time: every question closes, the daily too
        await tg.advance(10)
    failed = [e for e in server.log[storm_from:] if e.status == 429]
    assert failed, "the storm hit nothing"
    owed = await app.storage.outbox.pending_posts()  # what an operator's `studybot outbox` lists
    assert [p.what for p in owed] == [
        "reveal", "standings", "reveal", "standings", "reveal", "standings", "standings", "reveal",
    ]  # fmt: skip
    server.calm()
    async with asyncio.timeout(30):
        await app.outbox.settled()
    assert await app.storage.outbox.pending_posts() == []

    delivered = [
        e for e in server.log[storm_from:] if e.ok and e.method in ("sendMessage", "editMessageText")
    ]
    kinds = [kind_of(e.params["text"]) for e in delivered if kind_of(e.params["text"]) != "other"]
    # Each contest step once, in order, then the daily's reveal (its deadline came last).
    assert kinds == [
        "reveal", "standings 1", "reveal", "standings 2", "reveal", "standings 3", "final", "reveal",
    ]  # fmt: skip
    edits = [e.params["message_id"] for e in delivered if e.method == "editMessageText"]
    assert first.message_id in edits and daily.message_id in edits
    # No question posted late: a question whose time is over is replaced by its reveal.
    assert not [e for e in delivered if _is_question(e.params["text"])]
    for message in (daily, first):
        shown = next(m for m in server.messages_in(GROUP.id) if m.message_id == message.message_id)
        assert shown.text.startswith(t("en", "reveal.title"))
        assert [b["text"] for b in shown.buttons] == ["☆ Star"]  # no answer buttons, only the ☆
