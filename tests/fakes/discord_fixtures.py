"""pytest fixtures for the fake Discord: a started server, a small study-group guild, discord.py
pointed at the fake, and `running_client` to log a real client in and shut it down cleanly.
Import them in a conftest or test module: ``from tests.fakes.discord_fixtures import ...  # noqa: F401``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import discord
import pytest
import yarl

from tests.fakes.discord_models import FakeChannel, FakeGuild, FakeMember
from tests.fakes.discord_rules import Perm
from tests.fakes.discord_server import FakeDiscord
from tests.waits import HANG


@dataclass
class StudyWorld:
    server: FakeDiscord
    guild: FakeGuild
    general: FakeChannel  # everyone may read and write
    staff: FakeChannel  # hidden from @everyone; admins and the bot may see it
    admin: FakeMember  # MANAGE_GUILD
    student: FakeMember  # @everyone permissions only
    bot: FakeMember  # @everyone + MANAGE_MESSAGES


def build_study_world(server: FakeDiscord) -> StudyWorld:
    guild = server.add_guild("Study Hall", bot_permissions=Perm.MANAGE_MESSAGES)
    admin = server.add_member(guild, "alice", permissions=Perm.MANAGE_GUILD)
    student = server.add_member(guild, "bob")
    general = guild.add_text_channel("general", topic="Anything goes")
    staff = guild.add_text_channel("staff").overwrite(guild.everyone, deny=Perm.VIEW_CHANNEL)
    bot = server.bot_member(guild)
    staff.overwrite(admin, allow=Perm.VIEW_CHANNEL).overwrite(bot, allow=Perm.VIEW_CHANNEL)
    return StudyWorld(server, guild, general, staff, admin, student, bot)


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord (no guilds yet). At teardown any spec violation fails the test,
    unless the test set ``server.strict = False`` (or cleared ``server.spec_violations``)."""
    async with FakeDiscord(heartbeat_interval=0.5) as server:
        yield server
        if server.strict:
            server.assert_all_requests_valid()


@pytest.fixture
def study_world(fake_discord: FakeDiscord) -> StudyWorld:
    return build_study_world(fake_discord)


@pytest.fixture
def discord_to_fake(fake_discord: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> FakeDiscord:
    """Point discord.py's REST base and gateway URL at the fake for this test."""
    monkeypatch.setattr(discord.http.Route, "BASE", fake_discord.api_base)
    gateway = yarl.URL(fake_discord.gateway_url)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", gateway)
    return fake_discord


@contextlib.asynccontextmanager
async def running_client(client: discord.Client, server: FakeDiscord, *, token: str | None = None,
                         timeout: float = HANG) -> AsyncIterator[discord.Client]:
    """Run `client.start()` in a task until the client is ready; close it on exit. Build the
    client with a small `guild_ready_timeout` (e.g. 0.05): discord.py otherwise waits 2 s
    after the last GUILD_CREATE before it is ready."""
    task = asyncio.create_task(client.start(token or server.token))
    ready = asyncio.create_task(client.wait_until_ready())
    try:
        done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()  # login/connect failed: raise its error
            raise RuntimeError("discord.py client stopped before it was ready")
        if not done:
            raise TimeoutError(f"discord.py client not ready after {timeout}s")
        yield client
    finally:
        ready.cancel()
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout)
        with contextlib.suppress(asyncio.CancelledError):
            await ready
