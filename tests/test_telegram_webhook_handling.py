"""Webhook mode: Telegram's POST of an update is answered (HTTP 200) only once the update was
handled, so an update whose handling a crash cut short is sent again, and then counts once.

The test plays Telegram's side of the webhook itself (the fake's own delivery is left without
targets): it POSTs the updates the fake Bot API queued to the bot's webhook endpoint, with the
secret token, so it can hold an update's handling and kill the bot in the middle."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import aiohttp

from adapters.telegram.polling import SECRET_HEADER
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import ApiError
from tests.fakes.telegram_server import FakeTelegramServer
from tests.process import BotProcess, terminate
from tests.test_telegram_harness import ANN, TelegramHarness, round_of, tg_fixture  # noqa: F401
from tests.test_telegram_webhook import SECRET, URL, webhook


class HeldAnswers:
    """The fake's answerCallbackQuery held until `release()`: the bot is caught mid-handling,
    after it committed the answer and before it could tell Telegram the update arrived."""

    def __init__(self, server: FakeTelegramServer) -> None:
        self.reached = asyncio.Event()
        self._open = asyncio.Event()
        self._refuse = False
        original = server.api_answerCallbackQuery

        async def held(p: dict[str, Any]) -> Any:
            if not self._open.is_set():
                self.reached.set()
                await self._open.wait()
                if self._refuse:  # its bot is gone: nobody will read this answer
                    raise ApiError(400, "Bad Request: query is too old and response timeout expired")
            return await original(p)

        server.api_answerCallbackQuery = held  # type: ignore[method-assign]

    def release(self, *, refuse: bool = False) -> None:
        self._refuse = refuse
        self._open.set()


async def deliver(http: aiohttp.ClientSession, url: str, secret: str, update: dict[str, Any]) -> int:
    """Telegram's POST of one update to the webhook; the HTTP status the bot answered."""
    async with http.post(url, json=update, headers={SECRET_HEADER: secret}) as response:
        return response.status


async def test_an_update_is_answered_only_after_it_was_handled(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start(**webhook())
    secret = (await server.wait_for_request("setWebhook"))["secret_token"]
    assert tg.adapter is not None and tg.adapter.receiver is not None
    url = f"http://127.0.0.1:{tg.adapter.receiver.bound_port}/tg/hook"  # type: ignore[union-attr]
    async with aiohttp.ClientSession() as http:
        assert await deliver(http, url, "not the secret", server.user_message(ANN.id, ANN, "/stats")) == 403
        asked = len(server.log)
        assert await deliver(http, url, secret, server.user_message(ANN.id, ANN, "/quiz single")) == 200
        # Handled before the 200: the question is on the fake already.
        [question] = [m for m in server.messages_in(ANN.id) if m.callback_data]
        assert any(e.method == "sendMessage" and e.ok for e in server.log[asked:])

        held = HeldAnswers(server)
        query = server.user_click(ANN.id, ANN, question.message_id, f"a1:{round_of(question)}:B")
        click = asyncio.create_task(deliver(http, url, secret, server.pending_updates[-1]))
        async with asyncio.timeout(10):
            await held.reached.wait()
        # The answer is committed and the toast on its way, and Telegram has no answer yet.
        [answer] = await app.store.round_answers(round_of(question))
        assert answer.display_name == "Ann"
        assert not click.done()
        held.release()
        async with asyncio.timeout(10):
            assert await click == 200
    assert server.callbacks[query].answer is not None


# ---------------------------------------------------------------- the real process, killed


async def hook_address(bot: BotProcess) -> str:
    """The webhook URL the bot process listens on (it logs the port it was given)."""
    output = await bot.wait_for("telegram webhook: listening on", timeout=60)
    port = re.search(r"listening on 127\.0\.0\.1:(\d+)/tg/hook", output)
    assert port is not None, output
    return f"http://127.0.0.1:{port[1]}/tg/hook"


async def test_killed_mid_update_telegram_sends_it_again_and_it_counts_once(
    telegram_server: FakeTelegramServer, tmp_path: Path  # noqa: F811
) -> None:
    server = telegram_server
    config = tmp_path / "studybot.yaml"
    config.write_text("language: en\ntelegram_webhook_listen: 127.0.0.1\ntelegram_webhook_port: 0\n")
    env = {"TELEGRAM_TOKEN": server.token, "TELEGRAM_API_BASE": server.base_url, "TELEGRAM_WEBHOOK_URL": URL,
           "STUDYBOT_TELEGRAM_WEBHOOK_SECRET": SECRET}  # fmt: skip
    bots: list[BotProcess] = []
    try:
        async with aiohttp.ClientSession() as http:
            bots.append(await BotProcess.start(tmp_path / "data", config, env=env))
            url = await hook_address(bots[0])
            await server.wait_for_request("setWebhook", timeout=60)
            assert await deliver(http, url, SECRET, server.user_message(ANN.id, ANN, "/quiz single")) == 200
            [question] = [m for m in server.messages_in(ANN.id) if m.callback_data]

            held = HeldAnswers(server)
            query = server.user_click(ANN.id, ANN, question.message_id, f"a1:{round_of(question)}:B")
            update = server.pending_updates[-1]
            click = asyncio.create_task(deliver(http, url, SECRET, update))
            async with asyncio.timeout(20):
                await held.reached.wait()
            await bots[0].kill()
            try:
                async with asyncio.timeout(10):
                    status = await click
            except aiohttp.ClientError:
                status = None  # the connection died with the bot
            assert status is None  # Telegram was not told the update arrived: it will send it again
            held.release(refuse=True)
            assert server.callbacks[query].answer is None

            bots.append(await BotProcess.start(tmp_path / "data", config, env=env))
            url = await hook_address(bots[1])
            await server.wait_for_request("setWebhook", timeout=60)
            assert await deliver(http, url, SECRET, update) == 200  # Telegram's retry
        assert server.callbacks[query].answer is not None  # the user is told
    finally:
        for bot in bots:
            if bot.proc.returncode is None:
                await terminate(bot)
    with contextlib.closing(sqlite3.connect(tmp_path / "data" / "studybot.db")) as db:
        rows = db.execute("SELECT COUNT(*) FROM answers WHERE round_id = ?", (round_of(question),)).fetchone()
    assert rows == (1,)  # handled twice, counted once
