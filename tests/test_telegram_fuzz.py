"""Callback-data fuzz against the running adapter: hundreds of random and mutated button payloads
on real question messages; every click is answered, nothing is recorded, nothing is sent."""

from __future__ import annotations

import logging
import random

from bot.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import (
    ANN,
    BOB,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)

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
