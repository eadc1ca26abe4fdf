"""The study tools end to end on Discord (real discord.py against the fake Discord, under a
ManualClock), answered ephemerally in a server channel: a mock exam across a restart keeps its
answers and its clock, a wrong answer goes into /mistakes and leaves after two right ones, /review
serves a due card and reschedules it, /stats attaches a PNG whose Chinese labels are drawn, and a
/report reaches the server's admin, who resolves it, and the reporter hears back."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from bot.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.text import local_time
from tests.fakes.discord_models import FakeChannel, FakeMember, MessageRecord
from tests.study_e2e import assert_cjk_chart
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)


async def say(
    h: Harness,
    member: FakeMember,
    name: str,
    options: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
    channel: FakeChannel | None = None,
    locale: str = "en-US",
) -> str:
    """Run a slash command; the text of the bot's answer, which only the member sees."""
    reply = await h.command(member, name, options, sub=sub, channel=channel, locale=locale)
    assert reply is not None and reply.flags & EPHEMERAL, reply
    return embed_text(reply)


async def question(
    h: Harness,
    member: FakeMember,
    name: str,
    options: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
) -> MessageRecord:
    """Run a command that asks a question; the question message (the round's, with its buttons)."""
    await h.command(member, name, options, sub=sub)
    return await h.message_of((await h.last_round()).id)


async def click_answer(h: Harness, member: FakeMember, message: MessageRecord, right: bool) -> str:
    """Press the right (or a wrong) button under a question; the receipt only the member sees."""
    round_ = await h.last_round()
    answer = h.answer(round_)
    choices = [cid.rsplit(":", 1)[1] for cid in message.custom_ids() if cid.startswith(f"sb:a:{round_.id}:")]
    choice = answer[0] if right else next(c for c in choices if c not in answer)
    receipt = await h.click(member, message, f"sb:a:{round_.id}:{choice}")
    assert receipt is not None and receipt.flags & EPHEMERAL
    return receipt.content


async def test_a_mock_keeps_its_answers_and_its_clock_across_a_restart(harness: Harness) -> None:
    h = harness
    await h.start()
    bob = h.world.student
    started = await say(h, bob, "mock", sub="start")
    assert t("en", "mock.started", title="Sample bank") in started and "0:16:00 left" in started
    saved = await say(h, bob, "mock", {"number": 1, "answer": "B"}, sub="answer")
    assert saved.startswith(t("en", "mock.saved", number=1))
    await h.app.scheduler.advance(4 * 60)
    await h.stop()
    h.clock.advance(60)  # the bot is down for a minute: the paper's clock runs on
    await h.start()
    again = await say(h, bob, "mock", sub="start")  # /mock twice: the same paper resumes
    assert t("en", "mock.resumed", title="Sample bank") in again and "0:11:00 left" in again
    sheet = await say(h, bob, "mock", sub="sheet")
    assert "Answer sheet: 1/5 answered, 0:11:00 left" in sheet and "1✓" in sheet
    assert t("en", "mock.your_answer", answer="B") in await say(h, bob, "mock", {"number": 1}, sub="go")
    await say(h, bob, "mock", {"number": 3, "answer": "true"}, sub="answer")

    await h.app.scheduler.advance(60)  # 10 minutes before the end, by the clock started before the restart
    reminder = await h.server.wait_for(lambda: _posted(h, "⏰"), what="the reminder")
    assert reminder.content == t("en", "mock.reminder", count=10, unanswered=3)
    await h.app.scheduler.advance(10 * 60)
    timed_out = t("en", "mock.timed_out", score="2", total="16")
    await h.server.wait_for(lambda: _posted(h, timed_out), what="the automatic hand-in")
    report = await say(h, bob, "mock", sub="report")
    assert t("en", "mock.score", score="2", total="16") in report
    assert t("en", "mock.time_used", minutes=16, seconds=0) in report


def _posted(h: Harness, text: str) -> MessageRecord | None:
    """The bot's latest message in the channel with `text` in it."""
    return next((m for m in reversed(h.server.messages_in(h.general)) if text in m.content), None)


async def test_mistakes_review_stats_and_a_report_answered(harness: Harness) -> None:
    h = harness
    await h.start()
    app = h.app
    assert app is not None
    bob = h.world.student
    wrong = await question(h, bob, "quiz", {"type": "single"})
    assert (await click_answer(h, bob, wrong, right=False)).startswith(t("en", "receipt.wrong"))
    listed = await say(h, bob, "mistakes", sub="list")
    assert "2+2=?" in listed and t("en", "mistakes.misses", count=1) in listed
    for _ in range(2):
        await h.app.scheduler.advance(60)
        practice = await question(h, bob, "mistakes", sub="practice")
        assert "2+2=?" in embed_text(practice)
        assert (await click_answer(h, bob, practice, right=True)).startswith("✅")
    assert await say(h, bob, "mistakes", sub="list") == t("en", "mistakes.none")

    # /review: the card is due later (two right answers in a row); when it is due it is served,
    # and answering it moves its due time on.
    user_id = await app.quiz.user_id(UserRef(Platform.DISCORD, str(bob.id), "bob"))
    channel = ChatRef(Platform.DISCORD, str(h.general.id), ChatKind.GROUP, guild_key=str(h.world.guild.id))
    zone = (await app.quiz.chat(channel)).settings.timezone
    waiting = await say(h, bob, "review", sub="due")
    first_due = await app.storage.study.next_due(user_id, "sample")
    assert first_due is not None and waiting == t("en", "review.done", when=local_time(first_due, zone))
    started = h.clock.now()
    await h.app.scheduler.advance((first_due - started).total_seconds() + 1)
    due = await question(h, bob, "review", sub="due")
    assert "2+2=?" in embed_text(due)
    await click_answer(h, bob, due, right=True)
    done = await say(h, bob, "review", sub="due")
    next_due = await app.storage.study.next_due(user_id, "sample")
    assert next_due is not None and next_due - h.clock.now() > first_due - started
    assert done == t("en", "review.done", when=local_time(next_due, zone))

    # /stats from a Chinese Discord client: the text and the chart (an attachment) in Chinese.
    stats = await h.command(bob, "stats", locale="zh-CN")
    assert stats is not None and stats.flags & EPHEMERAL
    shown = embed_text(stats)
    assert t("zh-CN", "progress.coverage", done=1, total=5) in shown and "Stats for" not in shown, shown
    assert [a["filename"] for a in stats.data["attachments"]] == ["progress.png"]
    upload = await h.server.wait_for_request(
        "POST", r"^/(interactions|webhooks)/", lambda r: "progress.png" in r.uploads
    )
    assert_cjk_chart(upload.uploads["progress.png"], "zh-CN")

    # /report: the server's admin lists it and resolves it with a note; the reporter hears back
    # in the channel they reported from.
    alice = h.world.admin
    assert (await say(h, bob, "report", {"text": "option D should read 4"})) == t(
        "en", "report.thanks", id=1, number=1
    )
    with pytest.raises(PermissionError):  # Discord does not offer /reports to a member without Manage Server
        await h.server.slash_command(h.general, bob, "reports", subcommand="list")
    listed = await say(h, alice, "reports", sub="list")
    assert "#1" in listed and "bob" in listed and "option D should read 4" in listed
    resolved = await say(h, alice, "reports", {"id": 1, "note": "fixed in the bank"}, sub="resolve")
    assert resolved == t("en", "reports.resolved", id=1)
    told = t("en", "report.resolved", id=1, number=1, note="fixed in the bank")
    await h.server.wait_for(lambda: _posted(h, told), what="the reporter told")
    assert await say(h, alice, "reports", sub="list") == t("en", "reports.none")
