"""Contests on Discord: refused to members (by Discord, and again by the bot at run time), and an
admin's three-question contest with two players played to the final standings on the real clock
and the real APScheduler (its timer, pauses and steps fire by themselves)."""

from __future__ import annotations

import re

import pytest

from bot.domain.kinds import RoundKind
from bot.domain.questions import QuestionType
from bot.domain.records import Round
from tests.fakes.discord_models import FakeMember, MessageRecord
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

# The real contest timer, short: long enough for both players' clicks to arrive on a loaded machine.
SECONDS, PAUSE = 3, 0.2


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


def final_standings(h: Harness) -> str | None:
    """The contest's final standings, once posted (after the last pause)."""
    return next((text for text in standings(h) if "contest is over" in text), None)


def question_posted(h: Harness, n: int) -> bool:
    """Contest question `n` is in the channel (until its reveal edits it)."""
    titles = [
        m.data["embeds"][0].get("title", "") for m in h.server.messages_in(h.general) if m.data.get("embeds")
    ]
    return any(f"Question {n} of" in title for title in titles)


def standings(h: Harness) -> list[str]:
    texts = [embed_text(m) for m in h.server.messages_in(h.general) if not m.flags & EPHEMERAL]
    return [text for text in texts if "Standings after" in text or "contest is over" in text]


async def test_members_are_refused_and_an_admin_contest_runs_to_the_results(live_harness: Harness) -> None:
    h = live_harness
    await h.start(contest={"pause_seconds": PAUSE})
    server, guild = h.server, h.world.guild
    alice, bob, carol = h.world.admin, h.world.student, h.member("carol")
    options = {"questions": 3, "seconds": SECONDS}

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
    assert started.content == f"Contest running: question 1 of 3, {SECONDS} s each, 0 players."
    notices = [m.content for m in server.messages_in(h.general) if m.content.startswith("Contest started")]
    assert notices == [f"Contest started: 3 questions, {SECONDS} s each. Faster answers score more!"]

    seen = []
    for n in range(1, 4):
        # The next question comes by itself after the pause.
        await server.wait_for(lambda k=n: question_posted(h, k), SECONDS + 10, f"question {n}")
        round_ = await h.last_round()
        question = await h.message_of(round_.id)
        assert round_.kind is RoundKind.CONTEST
        assert f"Question {n} of 3" in question.data["embeds"][0]["title"]
        seen.append(h.bank.question(round_.question_id).type)
        receipts = [await play(h, bob, round_, question, right=True),
                    await play(h, carol, round_, question, right=n > 1)]  # fmt: skip
        assert all(r.startswith("Recorded: ") for r in receipts)  # no grade before the reveal
        # Nobody has joined before the first question, so its timer closes it; later ones close as
        # soon as both players have answered.
        await server.wait_for(
            lambda q=question: "Answer revealed" in embed_text(q), SECONDS + 10, f"reveal {n}"
        )
        await server.wait_for(lambda k=n: len(standings(h)) >= k, what=f"standings {n}")
    assert sorted(seen) == sorted([QuestionType.SINGLE, QuestionType.MULTI, QuestionType.JUDGE])

    final = await server.wait_for(lambda: final_standings(h), SECONDS + 10, "the final standings")
    assert "🏆 The contest is over" in final
    # Points depend on the real answer times (the formula is tested in tests/test_contests.py).
    assert re.search(r"🥇 1\. bob — \d+, 3/3 right \(100%\)", final), final
    assert re.search(r"🥈 2\. carol — \d+, 2/3 right \(67%\)", final), final
    status = await h.command(alice, "contest", sub="status")
    assert status.content == "The last contest is over: 3 questions, 2 players."
    board = await h.command(bob, "leaderboard", {"window": "contest"})
    assert re.search(r"1\. bob — \d+", embed_text(board))


async def test_a_question_asked_again_after_a_restart_takes_the_buttons_off_its_first_copy(
    harness: Harness,
) -> None:
    """The bot stops mid-question and starts again alone: the question is asked again with its
    whole time, and the copy shown before loses its answer buttons (its ☆ stays)."""
    h = harness
    await h.start()
    await h.command(h.world.admin, "contest", {"questions": 2, "seconds": 30}, sub="start")
    round_ = await h.last_round()
    first = await h.message_of(round_.id)
    answers = [cid for cid in buttons(first) if cid.startswith(f"sb:a:{round_.id}:")]
    assert answers, buttons(first)
    await h.stop()
    await h.start()

    def copies() -> list[MessageRecord]:
        return [m for m in h.server.messages_in(h.general) if f"sb:a:{round_.id}:A" in buttons(m)
                or m.id == first.id]  # fmt: skip

    await h.server.wait_for(lambda: len(copies()) == 2, what="the question asked again")
    await h.server.wait_for(lambda: not set(answers) & set(buttons(h.server.messages[first.id])),
                            what="the first copy's answer buttons taken off")  # fmt: skip
    assert list(buttons(h.server.messages[first.id])) == [f"sb:st:{round_.id}"]  # its ☆ alone
    [again] = [m for m in copies() if m.id != first.id]
    assert set(answers) <= set(buttons(again))  # the new copy is the one answered
    assert "Question 1 of 2" in again.data["embeds"][0]["title"]
