"""Names with bidirectional-text controls (U+202E and friends) are shown isolated in reveals and
leaderboards on Discord and Telegram (real libraries against the fakes), and bot.views.bidi itself."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.domain.questions import QuestionType
from bot.views.bidi import CONTROLS, FSI, PDI, isolate
from tests.conftest import make_bank
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_telegram_harness import (
    ANN,
    BOSS,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)

EVIL = "\u202eevil\u202c\u2066"  # an override, its end, and an isolate never closed
SHOWN = f"{FSI}evil{PDI}"


def only_single():
    bank = make_bank()
    return replace(bank, questions=tuple(q for q in bank.questions if q.type is QuestionType.SINGLE))


def test_isolate() -> None:
    assert isolate("bob") == "bob" and isolate("张三") == "张三"  # nothing that can reorder
    assert isolate(EVIL) == SHOWN
    assert isolate("محمد 12") == f"{FSI}محمد 12{PDI}"  # right-to-left letters keep to themselves
    assert isolate("a\u2069b") == f"{FSI}ab{PDI}"  # a stray PDI would close our isolate early
    assert isolate("".join(sorted(CONTROLS))) == ""


@pytest.mark.parametrize("control", sorted(CONTROLS))
def test_every_control_is_removed_and_the_rest_isolated(control: str) -> None:
    assert isolate(f"x{control}y") == f"{FSI}xy{PDI}"


async def test_discord_reveal_and_leaderboard_isolate_names(harness: Harness) -> None:
    h = harness
    h.bank = only_single()
    await h.start()
    alice = h.world.admin
    evil = h.member(EVIL)
    await h.command(alice, "daily", {"time": "09:30", "deadline": "1h"}, sub="set")
    await h.app.scheduler.advance(30 * 60)
    round_ = await h.last_round()
    question = await h.message_of(round_.id)
    for member in (evil, alice):
        await h.click(member, question, f"sb:a:{round_.id}:B")
        h.clock.advance(60)
    await h.app.scheduler.advance(3600)
    await h.server.wait_for(lambda: "Answer revealed" in embed_text(question), what="the reveal")
    assert f"Right: {SHOWN}, alice" in embed_text(question)
    assert "\u202e" not in embed_text(question)

    board = await h.command(alice, "leaderboard")
    lines = board.data["embeds"][0]["description"].splitlines()
    assert lines[1:] == [f"1. {SHOWN} — 1 pt (1/1)", "2. alice — 1 pt (1/1)"]


async def test_telegram_reveal_and_leaderboard_isolate_names(tg: TelegramHarness) -> None:
    server = tg.server
    evil = FakeUser(66, EVIL, "evil", "en")
    await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    for user in (ANN, evil):
        server.set_member_status(GROUP.id, user, "member")
    await tg.say(GROUP, BOSS, "/daily set 09:30 30m math")
    await tg.advance(30 * 60)
    question = await tg.question(GROUP.id)
    round_id = round_of(question)
    token = "B" if f"a1:{round_id}:B" in question.callback_data else "true"
    for user in (evil, ANN):
        await tg.click(GROUP, user, question.message_id, f"a1:{round_id}:{token}")
        tg.clock.advance(60)
    await tg.advance(30 * 60)
    await tg.reveal(question)
    assert f"Right: {SHOWN}, Ann" in question.text
    assert "\u202e" not in question.text

    await tg.say(GROUP, ANN, "/leaderboard")
    lines = server.last_message(GROUP.id).text.splitlines()
    assert lines[1] == f"1. {SHOWN} — 1 pt (1/1)"
