"""Answering /quiz practice questions on Discord: multi-choice toggles and Submit, a fill-in answer
typed in a modal, a short answer self-graded with buttons; each graded right and told privately."""

from __future__ import annotations

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


async def test_multi_choice_toggles_and_submit(harness: Harness) -> None:
    h = harness
    await h.start()
    alice, bob = h.world.admin, h.world.student
    question = await h.command(bob, "quiz", {"type": "multi"})
    assert question is not None and not question.flags & EPHEMERAL
    round_ = await h.last_round()
    rid = round_.id
    assert list(buttons(question)) == [*(f"sb:t:{rid}:{x}" for x in "ABCD"), f"sb:s:{rid}", f"sb:st:{rid}"]
    assert (await h.message_of(rid)).id == question.id  # the reference the core keeps

    said = []
    for letter in "ABDCC":  # C on, then off again
        receipt = await h.click(bob, question, f"sb:t:{rid}:{letter}")
        assert receipt is not None and receipt.flags & EPHEMERAL
        said.append(receipt.content)
    assert said[0] == "Selected: A. Press Submit when done."
    assert said[-2:] == ["Selected: A, B, C, D. Press Submit when done.",
                         "Selected: A, B, D. Press Submit when done."]  # fmt: skip
    assert (await h.click(alice, question, f"sb:t:{rid}:C")).content == "Selected: C. Press Submit when done."

    graded = await h.click(bob, question, f"sb:s:{rid}")
    assert graded is not None and graded.flags & EPHEMERAL
    assert graded.content.splitlines()[:3] == [
        "✅ Correct! +2 pt", "Your answer: A, B, D", "**Correct answer: A, B, D**"]
    assert "4 is not prime." in graded.content
    wrong = await h.click(alice, question, f"sb:s:{rid}")
    assert wrong.content.startswith("❌ Wrong.") and "Your answer: C" in wrong.content
    assert (await h.click(bob, question, f"sb:s:{rid}")).content == "Nothing selected yet."
    await h.server.wait_for(lambda: "2 answered so far" in embed_text(question), what="the live count")
    scores = {a.display_name: (a.response, a.verdict) for a in await h.app.store.round_answers(rid)}
    assert scores == {"bob": ("A,B,D", "correct"), "alice": ("C", "wrong")}


async def test_fill_in_a_modal_and_a_self_graded_short_answer(harness: Harness) -> None:
    h = harness
    await h.start()
    server, carol = h.server, h.member("carol")

    question = await h.command(carol, "quiz", {"type": "fill"})
    rid = (await h.last_round()).id
    assert list(buttons(question)) == [f"sb:m:{rid}", f"sb:st:{rid}"]
    assert await h.click(carol, question, f"sb:m:{rid}") is None  # answered with the modal
    modal, _ = server.open_modals[(carol.id, f"sb:f:{rid}")]
    assert modal["title"] == "Your answer"
    submit = await server.submit_modal(h.general, carol, f"sb:f:{rid}", {"answer": " 5e-4 "})
    receipt = await h.reply(submit)
    assert receipt is not None and receipt.flags & EPHEMERAL
    assert receipt.content.startswith("✅ Correct! +2 pt") and "1e-3/2." in receipt.content

    question = await h.command(carol, "quiz", {"type": "short"})
    rid = (await h.last_round()).id
    await h.click(carol, question, f"sb:m:{rid}")
    submit = await server.submit_modal(h.general, carol, f"sb:f:{rid}", {"answer": "It relates the tokens."})
    pending = await h.reply(submit)
    assert pending.content.startswith("Answer recorded. Compare with the reference and grade yourself:")
    assert "Reference answer: Because it relates tokens." in pending.content
    assert "❌ parallel" in pending.content  # its key point, missed by this answer
    assert list(buttons(pending)) == [f"sb:g:{rid}:{level}" for level in ("full", "half", "zero")]
    assert [b["label"] for b in buttons(pending).values()] == ["Got it all", "Partly", "Missed it"]
    graded = await h.click(carol, pending, f"sb:g:{rid}:half")
    assert graded.content == "Self-graded: partly right, +5 pt" and graded.flags & EPHEMERAL
    again = await h.click(carol, pending, f"sb:g:{rid}:full")
    assert again.content.startswith("You already answered")

    stats = await h.command(carol, "stats")
    assert "2 answered, 1 right (50%), 7 pt" in embed_text(stats)
