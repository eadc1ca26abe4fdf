"""The outbox's crash window (see bot/application/outbox.py): a crash after the platform accepted a post and
before the commit that marks it delivered leaves it owed, so the next start sends it again. A
reveal edits its question message, and the same edit again changes nothing: the chat sees the
reveal once (python-telegram-bot against the fake Telegram server). On Discord a new message
carries a nonce Discord enforces, so sending it again returns the first one."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_outbox_process import answer_buttons
from tests.test_outbox_process_discord import CHANNEL_POSTS
from tests.test_outbox_process_discord import kind_of as kind
from tests.test_telegram_harness import BOSS, GROUP, TelegramHarness, tg_fixture  # noqa: F401
from tests.waits import HANG

REVEAL = t("en", "reveal.title")


class Crash(Exception):
    """The process dying between the platform's answer and the commit (nothing after it runs)."""


async def test_a_reveal_sent_again_after_a_crash_in_the_window_is_shown_once(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.say(GROUP, BOSS, "/daily set 09:30 1h")
    await tg.advance(30 * 60)
    daily = await tg.question(GROUP.id)
    delivered = app.outbox.posts.post_delivered

    async def crash(post_id: int) -> None:
        raise Crash

    app.outbox.posts.post_delivered = crash  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await tg.advance(3600)  # the round closes; its reveal is edited in; then the crash
    await tg.reveal(daily)
    app.outbox.posts.post_delivered = delivered  # type: ignore[method-assign]
    [owed] = await app.storage.outbox.pending_posts()
    assert owed.what == "reveal"  # still owed

    app = await tg.restart()  # resumes the outbox: the reveal is sent again
    again = await server.wait_for_request(
        "editMessageText", lambda p: p["message_id"] == daily.message_id, include_failed=True, timeout=HANG
    )
    async with asyncio.timeout(10):
        await app.outbox.drain(owed.chat_id)  # waits for the resumed delivery to commit
    assert await app.storage.outbox.pending_posts() == []
    edits = [
        e for e in server.log if e.method == "editMessageText" and e.params["message_id"] == daily.message_id
    ]
    assert [e.status for e in edits] == [200, 400]  # the second: "message is not modified"
    assert "not modified" in edits[1].response["description"] and edits[1].params is again
    shown = server.find_message(GROUP.id, daily.message_id)
    assert shown is not None and shown.text.startswith(REVEAL) and answer_buttons(shown) == []
    assert not [p for p in server.calls("sendMessage") if p["text"].startswith(f"<b>{REVEAL}")]
    assert app.outbox.failures == 0


async def test_a_discord_post_sent_again_after_a_crash_in_the_window_is_posted_once(harness: Harness) -> None:
    """A new message has nothing to edit: Discord's enforced nonce makes the second send return the
    message the first one created (discord.py against the fake Discord)."""
    h = harness
    await h.start()
    await h.command(h.world.admin, "daily", {"time": "09:30", "deadline": "2h"}, sub="set")
    assert h.app is not None
    delivered = h.app.outbox.posts.post_delivered

    async def crash(post_id: int) -> None:
        raise Crash

    h.app.outbox.posts.post_delivered = crash  # type: ignore[method-assign]
    with contextlib.suppress(Crash):
        await h.app.scheduler.advance(30 * 60)  # 09:30: the daily question is posted; then the crash
    h.app.outbox.posts.post_delivered = delivered  # type: ignore[method-assign]
    [owed] = await h.app.storage.outbox.pending_posts()
    assert owed.what == "question"  # still owed: the next start sends it again
    assert len(daily_questions(h)) == 1

    await h.stop()
    await h.start()  # resumes the outbox
    assert h.app is not None
    async with asyncio.timeout(10):
        await h.app.outbox.drain(owed.chat_id)
    assert await h.app.storage.outbox.pending_posts() == []
    posts = [r for r in h.server.requests if r.method == "POST" and r.template == CHANNEL_POSTS.split()[1]]
    sends = [r for r in posts if r.status == 200 and kind(r.body) == "question"]
    assert len(sends) == 2 and sends[0].body["nonce"] == sends[1].body["nonce"]
    [question] = daily_questions(h)  # the second send got the first message back
    round_ = await h.last_round()
    assert round_.message_ref == f"{question.channel_id}:{question.id}"


def daily_questions(h: Harness) -> list:
    return [m for m in h.server.messages_in(h.general) if kind(m.data) == "question"]
