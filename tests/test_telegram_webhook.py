"""Telegram in webhook mode at scale (the real PTB and webhook server, the fake Telegram delivering
updates to it): the configured secret is checked on every request, and several processes behind
one URL share the work, with one chat's updates in order and each answer counted once."""

from __future__ import annotations

import asyncio
import logging
import re
import signal
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from adapters.telegram.polling import SECRET_HEADER, HandlingWebhook
from bot.domain.clock import ManualClock
from bot.domain.questions import Bank
from bot.locales.i18n import t
from studybot.config import ConfigError, Secret, load_config
from tests.contract.conftest import fresh_database, pg_server  # noqa: F401  (the PostgreSQL server)
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.fakes.telegram_server import FakeTelegramServer
from tests.pg_server import PgServer
from tests.process import BotProcess
from tests.test_telegram_harness import (
    ANN,
    GROUP,
    TelegramHarness,
    round_of,
    tg_fixture,  # noqa: F401
)
from tests.waits import HANG

SECRET = "same-secret-in-every-process_0123"
URL = "https://bot.example.org/tg/hook"


def webhook(secret: str = SECRET) -> dict[str, Any]:
    return {"telegram_webhook_url": URL, "telegram_webhook_listen": "127.0.0.1", "telegram_webhook_port": 0,
            "telegram_webhook_secret": Secret(secret)}  # fmt: skip


def address(harness: TelegramHarness) -> str:
    """Where the load balancer reaches this process's webhook server."""
    assert harness.adapter is not None and isinstance(harness.adapter.receiver, HandlingWebhook)
    return f"http://127.0.0.1:{harness.adapter.receiver.bound_port}"


def test_webhook_mode_needs_the_secret_from_the_configuration() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(env={"TELEGRAM_WEBHOOK_URL": URL})
    assert str(caught.value) == "config: " + t("zh-CN", "config.webhook_secret_missing")
    with pytest.raises(ConfigError) as caught:
        load_config(env={"TELEGRAM_WEBHOOK_URL": URL, "STUDYBOT_TELEGRAM_WEBHOOK_SECRET": "has spaces!"})
    assert "has spaces" not in str(caught.value)  # a secret is never shown, even a bad one
    config = load_config(env={"TELEGRAM_WEBHOOK_URL": URL, "STUDYBOT_TELEGRAM_WEBHOOK_SECRET": SECRET})
    assert config.telegram_webhook_secret.value == SECRET and SECRET not in repr(config)


async def test_a_request_without_the_right_secret_gets_403_and_changes_nothing(
    tg: TelegramHarness, caplog: pytest.LogCaptureFixture
) -> None:
    server = tg.server
    caplog.set_level(logging.DEBUG)
    app = await tg.start(**webhook())
    server.webhook_delivery.targets = [address(tg)]
    await tg.say(ANN.id, ANN, "/quiz single")
    question = server.last_message(ANN.id)
    round_id = round_of(question)
    await tg.settle()
    seen = len(server.log)
    forged = {
        "update_id": 90_000, "callback_query": {
            "id": "4999999999999", "from": ANN.to_json(), "chat_instance": "ci7",
            "data": f"a1:{round_id}:B", "message": question.to_json(),
        },
    }  # fmt: skip
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {SECRET_HEADER: ""}, {SECRET_HEADER: "wrong"}, {SECRET_HEADER: SECRET + "x"},
                        {SECRET_HEADER: SECRET[:-1] + "é"}):  # fmt: skip
            async with http.post(address(tg) + "/tg/hook", json=forged, headers=headers) as response:
                assert response.status == 403, headers
    assert await app.store.round_answers(round_id) == []  # no answer stored
    assert len(server.log) == seen  # nothing sent: no toast, no message, no edit
    assert question.reply_markup is not None

    # The same click through Telegram, with the secret, is handled.
    toast = await tg.click(ANN.id, ANN, question.message_id, f"a1:{round_id}:B")
    assert toast == t("en", "receipt.correct", points=1)
    [stored] = await app.store.round_answers(round_id)
    assert stored.response == "B"
    assert server.calls("setWebhook")[0]["secret_token"] == SECRET
    assert SECRET not in caplog.text  # not even in PTB's DEBUG dump of the setWebhook request


async def test_two_processes_behind_one_url_keep_a_chats_order_and_count_each_answer_once(
    telegram_server: FakeTelegramServer, tmp_path: Path, bank: Bank, clock: ManualClock  # noqa: F811
) -> None:
    server = telegram_server
    one = TelegramHarness(server, tmp_path, bank, clock)
    two = TelegramHarness(server, tmp_path, bank, clock)  # the same database
    try:
        await one.start(**webhook())
        await two.start(**webhook())
        first, second = server.calls("setWebhook")
        assert first == second and first["secret_token"] == SECRET  # each process sets the same
        server.webhook_delivery.targets = [address(one), address(two)]  # a round-robin balancer

        # One chat's updates, taken in turn by the two processes, are answered in order: Telegram
        # sends the next only once the last was answered, and a process answers once handled.
        commands = ["/stats", "/streak", "/tags", "/stats", "/leaderboard", "/streak"]  # one message each
        for text in commands:
            server.user_message(ANN.id, ANN, text)

        def replies() -> list[str]:
            return [p["text"] for p in server.calls("sendMessage") if p["chat_id"] == ANN.id]

        await server.wait_until(lambda: len(replies()) >= len(commands), timeout=HANG)
        await server.wait_until(lambda: not server.pending_updates)
        streak = t("en", "streak.body", count=0, best=0)
        stats = [text.startswith("<b>Stats for Ann</b>") for text in replies()]
        assert stats == [c == "/stats" for c in commands]
        assert [text == streak for text in replies()] == [c == "/streak" for c in commands]
        handled_by = {d.target for d in server.webhook_delivery.log if d.status == 200}
        assert handled_by == {address(one), address(two)}

        # A group question answered by many: each click handled by whichever process gets it.
        server.set_member_status(GROUP.id, ANN, "member")
        await one.say(GROUP, ANN, "/quiz single")
        question = server.last_message(GROUP.id)
        round_id = round_of(question)
        members = [FakeUser(200 + i, f"Member{i}", f"member{i}", "en") for i in range(6)]
        clicks = [server.user_click(GROUP, m, question.message_id, f"a1:{round_id}:B") for m in members]
        toasts = [await server.wait_for_callback_answer(q, timeout=HANG) for q in clicks]
        assert all(toast.get("text") for toast in toasts)
        stored = await one.app.store.round_answers(round_id)
        assert sorted(a.user_id for a in stored) == sorted({a.user_id for a in stored}) and len(stored) == 6

        # Telegram sends a click again when its answer was lost; the other process counts it once.
        server.webhook_delivery.targets = [address(two)]
        again = server.user_click(GROUP, members[0], question.message_id, f"a1:{round_id}:B")
        assert (await server.wait_for_callback_answer(again, timeout=HANG)).get("text")
        assert len(await two.app.store.round_answers(round_id)) == 6
        assert all(d.status == 200 for d in server.webhook_delivery.log)
    finally:
        await two.stop()
        await one.stop()


# ---------------------------------------------------------------- as real processes


async def test_two_studybot_processes_on_one_database_share_the_webhook_and_survive_one_killed(
    telegram_server: FakeTelegramServer, pg_server: PgServer, tmp_path: Path  # noqa: F811
) -> None:
    server = telegram_server
    config = tmp_path / "studybot.yaml"
    config.write_text("language: en\ntelegram_webhook_listen: 127.0.0.1\ntelegram_webhook_port: 0\n")
    env = {"TELEGRAM_TOKEN": server.token, "TELEGRAM_API_BASE": server.base_url, "TELEGRAM_WEBHOOK_URL": URL,
           "STUDYBOT_TELEGRAM_WEBHOOK_SECRET": SECRET,
           "STUDYBOT_DATABASE_URL": await fresh_database(pg_server)}  # fmt: skip
    bots = [await BotProcess.start(tmp_path / f"data{i}", config, env=env) for i in range(2)]
    try:
        targets = []
        for bot in bots:
            output = await bot.wait_for("telegram webhook: listening on", timeout=30)
            port = re.search(r"listening on 127\.0\.0\.1:(\d+)/tg/hook", output)
            assert port is not None, output
            targets.append(f"http://127.0.0.1:{port[1]}")
        await server.wait_until(lambda: len(server.calls("setWebhook")) == 2, timeout=30)
        server.webhook_delivery.targets = targets

        chat = {"id": ANN.id, "type": "private"}
        forged = {"update_id": 1, "message": {"message_id": 1, "date": 0, "chat": chat, "text": "/stats"}}
        async with aiohttp.ClientSession() as http:  # a forged update, on each process
            for target in targets:
                headers = {SECRET_HEADER: "no"}
                async with http.post(target + "/tg/hook", json=forged, headers=headers) as response:
                    assert response.status == 403

        server.set_member_status(GROUP.id, ANN, "member")
        server.user_message(GROUP, ANN, "/quiz single")
        await server.wait_until(lambda: server.messages_in(GROUP.id), timeout=HANG)
        question = server.last_message(GROUP.id)
        round_id = round_of(question)
        members = [FakeUser(300 + i, f"Member{i}", f"member{i}", "en") for i in range(4)]
        clicks = [server.user_click(GROUP, m, question.message_id, f"a1:{round_id}:B") for m in members]
        toasts = [(await server.wait_for_callback_answer(q, timeout=HANG)).get("text") for q in clicks]
        assert all(toasts), toasts
        served = {d.target for d in server.webhook_delivery.log if d.status == 200}
        assert served == set(targets)  # both processes took updates

        await bots[0].kill()  # one machine goes away; the balancer still sends it updates in turn
        again = server.user_click(GROUP, members[0], question.message_id, f"a1:{round_id}:B")
        toast = (await server.wait_for_callback_answer(again, timeout=HANG)).get("text", "")
        assert toast.startswith(t("en", "receipt.duplicate", choice="B")[:20]), toast  # counted once
        reply = await server_reply(server, ANN, "/stats")
        assert reply.startswith("<b>Stats for Ann</b>")
    finally:
        for bot in bots:
            if bot.proc.returncode is None:
                bot.proc.send_signal(signal.SIGTERM)
                async with asyncio.timeout(20):
                    await bot.proc.wait()
                    await bot._reader
    assert all(SECRET not in bot.output and server.token not in bot.output for bot in bots)
    assert "Traceback" not in bots[1].output, bots[1].output


async def server_reply(server: FakeTelegramServer, user: FakeUser, text: str) -> str:
    server.user_message(user.id, user, text)
    params = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == user.id, timeout=HANG)
    return str(params["text"])
