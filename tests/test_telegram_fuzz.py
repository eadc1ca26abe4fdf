"""Callback-data fuzz against the running adapter: hundreds of random and mutated button payloads
on real question messages; every click is answered, nothing is recorded, nothing is sent."""

from __future__ import annotations

import logging
import random

from bot.locales.i18n import t
from tests import fuzz_text
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.test_telegram_harness import (
    ANN,
    BOB,
    CAT,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)
from tests.waits import HANG

ALPHABET = "at sgl1:0123456789ABCDEFZabz-_/\\%&<>\"'\n\x00é试😀"


def payloads(rng: random.Random, round_ids: list[int], valid: set[str], count: int) -> list[str]:
    seeds = ["l1:zh", "l1:en"]
    for r in round_ids:
        seeds += [f"a1:{r}:A", f"t1:{r}:B", f"s1:{r}", f"g1:{r}:full"]
    out: list[str] = []
    while len(out) < count:
        kind = rng.randrange(4)
        if kind == 0:  # noise
            data = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 70)))
        elif kind == 1:  # a real payload with a character changed, dropped or added
            data = list(rng.choice(seeds))
            at = rng.randrange(len(data))
            op = rng.randrange(3)
            if op == 0:
                data[at] = rng.choice(ALPHABET)
            elif op == 1:
                del data[at]
            else:
                data.insert(at, rng.choice(ALPHABET))
            data = "".join(data)
        elif kind == 2:  # well-formed, but another round, type or option
            prefix = rng.choice(["a1", "t1", "s1", "g1"])
            round_id = rng.choice([*round_ids, 0, 10**15, rng.randrange(1, 10**6)]) + rng.choice([0, 0, 1])
            token = rng.choice(["A", "D", "E", "Z", "true", "false", "full", "zero"])
            data = f"{prefix}:{round_id}" + ("" if prefix == "s1" else f":{token}")
        else:  # structure games
            data = rng.choice(seeds) + rng.choice([":", "::", " ", "\n", ":A", "0"])
        if data not in valid and data:
            out.append(data)
    return out


async def test_random_button_payloads_are_answered_and_change_nothing(tg: TelegramHarness, caplog) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, ANN, "member")
    await tg.say(GROUP, ANN, "/quiz single")
    single = server.last_message(GROUP.id)
    await tg.say(GROUP, ANN, "/quiz multi")
    multi = server.last_message(GROUP.id)
    round_ids = [round_of(single), round_of(multi)]
    valid = {*single.callback_data, *multi.callback_data, "l1:zh", "l1:tw", "l1:en"}
    valid |= {f"a1:{round_ids[0]}:{x}" for x in "ABCD"} | {f"t1:{round_ids[1]}:{x}" for x in "ABCD"}
    sent_before = len(server.calls("sendMessage"))
    caplog.set_level(logging.WARNING)

    rng = random.Random(20261202)
    data = payloads(rng, round_ids, valid, 300)
    query_ids = [server.user_click(GROUP, BOB, rng.choice([single, multi]).message_id, d, check=False)
                 for d in data]  # fmt: skip
    closed = t("en", "receipt.closed")
    for query_id, payload in zip(query_ids, data, strict=True):
        answer = await server.wait_for_callback_answer(query_id)
        assert answer.get("text") == closed, payload

    await tg.settle()
    for round_id in round_ids:
        assert await app.store.round_answers(round_id) == []
    user = app.quiz.selections
    assert [await user.get(r, _bob()) for r in round_ids] == [()] * len(round_ids)
    assert len(server.calls("sendMessage")) == sent_before
    assert not server.calls("editMessageText") and not server.calls("editMessageReplyMarkup")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def _bob():
    from telegram import User

    from adapters.telegram.render import user_ref

    return user_ref(User(BOB.id, BOB.first_name, False))


# ---------------------------------------------------------------- thousands of updates (issue 20)

FUZZ_SEED = 20261203
# Any character Telegram can carry (valid Unicode: no lone surrogates), with the troublesome ones
# more often: controls, joiners, right-to-left marks, full-width digits, CJK, emoji.
SPICE = "\x00\x01\x1b\x7f\u200b\u200d\u202e\u2066\ufeff\u3000１２：３０对错全对不会总榜本周开关🇦😀\n\t"
# A valid word for each argument, so that a line can carry exactly one bad one.
GOOD = {
    "practice": "next", "number": "3", "type": "single", "tag": "ml", "switch": "on", "time": "08:30",
    "window": "week", "scope": "channel", "of": "group", "language": "en", "timezone": "Asia/Tokyo",
    "deadline": "12h", "mode": "buttons", "questions": "2", "seconds": "30", "bank": "sample",
    "file": "x.csv", "response": "A", "level": "full", "id": "1", "note": "ok", "text": "typo",
    "command": "quiz", "user": "", "order": "ordered", "confirm": "confirm", "cause": "careless",
    "date": "2026-12-20", "budget": "30min", "quiet": "off", "quiet_from": "22:30", "quiet_until": "07:00",
    "day_start": "04:00",
    "retention": "0.85",
}  # fmt: skip


def unicode_text(rng: random.Random, longest: int = 60) -> str:
    return fuzz_text.unicode_text(rng, SPICE, longest)


# What issue 20 found for each kind: tz folders and names too long for a file, numbers past a
# float's or SQLite's range.
KIND_TROUBLE = {
    "timezone": ["Etc", "US", "America/Argentina", "Europe/" * 40 + "Paris", "asia/shangai", "localtime"],
    "duration": ["9" * 309, "9" * 400 + "m", "1e9h", "0.0000001s", "١٢h"],
    "int": ["18446744073709551616", "9" * 5000, "-9223372036854775809", "１２", "1_0"],
}


def bad_value(rng: random.Random, kind: str = "") -> str:
    """One argument's worth of trouble: what issue 20 found, and random text."""
    if kind in KIND_TROUBLE and rng.random() < 0.6:
        return rng.choice(KIND_TROUBLE[kind])
    return rng.choice([
        "Etc", "US", "America/Argentina", "Europe/" * 40 + "Paris", "9" * 309, "9" * 400 + "m",
        "18446744073709551616", "-1", "0", "1e9", "25:99", "24:00", "-0", "0x10", "1_0", "١٢",
        "\u202eon", "x" * 3000, "NaN", "inf", "∞", "../../etc/passwd", "/", "=", "tag=", "=x",
        unicode_text(rng, 12).replace(" ", "") or "?", unicode_text(rng, 200).replace(" ", "") or "?",
    ])  # fmt: skip


def command_lines(rng: random.Random, count: int) -> list[str]:
    """Every command of the catalog with one argument replaced by a bad value at a time (or an
    extra one, or none), by its name or its position."""
    from bot.application.commands.arguments import ArgKind
    from bot.application.commands.catalog import CATALOG

    lines = []
    while len(lines) < count:
        command = rng.choice(CATALOG)
        args = [a for a in command.args if a.kind is not ArgKind.USER]
        words = [GOOD[a.name] for a in args if a.required or rng.random() < 0.5]
        if args and rng.random() < 0.85:
            at = rng.randrange(len(args))
            word = bad_value(rng, args[at].kind)
            if rng.random() < 0.3:
                words.append(f"{args[at].name}={word}")
            else:
                words.insert(min(at, len(words)), word)
        elif rng.random() < 0.5:
            words.append(bad_value(rng))
        lines.append(" ".join([f"/{command.name}", *words]))
    return lines


def other_updates(rng: random.Random, group_message: dict, private_message: dict) -> list[tuple[str, dict]]:
    """Update kinds and shapes beside text and clicks: edits, channel posts, service messages,
    media without text, messages sent as a channel, callback queries without `from`, data or
    message, member changes of odd kinds, kinds the bot did not ask for."""
    bob = BOB.to_json()
    # Any of many groups: Telegram lets a bot send 20 messages a minute into each.
    chat = FakeChat(-1002000000 - rng.randrange(40), "supergroup", title="g").to_json()
    base = {"message_id": 9_000_000, "date": 1_700_000_000, "chat": chat, "from": bob}
    channel = {"id": -100777, "type": "channel", "title": "news"}
    member = {"user": {"id": 1, "is_bot": True, "first_name": "bot"}, "status": "member"}
    left = {"user": {"id": 1, "is_bot": True, "first_name": "bot"}, "status": "left"}
    choices: list[tuple[str, dict]] = [
        ("edited_message", {**base, "text": "/quiz", "edit_date": 1_700_000_001}),
        ("channel_post", {**base, "chat": channel, "text": "/quiz"}),
        ("edited_channel_post", {**base, "chat": channel, "text": "x", "edit_date": 1}),
        (
            "message",
            {
                **base,
                "sticker": {
                    "file_id": "s",
                    "file_unique_id": "s",
                    "type": "regular",
                    "width": 1,
                    "height": 1,
                    "is_animated": False,
                    "is_video": False,
                },
            },
        ),
        ("message", {**base, "text": "/quiz", "sender_chat": channel}),
        (
            "message",
            {**{k: v for k, v in base.items() if k != "from"}, "text": "/stats", "sender_chat": chat},
        ),
        ("message", {**base, "new_chat_members": [bob]}),
        ("message", {**base, "left_chat_member": bob}),
        ("message", {**base, "text": "", "entities": []}),
        ("message", {**base, "text": "/", "entities": [{"type": "bot_command", "offset": 0, "length": 1}]}),
        (
            "message",
            {**base, "text": "/quiz@", "entities": [{"type": "bot_command", "offset": 0, "length": 6}]},
        ),
        ("message", {**base, "reply_to_message": group_message, "text": unicode_text(rng)}),
        (
            "message",
            {**base, "chat": private_message["chat"], "from": ANN.to_json(), "text": unicode_text(rng)},
        ),
        (
            "callback_query",
            {"id": f"q{rng.random()}", "chat_instance": "c", "data": "a1:1:A", "message": group_message},
        ),  # no from
        (
            "callback_query",
            {"id": f"q{rng.random()}", "from": bob, "chat_instance": "c", "message": group_message},
        ),  # no data
        (
            "callback_query",
            {
                "id": f"q{rng.random()}",
                "from": bob,
                "chat_instance": "c",
                "inline_message_id": "im",
                "data": "a1:1:A",
            },
        ),  # no message
        (
            "callback_query",
            {
                "id": f"q{rng.random()}",
                "from": bob,
                "chat_instance": "c",
                "game_short_name": "g",
                "message": group_message,
            },
        ),
        (
            "my_chat_member",
            {"chat": chat, "from": bob, "date": 1, "old_chat_member": left, "new_chat_member": member},
        ),
        (
            "my_chat_member",
            {
                "chat": private_message["chat"],
                "from": bob,
                "date": 1,
                "old_chat_member": member,
                "new_chat_member": member,
            },
        ),
        ("inline_query", {"id": "i", "from": bob, "query": "x", "offset": ""}),
        ("poll_answer", {"poll_id": "p", "user": bob, "option_ids": [0]}),
        ("chat_join_request", {"chat": chat, "from": bob, "user_chat_id": bob["id"], "date": 1}),
    ]
    return [rng.choice(choices) for _ in range(1)]


async def test_thousands_of_updates_of_every_kind_leave_no_traceback(tg: TelegramHarness, caplog) -> None:
    """Seeded and bounded: random Unicode, every command with one bad argument at a time, forged
    and duplicated clicks, and other update kinds, in a group and in private chats, through the
    real PTB against the fake. The bot's log holds no traceback and no ERROR; every click is
    answered; no forged click records anything.

    Telegram lets a bot send 30 messages a second and 20 a minute into one group (the adapter's
    rate limiter keeps to that), so the payloads that get a message back (commands, private
    text) are a few hundred, spread over private chats; the rest (clicks, group chatter, other
    kinds) get a toast or nothing."""
    import time

    server = tg.server
    app = await tg.start()
    rng = random.Random(FUZZ_SEED)
    server.set_member_status(GROUP.id, ANN, "administrator")
    server.set_member_status(GROUP.id, BOB, "member")
    await tg.say(GROUP, ANN, "/quiz single")
    single = server.last_message(GROUP.id)
    await tg.say(ANN.id, ANN, "/quiz single")
    private = server.last_message(ANN.id)
    round_ids = [round_of(single), round_of(private)]
    valid = {*single.callback_data, *private.callback_data}
    caplog.set_level(logging.WARNING)
    started = time.monotonic()

    languages = ["en", "zh-hans", "zh-hant", None]
    people = [ANN, BOB, CAT, *(FakeUser(100 + n, f"P{n}", None, rng.choice(languages)) for n in range(6))]
    messages: list[tuple[FakeChat | int, FakeUser, str, int | None]] = []
    for line in command_lines(rng, 320):  # commands: in private chats, a few in the group
        person = rng.choice(people)
        messages.append((person.id, person, line, None))
    for line in command_lines(rng, 5):
        messages.append((GROUP, rng.choice([ANN, BOB]), line, None))
    for _ in range(100):  # typed text in private chats: an answer, or "nothing open"
        person = rng.choice(people)
        messages.append((person.id, person, unicode_text(rng), None))
    for _ in range(800):  # group chatter: no message back (a reply to a question: one in 200)
        reply_to = single.message_id if rng.random() < 0.005 else None
        messages.append((GROUP, rng.choice(people), unicode_text(rng), reply_to))
    rng.shuffle(messages)
    forged = payloads(rng, round_ids, valid, 700)
    click_ids: list[str] = []
    others = 0
    for index, (chat, user, text, reply_to) in enumerate(messages):
        server.user_message(chat, user, text, reply_to_message_id=reply_to)
        if index % 5 != 4:  # forged clicks between the messages, sometimes twice
            data = forged[index % len(forged)]
            target_chat, target = rng.choice([(GROUP, single), (ANN.id, private)])
            for _ in range(rng.choice([1, 1, 2])):
                click_ids.append(server.user_click(target_chat, rng.choice(people), target.message_id, data,
                                                   check=False))  # fmt: skip
        if index % 8 == 0:
            kind, update = other_updates(rng, single.to_json(), private.to_json())[0]
            server.queue_update(kind, update)
            others += 1
    await server.wait_until(lambda: not server.pending_updates, timeout=50)
    await tg.settle()
    for query_id in click_ids:
        await server.wait_for_callback_answer(query_id, timeout=HANG)
    elapsed = time.monotonic() - started
    # The callback queries without `from` were forged on purpose: Telegram never sends them.
    server.fake_errors[:] = [
        e for e in server.fake_errors if not e.endswith("CallbackQuery needs field from")
    ]

    assert await app.store.round_answers(round_ids[1]) == []  # no forged click answered a question
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [f"{r.name}: {r.getMessage()[:300]}" for r in tracebacks] == []
    total = len(messages) + len(click_ids) + others
    assert total > 2500
    print(f"telegram fuzz: {total} updates ({len(click_ids)} clicks) in {elapsed:.1f} s")
