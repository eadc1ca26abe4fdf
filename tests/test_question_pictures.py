"""A question's pictures (Question.images) shown with it on each platform: Telegram sends each
as a photo before the question, Discord attaches them to the question message, the console
writes them into its data directory and prints where, the web app shows them as <img> the bot
serves; the outbox keeps references, not bytes."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from bot.domain.questions import Bank, BankImage
from tests.conftest import make_bank
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.test_console import run_console
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_telegram_harness import ANN, TelegramHarness, buttons, tg_fixture  # noqa: F401


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


async def test_a_daily_posted_again_after_flood_control_sends_its_photo_once(tg: TelegramHarness) -> None:
    """The outbox posts the daily again after a 429 on the question (its photo went out): the
    photo is not sent twice."""
    server = tg.server
    tg.bank = single_only()
    await tg.start(max_retries=1)
    await tg.say(ANN.id, ANN, "/daily 08:00 1h")
    server.fail_next("sendMessage", times=2, retry_after=1)  # the limiter retries once, then the outbox
    await tg.advance(23 * 3600)
    daily = await tg.question(ANN.id)
    assert daily.text.startswith("Daily question") and "2+2=?" in daily.text
    statuses = [
        e.status for e in server.log if e.method == "sendMessage" and e.params.get("chat_id") == ANN.id
    ]
    assert statuses.count(429) == 2
    photos = [m for m in server.messages_in(ANN.id) if m.file is not None]
    assert len(photos) == 1 and photos[0].file is not None and photos[0].file.data == png()


# ---------------------------------------------------------------- Discord


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


# ---------------------------------------------------------------- the console, as a process

CONSOLE_BANK = """id: pics
title: 图片题库
language: zh-CN
source: test
questions:
  - id: pics-001
    number: 1
    type: single
    stem: 下图中的网络结构是（ ）
    options: {A: 卷积网络, B: 循环网络}
    answer: A
    images: [net.png]
"""


def test_the_console_writes_the_picture_and_prints_its_path(tmp_path: Path) -> None:
    """A bank file's picture (from pics.images/): written into the data directory, its path said
    in the chat's language before the question."""
    (tmp_path / "banks" / "pics.images").mkdir(parents=True)
    (tmp_path / "banks" / "pics.yaml").write_text(CONSOLE_BANK, encoding="utf-8")
    (tmp_path / "banks" / "pics.images" / "net.png").write_bytes(png((1, 2, 3)))
    config = tmp_path / "c.yaml"
    config.write_text(
        f"language: zh-CN\ndefault_bank: pics\nbank_paths: [{tmp_path / 'banks' / 'pics.yaml'}]\n"
    )
    result = run_console(tmp_path, "/quiz\nA\n/quit\n", "--config", str(config))
    assert result.returncode == 0, result.stderr
    saved = (tmp_path / "data" / "pictures" / "pics-net.png").resolve()
    out = result.stdout
    assert f"题目图片：{saved}" in out, out
    assert out.index("题目图片：") < out.index("下图中的网络结构是")
    assert saved.read_bytes() == png((1, 2, 3))


def test_an_uploaded_paper_keeps_its_picture_across_a_restart(tmp_path: Path) -> None:
    """A Word paper with a picture uploaded with /bank import and confirmed: the question shows
    its picture, and so it does in the next run (the stored bank holds the bytes)."""
    from tests.test_console_process import sample_config
    from tests.test_importer_pdf import picture_docx

    paper = tmp_path / "net.docx"
    paper.write_bytes(picture_docx())
    config = str(sample_config(tmp_path))
    first = run_console(
        tmp_path, f"/bank import {paper}\n/bank confirm\n/quiz 1\n/quit\n", "--config", config
    )
    assert first.returncode == 0, first.stderr
    assert "Its 1 picture is kept with its question and shown with it." in first.stdout
    again = run_console(tmp_path, "/quiz 1\n/quit\n", "--config", config)
    for result in (first, again):
        out = result.stdout
        assert "Picture of the question: " in out, out
        path = Path(out.split("Picture of the question: ", 1)[1].split("\n", 1)[0])
        assert path.parent == (tmp_path / "data" / "pictures").resolve()
        assert path.read_bytes() == _blue_png()
        assert out.index("Picture of the question: ") < out.index("下图中的网络结构是")


def _blue_png() -> bytes:
    from tests.test_importer_pdf import _png

    return _png((30, 30, 200))


# ---------------------------------------------------------------- the web app


@pytest.fixture
async def web_served(tmp_path: Path):
    import random

    from studybot.bootstrap import bootstrap
    from studybot.config import Config
    from studybot.ops import start_server
    from tests.fakes.ports import ManualScheduler
    from tests.test_web_access import TOKEN

    bank = single_only()
    config = Config(
        data_dir=tmp_path, default_bank=bank.id, sqlite_synchronous="NORMAL", http_port=0,
        http_listen="127.0.0.1", web_url="https://study.example", telegram_token=TOKEN,
    )  # fmt: skip
    app = await bootstrap(
        config, rng=random.Random(1), banks={bank.id: bank}, scheduler=ManualScheduler(None)
    )
    server = await start_server(app, config, [])
    assert server is not None
    yield app, f"http://127.0.0.1:{server.port}/app"
    await server.stop()
    await app.close()


async def test_the_web_app_shows_the_picture_the_bot_serves(web_served) -> None:
    import aiohttp

    from tests.test_web_access import secure_jar, signed_in

    app, base = web_served
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}
        async with session.post(f"{base}/api/drill/start", json={"mode": "random"}, headers=headers) as r:
            shown = await r.json()
        assert shown["kind"] == "question" and shown["stem"] == "2+2=?"
        assert shown["pictures"] == ["/app/api/picture/sample/s-1-1.png"]
        origin = base.removesuffix("/app")
        async with session.get(origin + shown["pictures"][0]) as r:
            assert r.status == 200 and r.content_type == "image/png"
            assert await r.read() == png()
        async with session.post(f"{base}/api/mock/start", headers=headers) as r:
            item = await r.json()
        assert item["kind"] == "mock_question" and item["pictures"] == ["/app/api/picture/sample/s-1-1.png"]
        token = item["buttons"][0][0]
        for act in ("pick", "submit"):  # answered and handed in: the report, then item 1 reviewed
            body = {"act": act, "mock_id": item["mock_id"], "item": 1, "token": token}
            async with session.post(f"{base}/api/mock/act", json=body, headers=headers) as r:
                assert r.status == 200, await r.text()
        async with session.get(f"{base}/api/mock/{item['mock_id']}/review/1") as r:
            review = await r.json()
        assert review["kind"] == "mock_review" and review["pictures"] == ["/app/api/picture/sample/s-1-1.png"]
        for missing in ("sample/nope.png", "other-bank/s-1-1.png"):
            async with session.get(f"{base}/api/picture/{missing}") as r:
                assert r.status == 404
    async with aiohttp.ClientSession() as stranger, stranger.get(origin + shown["pictures"][0]) as r:
        assert r.status == 401  # no session: no picture


# ---------------------------------------------------------------- the mock exam's items


async def test_a_discord_mock_item_carries_its_picture_and_the_next_item_drops_it(harness: Harness) -> None:
    from tests.test_study_e2e_discord import Seat

    h = harness
    h.bank = picture_bank()
    await h.start()
    seat = Seat(h, h.general, h.world.student)
    first = await seat.reply("mock", sub="start")
    assert "2+2=?" in first.content  # item 1: the single-choice item, with its picture
    assert [a["filename"] for a in first.data["attachments"]] == ["s-1-1.png"]
    mock_id = next(cid for cid in first.custom_ids() if cid.startswith("sb:mk:")).split(":")[2]
    turned = await h.click(seat.member, first, f"sb:mk:{mock_id}:1:p:B", channel=seat.channel)
    assert turned is not None and turned.id == first.id and "Primes?" in turned.content
    assert turned.data.get("attachments", []) == []  # item 2 has none: item 1's is gone
    back = await h.click(seat.member, turned, f"sb:mk:{mock_id}:2:b", channel=seat.channel)
    assert back is not None and "2+2=?" in back.content
    assert [a["filename"] for a in back.data["attachments"]] == ["s-1-1.png"]


async def test_a_telegram_mock_item_with_a_picture_comes_under_its_photo(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start()
    first = await tg.say(ANN.id, ANN, "/mock start")
    assert "2+2=?" in first["text"]
    sent = [m for m in server.messages_in(ANN.id) if m.from_bot]
    photos = [m for m in sent if m.file is not None]
    assert len(photos) == 1 and photos[0].file is not None and photos[0].file.data == png()
    assert sent.index(photos[0]) == len(sent) - 2  # the photo, then the item
    page = server.last_message(ANN.id)
    data = buttons(page)
    pick = next(v for v in data.values() if v.startswith("m1:") and v.endswith(":1:p:B"))
    mock_id = pick.split(":")[1]
    await tg.click(ANN.id, ANN, page.message_id, pick)  # answered: the same message, now item 2
    await server.wait_until(lambda: "Primes?" in page.text, 30)
    assert server.last_message(ANN.id) is page and len([m for m in server.messages_in(ANN.id) if m.file]) == 1
    await tg.click(ANN.id, ANN, page.message_id, f"m1:{mock_id}:2:b")  # back to item 1: under its photo anew
    again = await server.wait_until(
        lambda: (m := server.last_message(ANN.id)) is not page and "2+2=?" in m.text and m, 30
    )
    after = [m for m in server.messages_in(ANN.id) if m.from_bot]
    assert after[-2].file is not None and after[-2].file.data == png() and after[-1] is again
    assert buttons(page) == {}  # the old page keeps no buttons


def test_the_outbox_keeps_a_question_s_picture_references_not_its_bytes() -> None:
    from datetime import UTC, datetime

    from adapters.storage.outbox_codec import decode, encode
    from bot.domain.kinds import AnswerPolicy, InputKind, RevealPolicy, RoundKind
    from bot.domain.questions import QuestionType
    from bot.views.quiz import QuestionView

    at = datetime(2026, 12, 4, tzinfo=UTC)
    view = QuestionView(
        round_id=1,
        chat_id=1,
        kind=RoundKind.DAILY,
        qtype=QuestionType.SINGLE,
        input_kind=InputKind.CHOOSE_ONE,
        number=1,
        stem="2+2=?",
        options=(),
        points=1.0,
        opened_at=at,
        closes_at=at,
        reveal=RevealPolicy.ROUND,
        answer_policy=AnswerPolicy.FIRST,
        language="en",
        timezone="UTC",
        bank_id="sample",
        images=("s-1-1.png",),
    )
    kind, text = encode(view)
    assert '"images":["s-1-1.png"]' in text and '"bank_id":"sample"' in text and len(text) < 1000
    assert decode(kind, text) == view
