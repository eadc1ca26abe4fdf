"""Random and malformed input on Discord: 1,000 custom_ids clicked and 300 slash commands with
random options. Every one is answered (privately for clicks), nothing escapes, no score changes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import string
from typing import Any

import pytest

from bot.application.standings import chat_scope, guild_scope
from bot.domain.records import Round
from tests import fuzz_text
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


# ---------------------------------------------------------------- thousands of interactions (issue 20)

FUZZ_SEED = 20261203
SPICE = "\x00\x01\x1b\u200b\u200d\u202e\u2066\ufeff\u3000１２：３０对错全对不会总榜本周开关🇦😀\n\t"
AUTOCOMPLETE, STRING, INTEGER, USER_OPTION, SUBCOMMAND, GROUP = 4, 3, 4, 6, 1, 2


def unicode_text(rng: random.Random, longest: int = 60) -> str:
    return fuzz_text.unicode_text(rng, SPICE, longest)


def bad_string(rng: random.Random) -> str:
    return rng.choice([
        "Etc", "US", "America/Argentina", "Europe/" * 40 + "Paris", "9" * 309, "9" * 400 + "m", "25:99",
        "18446744073709551616", "\u202eon", "x" * 3000, "../../etc/passwd", "", " ",
        unicode_text(rng, 12), unicode_text(rng, 300),
    ])  # fmt: skip


def schema_options(definitions: list[dict[str, Any]], rng: random.Random, h: Harness) -> dict[str, Any]:
    """Options for a synced (sub)command as a Discord client builds them, one of them bad
    where its type allows: choices stay choices (Discord refuses others), numbers stay in range."""
    members = [h.world.admin, h.world.student]
    out: dict[str, Any] = {}
    bad = rng.choice([d["name"] for d in definitions]) if definitions else None
    for definition in definitions:
        name, kind = definition["name"], definition["type"]
        if not definition.get("required") and name != bad and rng.random() < 0.5:
            continue
        choices = [c["value"] for c in definition.get("choices") or []]
        if choices:
            out[name] = rng.choice(choices)
        elif kind == INTEGER:
            low, high = definition.get("min_value", -(2**53) + 1), definition.get("max_value", 2**53 - 1)
            out[name] = rng.choice([low, high, rng.randint(low, high)])
        elif kind == USER_OPTION:
            out[name] = rng.choice(members)
        elif kind == STRING:
            good = rng.choice(["08:30", "12h", "ml", "Asia/Tokyo", "A"])
            out[name] = bad_string(rng) if name == bad else good
        elif kind == 11:  # an attachment
            out[name] = h.server.attachment("bank.csv", b"stem,answer\n" + unicode_text(rng).encode())
    return out


def synced_paths(h: Harness) -> list[tuple[str, str | None, list[dict[str, Any]]]]:
    """(command, subcommand, option definitions) for every synced chat command."""
    out = []
    for command in h.server.commands.get(None, []):
        options = command.get("options") or []
        subs = [o for o in options if o["type"] == SUBCOMMAND]
        if subs:
            out += [(command["name"], s["name"], s.get("options") or []) for s in subs]
        else:
            out.append((command["name"], None, options))
    return out


def forged_data(rng: random.Random, h: Harness, paths: list[Any]) -> tuple[int, dict[str, Any]]:
    """What a stale or modified client sends: a removed command, subcommand or option; a group
    invoked as a command; a required option left out; a user option without its resolved user;
    an autocomplete request for an option that offers none."""
    name, sub, definitions = rng.choice(paths)
    command = h.server.find_command(None, name)
    assert command is not None
    options: list[dict[str, Any]] = [
        {"type": d["type"], "name": d["name"], "value": rng.choice(["1", 1, "x", 10**20, True, 3.5, ""])}
        for d in definitions if rng.random() < 0.5
    ]  # fmt: skip
    roll = rng.randrange(7)
    kind = 2
    if roll == 0:
        name = rng.choice(["removed", "quiz2", "x" * 32, name + "_old"])
    elif roll == 1:
        sub = rng.choice(["gone", "old", "x"])
    elif roll == 2:
        options.append({"type": STRING, "name": rng.choice(["renamed", "old_option", "zz"]), "value": "x"})
    elif roll == 3 and sub is not None:
        sub = None  # the group itself, as if it were a command
        options = []
    elif roll == 4:
        users = [d for d in definitions if d["type"] == USER_OPTION]
        named = users[0]["name"] if users else "user"
        options = [{"type": USER_OPTION, "name": named, "value": rng.choice(["123456789", "", "x"])}]
    else:
        kind = AUTOCOMPLETE
        target = rng.choice(definitions or [{"name": "tag", "type": STRING}])
        options = [{"type": target["type"], "name": target["name"], "value": unicode_text(rng, 10),
                    "focused": True}]  # fmt: skip
    if sub is not None:
        options = [{"type": SUBCOMMAND, "name": sub, "options": options}]
    return kind, {"id": command["id"], "name": name, "type": 1, "options": options}


async def test_thousands_of_interactions_of_every_kind_leave_no_traceback(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Seeded and bounded: every synced command with one bad option at a time, interactions a
    stale or modified client sends, forged and duplicated clicks and modal submits, through the
    real discord.py against the fake. Each is answered (an autocomplete with no suggestions);
    the bot's log holds no traceback and no ERROR; no score changes."""
    import time

    h = harness
    await h.start()
    server, channel, rng = h.server, h.general, random.Random(FUZZ_SEED)
    alice, bob = h.world.admin, h.world.student
    question = await h.command(bob, "quiz", {"type": "multi"})
    assert question is not None
    open_multi = await h.last_round()
    await h.app.quiz.flush()
    before = await totals(h, open_multi.id)
    caplog.set_level(logging.WARNING)
    started = time.monotonic()
    paths = synced_paths(h)
    records = []

    async def slash(member: Any, name: str, sub: str | None, definitions: list[dict[str, Any]]) -> Any:
        options = schema_options(definitions, rng, h)
        try:
            return await server.slash_command(channel, member, name, options, subcommand=sub)
        except (PermissionError, ValueError):  # what Discord's client would not let them send
            return None

    members = [alice, bob, *(h.member(f"m{n}") for n in range(4))]
    async def answered(batch: list[Any]) -> None:
        """Like members waiting for the bot's answer before they send the next one."""
        with contextlib.suppress(AssertionError):
            await server.wait_for(lambda: all(r.response is not None for r in batch), 10.0, "answers")
        late = [(r.type, str(r.payload["data"])[:200], [c.status for c in r.callbacks]) for r in batch
                if r.response is None]  # fmt: skip
        assert late == []

    for _ in range(0, 900, len(members)):  # slash commands with one bad option each, a member one at a time
        sent = await asyncio.gather(*(slash(member, *rng.choice(paths)) for member in members))
        records += [r for r in sent if r is not None]
        await answered([r for r in sent if r is not None])
    for _ in range(50):  # stale and forged commands, and autocomplete
        batch = [server.forged_interaction(channel, rng.choice([alice, bob]), *forged_data(rng, h, paths))
                 for _ in range(10)]  # fmt: skip
        records += await asyncio.gather(*batch)
        await answered(records[-10:])
    ids = [custom_id(rng, [open_multi.id - 1], open_multi.id) for _ in range(1200)]
    for start in range(0, len(ids), 50):  # forged clicks on the open question, some twice
        batch = [server.forged_click(channel, rng.choice([alice, bob]), question.id, cid,
                                     component_type=rng.choice([2, 2, 3, 5]))
                 for cid in ids[start:start + 50]]  # fmt: skip
        clicked = await asyncio.gather(*batch)
        records += clicked
        await answered(clicked)
        for record in clicked[:5]:
            await server.redeliver(record)  # the same interaction again, as Discord may resend it
    for _ in range(4):  # forged modal submits
        batch = [server.forged_modal_submit(channel, rng.choice([alice, bob]),
                                            custom_id(rng, [1], open_multi.id),
                                            {"answer": unicode_text(rng)},
                                            message_id=question.id if rng.random() < 0.5 else None)
                 for _ in range(50)]  # fmt: skip
        records += await asyncio.gather(*batch)

    def unanswered() -> list[Any]:
        return [r for r in records if r.response is None]

    with contextlib.suppress(AssertionError):
        await server.wait_for(lambda: not unanswered(), 30.0, "every interaction answered")
    assert [(r.type, str(r.payload["data"])[:200], [c.status for c in r.callbacks])
            for r in unanswered()] == []  # fmt: skip
    await h.app.quiz.flush()
    elapsed = time.monotonic() - started
    autocompletes = [r for r in records if r.type == AUTOCOMPLETE]
    assert autocompletes and all(r.response == {"type": 8, "data": {"choices": []}} for r in autocompletes)
    assert await totals(h, open_multi.id) == before
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [f"{r.name}: {r.getMessage()[:300]}" for r in tracebacks] == []
    assert server.spec_violations == []
    assert len(records) > 2500
    print(f"discord fuzz: {len(records)} interactions in {elapsed:.1f} s")
