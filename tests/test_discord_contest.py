"""Contests on Discord: refused to members (by Discord, and again by the bot at run time), and an
admin's three-question contest with two players played to the final standings."""

from __future__ import annotations

import pytest

from bot.kinds import RoundKind
from bot.model import QuestionType
from bot.records import Round
from tests.fakes.discord_models import FakeMember, MessageRecord
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


async def play(h: Harness, member: FakeMember, round_: Round, question: MessageRecord, right: bool) -> str:
    """Answer with the buttons of whatever type the question is; return the receipt."""
    q = h.bank.question(round_.question_id)
    rid = round_.id
    tokens = [cid.rsplit(":", 1)[1] for cid in buttons(question) if cid.count(":") == 3]
    wrong = [tok for tok in tokens if tok not in q.answer]
    chosen = list(q.answer) if right else wrong[:1]
    if q.type is QuestionType.MULTI:
        for letter in chosen:
            await h.click(member, question, f"sb:t:{rid}:{letter}")
        receipt = await h.click(member, question, f"sb:s:{rid}")
    else:
        receipt = await h.click(member, question, f"sb:a:{rid}:{chosen[0]}")
    assert receipt is not None and receipt.flags & EPHEMERAL
    return receipt.content


def standings(h: Harness) -> list[str]:
    texts = [embed_text(m) for m in h.server.messages_in(h.general) if not m.flags & EPHEMERAL]
    return [text for text in texts if "Standings after" in text or "contest is over" in text]


async def test_members_are_refused_and_an_admin_contest_runs_to_the_results(harness: Harness) -> None:
    h = harness
    await h.start()
    server, guild = h.server, h.world.guild
    alice, bob, carol = h.world.admin, h.world.student, h.member("carol")
    options = {"questions": 3, "seconds": 30}

    with pytest.raises(PermissionError):  # Discord does not even offer /contest to bob
        await server.slash_command(h.general, bob, "contest", options, subcommand="start")
    # A server may grant the command to everyone (Server Settings › Integrations); the fake has no
    # such setting, so the synced command's default permissions are cleared as that would.
    server.find_command(guild.id, "contest")["default_member_permissions"] = None
    refused = await h.command(bob, "contest", options, sub="start")
    assert refused.content == "Only admins can use this command." and refused.flags & EPHEMERAL
    assert await h.app.store.open_rounds() == []

    started = await h.command(alice, "contest", options, sub="start")
    assert started.flags & EPHEMERAL
    assert started.content == "Contest running: question 1 of 3, 30 s each, 0 players."
    notices = [m.content for m in server.messages_in(h.general) if m.content.startswith("Contest started")]
    assert notices == ["Contest started: 3 questions, 30 s each. Faster answers score more!"]

    seen = []
    for n in range(1, 4):
        round_ = await h.last_round()
        question = await h.message_of(round_.id)
        assert round_.kind is RoundKind.CONTEST
        assert f"Question {n} of 3" in question.data["embeds"][0]["title"]
        seen.append(h.bank.question(round_.question_id).type)
        receipts = [await play(h, bob, round_, question, right=True),
                    await play(h, carol, round_, question, right=n > 1)]  # fmt: skip
        assert all(r.startswith("Recorded: ") for r in receipts)  # no grade before the reveal
        if n == 1:  # nobody has joined yet, so the timer closes the first question
            await h.app.scheduler.advance(30)
        # Later ones close as soon as both players have answered.
        await server.wait_for(lambda q=question: "Answer revealed" in embed_text(q), what=f"reveal {n}")
        await server.wait_for(lambda k=n: len(standings(h)) >= k, what=f"standings {n}")
        await h.app.quiz.flush()
        await h.app.scheduler.advance(5)  # the pause between questions
    assert sorted(seen) == sorted([QuestionType.SINGLE, QuestionType.MULTI, QuestionType.JUDGE])

    final = standings(h)[-1]
    assert "🏆 The contest is over" in final
    assert "🥇 1. bob — 3300, 3/3 right (100%)" in final and "🥈 2. carol — 2100, 2/3 right (67%)" in final
    status = await h.command(alice, "contest", sub="status")
    assert status.content == "The last contest is over: 3 questions, 2 players."
    board = await h.command(bob, "leaderboard", {"window": "contest"})
    assert "1. bob — 3300" in embed_text(board)
