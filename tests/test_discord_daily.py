"""Dailies on Discord end to end (real discord.py against the fake): buttons, receipts, the live
count, the reveal edit and the leaderboard; reaction mode; a click after a restart; and, on the
real clock and APScheduler, a daily set seconds ahead posted and revealed by itself."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.domain.clock import zone
from bot.domain.kinds import RoundKind, RoundState
from bot.domain.questions import QuestionType
from tests.conftest import make_bank
from tests.fakes.discord_models import MessageRecord
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    buttons,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    live_harness_fixture,
    study_world,
)

SUCCESS, SECONDARY = 3, 2
# A daily on the real clock: set this many seconds ahead (HH:MM:SS), closing this long after.
LEAD, DEADLINE = 2, 2


def only(*types: QuestionType):
    bank = make_bank()
    return replace(bank, questions=tuple(q for q in bank.questions if q.type in types))


async def test_daily_buttons_receipts_reveal_and_leaderboard(harness: Harness) -> None:
    h = harness
    h.bank = only(QuestionType.SINGLE)
    await h.start()
    alice, bob, carol = h.world.admin, h.world.student, h.member("carol")
    reply = await h.command(alice, "daily", {"time": "09:30", "deadline": "2h"}, sub="set")
    assert reply is not None and not reply.flags & EPHEMERAL
    assert "Daily question set: every day at 09:30 (Asia/Shanghai)" in reply.content

    await h.app.scheduler.advance(30 * 60)  # 09:30 in Shanghai
    round_ = await h.last_round()
    assert round_.kind is RoundKind.DAILY
    question = await h.message_of(round_.id)
    embed = question.data["embeds"][0]
    assert embed["title"].startswith("Daily question · Q1 · Single choice")
    assert "2+2=?" in embed["description"] and "**B**. 4" in embed["description"]
    assert f"<t:{int(round_.closes_at.timestamp())}:R>" in embed["description"]
    star = f"sb:st:{round_.id}"
    assert list(buttons(question)) == [*(f"sb:a:{round_.id}:{letter}" for letter in "ABCD"), star]

    receipts = []
    for member, letter in ((alice, "B"), (carol, "B"), (bob, "A"), (bob, "C")):
        receipt = await h.click(member, question, f"sb:a:{round_.id}:{letter}")
        assert receipt is not None and receipt.flags & EPHEMERAL
        receipts.append(receipt.content)
        h.clock.advance(60)  # answers a minute apart: the earlier one ranks first on a tie
    assert receipts[:3] == [
        "Recorded: B. The answer is revealed at the deadline.",
        "Recorded: B. The answer is revealed at the deadline.",
        "Recorded: A. The answer is revealed at the deadline.",
    ]
    assert receipts[3] == "You already answered (A); only the first answer counts."
    await h.server.wait_for(lambda: "3 answered so far" in embed_text(question), what="the live count")
    shown = embed_text(question)
    assert not any(name in shown for name in ("alice", "bob", "carol"))  # never who chose what

    await h.app.scheduler.advance(2 * 3600)  # the deadline
    assert (await h.app.store.get_round(round_.id)).state is RoundState.CLOSED
    revealed = embed_text(question)
    assert "Answer revealed" in revealed and "Correct answer: B" in revealed
    assert "Answers: A 1 · B✓ 2 · C 0 · D 0 (3 in all)" in revealed and "Right: alice, carol" in revealed
    after = buttons(question)
    star = after.pop(f"sb:st:{round_.id}")  # the ☆ stays clickable under the reveal
    assert all(b["disabled"] for b in after.values()) and not star["disabled"]
    right, wrong = after[f"sb:a:{round_.id}:B"], after[f"sb:a:{round_.id}:A"]
    assert (right["style"], right["label"]) == (SUCCESS, "B · 2")
    assert (wrong["style"], wrong["label"]) == (SECONDARY, "A · 1")

    board = await h.command(bob, "leaderboard")
    assert board is not None and not board.flags & EPHEMERAL
    lines = board.data["embeds"][0]["description"].splitlines()
    assert lines == ["**Leaderboard (all time)**", "1. alice — 1 pt (1/1)", "2. carol — 1 pt (1/1)",
                     "3. bob — 0 pt (0/1)"]  # fmt: skip


async def test_reaction_mode_counts_the_first_reaction(harness: Harness) -> None:
    h = harness
    h.bank = only(QuestionType.JUDGE)
    await h.start()
    server, channel = h.server, h.general
    alice, bob = h.world.admin, h.world.student
    await h.command(alice, "daily", {"time": "09:30", "deadline": "1h", "mode": "reactions"}, sub="set")
    await h.app.scheduler.advance(30 * 60)
    round_ = await h.last_round()
    question = await h.message_of(round_.id)
    assert list(buttons(question)) == [f"sb:st:{round_.id}"]  # no answer buttons: only the ☆
    assert "React below to answer" in embed_text(question)
    await server.wait_for(lambda: question.reactions == {"✅": [server.bot.id], "❌": [server.bot.id]},
                          what="the bot's ✅ and ❌")  # fmt: skip

    for member, emoji in ((bob, "❌"), (bob, "✅"), (alice, "✅")):
        await server.react(channel, member, question.id, emoji)
        # With Manage Messages the bot takes each reaction away again, once it is recorded.
        await server.wait_for(lambda e=emoji, m=member: m.id not in question.reactions[e],
                              what=f"{member.user.username}'s {emoji} hidden")  # fmt: skip
    answers = {a.display_name: a.response for a in await h.app.store.round_answers(round_.id)}
    assert answers == {"bob": "false", "alice": "true"}  # bob's second reaction did not count

    await h.app.scheduler.advance(3600)
    revealed = embed_text(question)
    assert "Answers: True✓ 1 · False 1 (2 in all)" in revealed and "Right: alice" in revealed
    assert list(buttons(question)) == [f"sb:st:{round_.id}"]


async def test_a_click_after_a_restart_still_counts(harness: Harness) -> None:
    h = harness
    h.bank = only(QuestionType.SINGLE)
    await h.start()
    carol = h.member("carol")
    await h.command(h.world.admin, "daily", {"time": "09:30", "deadline": "1h"}, sub="set")
    await h.app.scheduler.advance(30 * 60)
    round_ = await h.last_round()
    question = await h.message_of(round_.id)
    sessions = len(h.server.gateway.sessions)

    await h.stop()  # the bot process goes away: client closed, database closed
    await h.start()  # a new process on the same database and the same Discord
    assert len(h.server.gateway.sessions) == sessions + 1

    receipt = await h.click(carol, question, f"sb:a:{round_.id}:B")
    assert receipt is not None and receipt.content == "Recorded: B. The answer is revealed at the deadline."
    await h.server.wait_for(lambda: "1 answered so far" in embed_text(question), what="the live count")
    await h.app.scheduler.advance(3600)
    assert "Right: carol" in embed_text(question)
    assert all(b["disabled"] for cid, b in buttons(question).items() if cid != f"sb:st:{round_.id}")


async def test_a_daily_set_seconds_ahead_is_posted_and_revealed_by_itself(live_harness: Harness) -> None:
    """On the real clock and the real APScheduler, with nothing typed after the command: the daily
    is posted at its local time and its message edited into the reveal at the deadline."""
    h = live_harness
    h.bank = only(QuestionType.SINGLE)
    await h.start()
    server, alice = h.server, h.world.admin
    fire_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=LEAD + 1)
    local = fire_at.astimezone(zone("Asia/Shanghai"))  # the channel's timezone (the default)
    options = {"time": f"{local:%H:%M:%S}", "deadline": f"{DEADLINE}s"}
    reply = await h.command(alice, "daily", options, sub="set")
    said = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"  # 04:49, not 04:49:00, one time in 60
    assert reply is not None and f"every day at {said} (Asia/Shanghai)" in reply.content

    def posted() -> MessageRecord | None:
        titles = (
            (m, m.data["embeds"][0].get("title", ""))
            for m in server.messages_in(h.general)
            if m.data.get("embeds")
        )
        return next((m for m, title in titles if title.startswith("Daily question · ")), None)

    question = await server.wait_for(posted, LEAD + 10, "the daily")
    assert datetime.now(UTC) >= fire_at  # at its time, not before
    round_ = await h.last_round()
    receipt = await h.click(alice, question, f"sb:a:{round_.id}:B")
    assert receipt is not None and receipt.content.startswith("Recorded: B.")
    await server.wait_for(lambda: "Answer revealed" in embed_text(question), DEADLINE + 10, "the reveal")
    assert datetime.now(UTC) >= fire_at + timedelta(seconds=DEADLINE)
    assert "Right: alice" in embed_text(question)
