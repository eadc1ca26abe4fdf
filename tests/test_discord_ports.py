"""The Discord adapter as the core's ChatPort and as an API client: every request it makes is one
Discord's OpenAPI file allows (also when replies are deferred), and Discord's errors become the
port's (429 -> RetryLater, no channel or no access -> ChatGone, another refusal -> PostRejected)."""

from __future__ import annotations

import asyncio

import pytest

from adapters.discord import replies
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind
from bot.domain.questions import QuestionType
from bot.ports.chat import ChatGone, PostRejected, RetryLater
from bot.views.quiz import RevealView, notice
from tests.fakes.discord_rules import Perm
from tests.test_discord_daily import only
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    buttons,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)


async def test_every_request_is_one_the_openapi_file_allows(harness: Harness, monkeypatch) -> None:
    h = harness
    monkeypatch.setattr(replies, "DEFER_AFTER", 0.0)  # every reply deferred, then sent as a follow-up
    await h.start()
    server = h.server
    alice, bob = h.world.admin, h.world.student

    question = await h.command(bob, "quiz", {"type": "single"})  # public, filled in after "thinking"
    round_ = await h.last_round()
    assert (await h.message_of(round_.id)).id == question.id and not question.flags & EPHEMERAL
    receipt = await h.click(bob, question, f"sb:a:{round_.id}:B")
    assert receipt.flags & EPHEMERAL and receipt.content.startswith("✅ Correct!")
    await server.wait_for(lambda: "1 answered so far" in embed_text(question), what="the live count")
    fill = await h.command(bob, "quiz", {"type": "fill"})
    fill_round = await h.last_round()
    await h.click(bob, fill, f"sb:m:{fill_round.id}")
    typed = await server.submit_modal(h.general, bob, f"sb:f:{fill_round.id}", {"answer": "0.0005"})
    assert (await h.reply(typed)).content.startswith("✅ Correct!")

    daily_options = {"time": "09:30", "deadline": "1h", "mode": "reactions", "tag": "physics"}
    await h.command(alice, "daily", daily_options, sub="set")
    await h.app.scheduler.advance(30 * 60)
    daily = await h.message_of((await h.last_round()).id)
    await server.react(h.general, bob, daily.id, "✅")
    await server.wait_for(lambda: bob.id not in daily.reactions.get("✅", [bob.id]), what="hidden reaction")
    await h.app.scheduler.advance(3600)
    await h.command(alice, "contest", {"questions": 1, "seconds": 10}, sub="start")
    await h.app.scheduler.advance(10)
    for name, options, sub in (("leaderboard", {"scope": "server"}, None), ("stats", {"user": alice}, None),
                               ("bank", {}, "list"), ("lang", {"language": "zh-CN"}, None)):  # fmt: skip
        reply = await h.command(alice, name, options, sub=sub)
        assert reply is not None and (reply.content or reply.data["embeds"])
    assert "语言已设为简体中文" in reply.content

    used = {f"{r.method} {r.template}" for r in server.requests}
    assert {
        "PUT /applications/{application_id}/commands",
        "POST /interactions/{interaction_id}/{interaction_token}/callback",
        "POST /webhooks/{webhook_id}/{webhook_token}",
        "POST /channels/{channel_id}/messages",
        "PATCH /channels/{channel_id}/messages/{message_id}",
        "PUT /channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me",
        "DELETE /channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/{user_id}",
    } <= used
    server.assert_all_requests_valid()
    assert all(r.status < 400 for r in server.requests), [str(r) for r in server.requests if r.status >= 400]


async def test_discord_errors_become_the_ports_errors(harness: Harness) -> None:
    h = harness
    h.bank = only(QuestionType.SINGLE)
    adapter = await h.start()
    server, guild = h.server, h.world.guild
    hidden = guild.add_text_channel("hidden").overwrite(h.world.bot, deny=Perm.VIEW_CHANNEL)
    muted = guild.add_text_channel("muted").overwrite(h.world.bot, deny=Perm.SEND_MESSAGES)

    async def record(key: int):
        ref = ChatRef(Platform.DISCORD, str(key), ChatKind.GROUP, guild_key=str(guild.id))
        return await h.app.quiz.chat(ref)

    async def chat(key: int):
        return (await record(key)).ref

    hello = notice("lang.set", "en")
    for key in (hidden.id, muted.id, 123):  # Missing Access, Missing Permissions, Unknown Channel
        with pytest.raises(ChatGone):
            await adapter.post_notice(await chat(key), hello)
    server.fail_next("POST /channels/{channel_id}/messages", 429, retry_after=45.0)
    with pytest.raises(RetryLater) as later:
        await adapter.post_notice(await chat(h.general.id), hello)
    assert later.value.retry_after == pytest.approx(45.0)
    # A refusal for good (here 50005: editing someone else's message) is not worth retrying.
    theirs = await server.post_message(h.general, h.world.student, "hello")
    reveal = RevealView(
        round_id=1, chat_id=1, kind=RoundKind.DAILY, qtype=QuestionType.JUDGE, number=1, stem="?", options=(),
        correct_tokens=("true",), correct_label="True", explanation="", counts=(), total_answers=0, right=(),
        streaks=(), language="en", message_ref=f"{h.general.id}:{theirs.id}",
    )
    with pytest.raises(PostRejected):
        await adapter.post_reveal(await chat(h.general.id), reveal)

    # Through the outbox, ChatGone pauses the chat's schedules.
    general, gone = await record(h.general.id), await record(hidden.id)
    await h.app.outbox.post_notice(gone, hello)
    assert (await h.app.store.get_chat(gone.id)).paused

    # A reveal whose question message was deleted is posted as a new message.
    await h.command(h.world.admin, "daily", {"time": "09:30", "deadline": "1h"}, sub="set")
    await h.app.scheduler.advance(30 * 60)
    round_ = await h.last_round()
    question = await h.message_of(round_.id)
    await server.delete_message(question)
    await h.app.scheduler.advance(3600)
    reveals = [m for m in server.messages_in(h.general) if "Answer revealed" in embed_text(m)]
    assert len(reveals) == 1 and reveals[0].id != question.id and general.id == round_.chat_id


async def test_an_unexpected_failure_is_answered_politely_and_logged(harness: Harness, caplog) -> None:
    h = harness
    await h.start()
    bob = h.world.student
    question = await h.command(bob, "quiz", {"type": "single"})
    round_ = await h.last_round()
    async with asyncio.timeout(5):  # /quiz stores its message after replying: let it finish
        while (await h.last_round()).message_ref is None:  # noqa: ASYNC110 (a store write, no event)
            await asyncio.sleep(0)
    await h.app.store.close()  # the database goes away under the bot

    stats = await h.command(bob, "stats")
    click = await h.click(bob, question, f"sb:a:{round_.id}:B")
    for reply in (stats, click):
        assert reply.content == "Something went wrong; please try again." and reply.flags & EPHEMERAL
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors == ["command /stats failed", f"click 'sb:a:{round_.id}:B' failed"]
