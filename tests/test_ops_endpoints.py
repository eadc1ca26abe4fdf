"""/healthz, /readyz and /metrics of a real `studybot run` process (Telegram against the fake
server, on a real PostgreSQL), and the database going away under it; a port already taken."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.fakes.discord_fixtures import fake_discord  # noqa: F401  (a fixture)
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.fakes.telegram_server import DEFAULT_TOKEN, FakeTelegramServer
from tests.pg_server import PgServer, find_bin_dir
from tests.process import BotProcess
from tests.waits import HANG

SAMPLE_BANK = Path(__file__).resolve().parent / "banks" / "sample.yaml"
ANN = FakeUser(7, "Ann", "ann", "en")
ACCEPTED = 'studybot_answers_total{status="accepted"}'


@pytest.fixture
def pg() -> Iterator[PgServer]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.fail("PostgreSQL binaries (initdb, pg_ctl) are needed: .ci/run installs them")
    server = PgServer(bin_dir).start()
    try:
        yield server
    finally:
        server.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(
        f"language: en\ndefault_bank: sample\nbank_paths: [{SAMPLE_BANK}]\nhttp_listen: 127.0.0.1\n"
    )
    return path


async def get(http: aiohttp.ClientSession, port: int, path: str) -> tuple[int, Any]:
    async with http.get(f"http://127.0.0.1:{port}{path}") as response:
        if response.content_type == "application/json":
            return response.status, await response.json()
        return response.status, await response.text()


HEARTBEAT = "alive on the database; started"  # bootstrap's line once started with its heartbeat
RECONNECTED = ("has successfully RESUMED session", "has connected to Gateway")  # discord.py, a shard


async def wait_ready(http: aiohttp.ClientSession, port: int, bot: BotProcess, timeout: float = 30) -> Any:
    """Wait for the bot's logged heartbeat (started, its heartbeat in the database), then ask
    /readyz once: it must say ready."""
    await bot.wait_for(HEARTBEAT, timeout=timeout)
    status, body = await get(http, port, "/readyz")
    assert status == 200, (status, body, bot.output)
    return body


def shards_connected(bot: BotProcess) -> int:
    """How many times a Discord shard connected or resumed, as discord.py logged it."""
    return sum(bot.output.count(line) for line in RECONNECTED)


def sample(text: str, name: str) -> float | None:
    """The value of one sample line of the Prometheus exposition, None when absent."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


async def test_health_readiness_and_metrics_with_the_database_up_then_down(
    tmp_path: Path,
    pg: PgServer,
    telegram_server: FakeTelegramServer,  # noqa: F811
) -> None:
    port = free_port()
    env = {"TELEGRAM_TOKEN": DEFAULT_TOKEN, "TELEGRAM_API_BASE": telegram_server.base_url,
           "STUDYBOT_DATABASE_URL": pg.dsn(), "STUDYBOT_HTTP_PORT": str(port)}  # fmt: skip
    bot = await BotProcess.start(tmp_path / "data", config_file(tmp_path), env=env)
    try:
        async with aiohttp.ClientSession() as http:
            ready = await wait_ready(http, port, bot)
            holder = ready["scheduler"]["holder"]  # this process, by name (PostgreSQL: work shared)
            assert ready == {
                "status": "ready",
                "database": {"ok": True},
                "platforms": {"telegram": True},
                "scheduler": {"role": "shared", "holder": holder, "ready": True},
            }
            assert holder and ":" in holder
            status, health = await get(http, port, "/healthz")
            assert status == 200 and health["status"] == "ok"
            status, before = await get(http, port, "/metrics")
            assert status == 200 and sample(before, ACCEPTED) is None
            assert sample(before, 'studybot_queue_depth{queue="outbox"}') == 0
            assert sample(before, f'studybot_scheduler_role{{holder="{holder}",role="shared"}}') == 1
            assert sample(before, "studybot_scheduler_leader") == 1

            telegram_server.user_message(ANN.id, ANN, "/quiz loss")
            await telegram_server.wait_for_request("sendMessage", lambda p: "____" in p["text"], timeout=HANG)
            telegram_server.user_message(ANN.id, ANN, "交叉熵")
            await telegram_server.wait_for_request(
                "sendMessage", lambda p: "Correct" in p["text"], timeout=20
            )
            status, after = await get(http, port, "/metrics")
            assert status == 200 and sample(after, ACCEPTED) == 1  # counted once committed

            pg.stop()  # the database goes away under the running bot
            status, body = await get(http, port, "/readyz")
            assert status == 503 and body["status"] == "not ready"
            assert body["database"]["ok"] is False and body["database"]["error"]
            assert body["platforms"] == {"telegram": True}
            status, health = await get(http, port, "/healthz")  # alive all the same: no restart needed
            assert status == 200
            status, text = await get(http, port, "/metrics")  # still served, from what is known
            assert status == 200 and sample(text, ACCEPTED) == 1
    finally:
        await bot.kill()
    assert "postgresql://" not in bot.output  # the URL (and a password in it) is never logged


async def test_discord_is_ready_once_every_shard_of_the_process_is_connected(
    tmp_path: Path,
    fake_discord: FakeDiscord,  # noqa: F811
) -> None:
    port = free_port()
    env = {"DISCORD_TOKEN": fake_discord.token, "DISCORD_API_BASE": fake_discord.api_base,
           "DISCORD_GATEWAY_URL": fake_discord.gateway_url, "STUDYBOT_DISCORD_SHARDS": "0-1/2",
           "STUDYBOT_HTTP_PORT": str(port)}  # fmt: skip
    bot = await BotProcess.start(tmp_path / "data", config_file(tmp_path), env=env)
    try:
        async with aiohttp.ClientSession() as http:
            ready = await wait_ready(http, port, bot)
            assert ready["platforms"] == {"discord": True} and ready["database"] == {"ok": True}
            connected = shards_connected(bot)
            await fake_discord.gateway.disconnect()  # a network failure: the shards resume by themselves
            # Both shards back, as discord.py logs it; then /readyz says so at once.
            await bot.wait_until(lambda _: shards_connected(bot) >= connected + 2, timeout=30)
            status, body = await get(http, port, "/readyz")
            assert status == 200 and body["platforms"] == {"discord": True}, (status, body, bot.output)
    finally:
        await bot.kill()


async def test_a_health_port_already_taken_stops_start_up_with_a_clear_message(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"STUDYBOT_HTTP_PORT": str(port)}
        bot = await BotProcess.start(tmp_path / "data", config_file(tmp_path), env=env)
        await bot.wait_for(f"cannot serve /healthz, /readyz and /metrics on port {port}")
        async with asyncio.timeout(30):
            code = await bot.proc.wait()
    assert code == 1
    assert "Traceback" not in bot.output
