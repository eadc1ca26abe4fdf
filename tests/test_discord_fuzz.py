"""Random and malformed input on Discord: 1,000 custom_ids clicked and 300 slash commands with
random options. Every one is answered (privately for clicks), nothing escapes, no score changes."""

from __future__ import annotations

import asyncio
import logging
import random
import string
from typing import Any

import pytest

from bot.records import Round
from bot.standings import chat_scope, guild_scope
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)

CLICKS = 1000
COMMANDS = 300
ALPHABET = string.ascii_letters + string.digits + ":_-. /\n\t%" + "对错🇦✅汉字\u200b"


def junk(rng: random.Random, low: int = 0, high: int = 40) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(low, high)))


def custom_id(rng: random.Random, closed: list[int], open_multi: int) -> str:
    """Ours but malformed, ours for closed or unknown rounds, or nothing like ours."""
    roll = rng.random()
    if roll < 0.25:
        return junk(rng, 1, 100)
    unknown = ["0", "-1", "007", str(10**30), "abc", "", str(closed[-1] + 10_000)]
    round_key = rng.choice([*map(str, closed), *unknown])
    kind = rng.choice("atsmgfx" + "A:")
    arg = rng.choice(["A", "B", "true", "false", "full", "half", "zero", junk(rng)])
    if roll < 0.4:  # the open question, with what can never be an answer to it
        round_key = str(open_multi)
        kind, arg = rng.choice([
            ("t", rng.choice(["a", "E", "AB", "", "1", junk(rng)])), ("g", "full"), ("m", None),
            ("a", rng.choice(["", "Z", "true", "EF"])),
        ])
    parts = ["sb", kind, round_key] + ([arg] if arg is not None else [])
    return ":".join(parts)[:100] or "sb"


def button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": "?", "custom_id": custom_id}


async def totals(h: Harness, last: int) -> tuple[Any, ...]:
    store = h.app.store
    counts = [await store.answer_count(rid) for rid in range(1, last + 1)]
    scopes = [chat_scope(await h.chat_id()), guild_scope("discord", str(h.world.guild.id))]
    boards = [await store.top_scores(scope, "all", 50) for scope in scopes]
    return counts, [[(r.display_name, r.points, r.answers, r.correct) for r in board] for board in boards]


def option_sets(rng: random.Random, h: Harness) -> tuple[Any, str, dict[str, Any], str | None]:
    """(member, command, options, subcommand) with random values of the right Discord types."""
    alice, bob = h.world.admin, h.world.student
    member = rng.choice([alice, bob])
    number = rng.choice([-5, 0, 1, 2, 3, 99, 100, 101, 600, 10**6])
    text = junk(rng)
    daily = {
        "time": rng.choice([text, "25:00", "9:5", "07:30"]),
        "timezone": rng.choice([text, "Mars/Base", "Europe/Paris"]),
        "deadline": rng.choice([text, "0s", "9d", "-1h", "90m"]),
        "tag": text,
        "mode": rng.choice(["buttons", "reactions"]),
    }
    contest = {"questions": number, "seconds": rng.choice([-1, 0, 5, 601, 10**9]), "tag": text}
    window, scope = rng.choice(["all", "week", "month", "contest"]), rng.choice(["channel", "server"])
    board = {"window": window, "scope": scope}
    qtype = rng.choice(["single", "multi", "judge", "fill", "short"])
    member, name, options, sub = rng.choice([
        (member, "quiz", {"tag": text, "type": qtype}, None),
        (member, "quiz", {"tag": rng.choice(["math", "physics", "nope", " "])}, None),
        (alice, "daily", daily, "set"),
        (alice, "daily", {}, rng.choice(["off", "show"])),
        (alice, "contest", contest, "start"),
        (alice, "contest", {}, rng.choice(["stop", "status"])),
        (member, "leaderboard", board, None),
        (member, "stats", {"user": rng.choice([alice, bob])}, None),
        (member, "streak", {}, None),
        (alice, "bank", {"bank": text or "x"}, "use"),
        (alice, "bank", {}, "list"),  # most /bank subcommands are admin-only: Discord hides the group
    ])
    required = {"time", "bank"}
    kept = {k: v for k, v in options.items() if k in required or rng.random() < 0.6}
    return member, name, kept, sub


async def test_random_and_malformed_input_changes_nothing(harness: Harness, caplog: pytest.LogCaptureFixture):
    h = harness
    caplog.set_level(logging.WARNING)
    await h.start()
    server, channel, rng = h.server, h.general, random.Random(20261202)
    alice, bob, carol = h.world.admin, h.world.student, h.member("carol")
    # Some history to protect: answered questions, then closed (the hourly sweep of practice rounds).
    for member, kind in ((alice, "single"), (bob, "judge"), (carol, "single")):
        question = await h.command(member, "quiz", {"type": kind})
        round_ = await h.last_round()
        token = h.answer(round_)[0]
        await h.click(member, question, f"sb:a:{round_.id}:{token}")
    h.clock.advance(2 * 3600)
    await h.app.dailies.sweep_practice()
    closed = [r for r in range(1, (await h.last_round()).id + 1)]
    await h.command(carol, "quiz", {"type": "multi"})
    open_multi: Round = await h.last_round()
    await h.app.quiz.flush()
    before = await totals(h, open_multi.id)

    ids = list(dict.fromkeys(custom_id(rng, closed, open_multi.id) for _ in range(CLICKS * 2)))[:CLICKS]
    assert len(ids) == CLICKS
    targets = []
    for start in range(0, CLICKS, 25):  # messages carrying those custom_ids, 5 rows of 5 buttons
        chunk = ids[start:start + 25]
        row_ids = [chunk[i:i + 5] for i in range(0, len(chunk), 5)]
        rows = [{"type": 1, "components": [button(cid) for cid in row]} for row in row_ids]
        message = await server.create_message(channel, {"content": "?", "components": rows})
        targets += [(message.id, cid) for cid in chunk]
    members = [alice, bob, carol]
    for start in range(0, CLICKS, 50):
        records = await asyncio.gather(*(server.click(channel, rng.choice(members), mid, cid)
                                         for mid, cid in targets[start:start + 50]))  # fmt: skip
        replies = await asyncio.gather(*(h.reply(r) for r in records))
        for (_, cid), reply in zip(targets[start:start + 50], replies, strict=True):
            assert reply is not None and reply.flags & EPHEMERAL, cid
            changed = ("Recorded", "✅", "❌", "Selected", "Self-graded")
            assert not reply.content.startswith(changed), (cid, reply.content)

    for _ in range(COMMANDS):
        member, name, options, sub = option_sets(rng, h)
        reply = await h.command(member, name, options, sub=sub)
        assert reply is not None and (reply.content or reply.data.get("embeds")), (name, sub, options)

    await h.app.quiz.flush()
    assert await totals(h, open_multi.id) == before
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert server.spec_violations == []
