"""A question's pictures (Question.images) shown with it on each platform: Telegram sends each
as a photo before the question, Discord attaches them to the question message, the console
writes them into its data directory and prints where, the web app shows them as <img> the bot
serves; the outbox keeps references, not bytes."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from bot.domain.questions import Bank, BankImage
from tests.conftest import make_bank
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_telegram_harness import ANN, TelegramHarness, tg_fixture  # noqa: F401


def png(colour: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (24, 16), colour).save(out, format="PNG")
    return out.getvalue()


def picture_bank() -> Bank:
    """The sample bank with a picture on its single-choice item (s-1)."""
    base = make_bank()
    questions = tuple(replace(q, images=("s-1-1.png",)) if q.id == "s-1" else q for q in base.questions)
    return replace(base, questions=questions, images=(BankImage("s-1-1.png", png()),))


@pytest.fixture
def bank() -> Bank:
    return picture_bank()


async def test_telegram_sends_the_picture_as_a_photo_before_the_question(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    await tg.say(ANN.id, ANN, "/quiz single")
    photo = await server.wait_for_request("sendPhoto", lambda p: p["chat_id"] == ANN.id)
    question = server.last_message(ANN.id)
    assert question.text.startswith("Practice · Q1 · Single choice")
    sent = [m for m in server.messages_in(ANN.id) if m.from_bot]
    [picture] = [m for m in sent if m.params is photo]
    assert picture.file is not None and picture.file.kind == "photo" and picture.file.data == png()
    assert sent.index(picture) == sent.index(question) - 1  # the picture, then the question


async def test_telegram_sends_no_photo_for_a_question_without_pictures(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    await tg.say(ANN.id, ANN, "/quiz judge")
    question = server.last_message(ANN.id)
    assert "True or false" in question.text
    assert not [m for m in server.messages_in(ANN.id) if m.file is not None]


# ---------------------------------------------------------------- Discord

from tests.test_discord_harness import (  # noqa: E402, F401  (fixtures)
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)


def single_only() -> Bank:
    bank = picture_bank()
    return replace(bank, questions=tuple(q for q in bank.questions if q.id == "s-1"))


async def _uploaded(h: Harness, name: str) -> bytes:
    upload = await h.server.wait_for_request(
        "POST", r"^/(interactions|webhooks|channels)/", lambda r: name in r.uploads
    )
    return upload.uploads[name]


async def test_discord_attaches_the_picture_to_the_question_of_a_command(harness: Harness) -> None:
    h = harness
    h.bank = picture_bank()
    await h.start()
    question = await h.command(h.world.student, "quiz", {"type": "single"})
    assert question is not None
    assert question.data["embeds"][0]["title"].startswith("Practice · Q1 · Single choice")
    assert [a["filename"] for a in question.data["attachments"]] == ["s-1-1.png"]
    assert await _uploaded(h, "s-1-1.png") == png()


async def test_discord_attaches_the_picture_to_a_posted_daily(harness: Harness) -> None:
    """The outbox's path: the stored view names the picture, the adapter sends its bytes."""
    h = harness
    h.bank = single_only()
    await h.start()
    await h.command(h.world.admin, "daily", {"time": "09:30", "deadline": "2h"}, sub="set")
    await h.app.scheduler.advance(30 * 60)
    round_ = await h.last_round()
    question = await h.message_of(round_.id)
    assert "2+2=?" in question.data["embeds"][0]["description"]
    assert [a["filename"] for a in question.data["attachments"]] == ["s-1-1.png"]
    assert await _uploaded(h, "s-1-1.png") == png()
