"""The harness the Discord adapter tests share: the real app and DiscordAdapter (real discord.py)
against the fake Discord, with helpers that act as members and wait for the bot's answers.
Its own tests: the client starts and stops cleanly, commands sync localized, the token is never logged."""

from __future__ import annotations

import asyncio
import gc
import logging
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from adapters.discord import DiscordAdapter, DiscordSettings
from bot.application.commands.catalog import groups
from bot.application.outbox import Pacer
from bot.domain.clock import ManualClock, SystemClock
from bot.domain.questions import Bank
from bot.domain.records import Round
from bot.ports.chat import PaceLimits
from studybot.bootstrap import App, bootstrap
from studybot.config import Config, Secret
from tests.conftest import START, make_bank
from tests.fakes.charts import shared_charts
from tests.fakes.discord_fixtures import (  # noqa: F401  (fixtures)
    StudyWorld,
    discord_to_fake,
    fake_discord,
    study_world,
)
from tests.fakes.discord_models import FakeChannel, FakeMember, InteractionRecord, MessageRecord
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.ports import ManualScheduler
from tests.waits import HANG

EPHEMERAL, LOADING = 64, 128
# Pacing is the outbox's job, tested in test_outbox; here it would only make the tests wait.
NO_PACING = PaceLimits(per_second=10_000, per_chat=10_000, per_chat_window=1.0)


@dataclass
class Harness:
    server: FakeDiscord
    world: StudyWorld
    data_dir: Path
    bank: Bank
    # A ManualClock runs jobs by hand (ManualScheduler); a SystemClock, on the real APScheduler.
    clock: ManualClock | SystemClock = field(default_factory=lambda: ManualClock(START))
    app: App | None = None
    adapter: DiscordAdapter | None = None
    config: dict[str, Any] = field(default_factory=dict)

    async def start(self, **config: Any) -> DiscordAdapter:
        """Bootstrap the app on the database in `data_dir` and start the Discord adapter on it."""
        self.config = {**self.config, **config}
        settings = {"language": "en", "sqlite_synchronous": "NORMAL", **self.config}
        cfg = Config(
            data_dir=self.data_dir, default_bank=self.bank.id, discord_token=Secret(self.server.token),
            discord_api_base=self.server.api_base, discord_gateway_url=self.server.gateway_url, **settings,
        )  # fmt: skip
        self.app = app = await bootstrap(
            cfg, clock=self.clock, rng=random.Random(3), banks={self.bank.id: self.bank},
            scheduler=ManualScheduler(self.clock) if isinstance(self.clock, ManualClock) else None,
            charts=shared_charts(),
        )  # fmt: skip
        shards = cfg.discord_shards
        settings = DiscordSettings(self.server.token, api_base=cfg.discord_api_base,
                                   gateway_url=cfg.discord_gateway_url, dev_guild=cfg.discord_dev_guild,
                                   guild_ready_timeout=0.05, count_delay=0.05,
                                   shard_ids=shards.ids if shards else None,
                                   shard_count=shards.count if shards else None)  # fmt: skip
        self.adapter = adapter = DiscordAdapter(app.application, settings)
        app.add_port(adapter)
        app.outbox.register(adapter, Pacer(NO_PACING))
        await adapter.start()
        await app.start()
        return adapter

    async def stop(self) -> None:
        if self.adapter is not None:
            await self.adapter.stop()
        if self.app is not None:
            await self.app.close()
        self.app = self.adapter = None

    @property
    def general(self) -> FakeChannel:
        return self.world.general

    def member(self, name: str) -> FakeMember:
        """A member of the study guild (made on first use) with @everyone's permissions."""
        for member in self.world.guild.members.values():
            if member.user.username == name:
                return member
        return self.server.add_member(self.world.guild, name)

    # ------------------------------------------------------------ acting as members

    async def command(self, member: FakeMember, name: str, options: dict[str, Any] | None = None, *,
                      sub: str | None = None, channel: FakeChannel | None = None,
                      locale: str = "en-US") -> MessageRecord | None:
        """Run a slash command and return the bot's reply (None if it answered with a modal);
        `locale` is the member's Discord client language."""
        channel = channel or self.general
        record = await self.server.slash_command(channel, member, name, options, subcommand=sub,
                                                 locale=locale)  # fmt: skip
        return await self.reply(record)

    async def click(self, member: FakeMember, message: MessageRecord | int, custom_id: str,
                    channel: FakeChannel | None = None) -> MessageRecord | None:
        message_id = message if isinstance(message, int) else message.id
        record = await self.server.click(channel or self.general, member, message_id, custom_id)
        return await self.reply(record)

    async def reply(self, record: InteractionRecord, timeout: float = HANG) -> MessageRecord | None:
        """The interaction's answer once complete: a message (deferred ones once filled in)."""
        server = self.server

        def answered() -> Any:
            if record.response is None:
                return None
            if record.response["type"] == 9:
                return "modal"
            original = server.messages.get(record.original_message_id or 0)
            if original is not None and original.deleted:  # a deferred answer replaced by a follow-up
                return completed(server, record.followup_ids[-1]) if record.followup_ids else None
            return completed(server, record.original_message_id)

        result = await server.wait_for(answered, timeout, f"the answer to interaction {record.id}")
        return None if result == "modal" else result

    # ------------------------------------------------------------ looking at the bot's work

    async def chat_id(self, channel: FakeChannel | None = None) -> int:
        assert self.app is not None
        chat = await self.app.store.find_chat("discord", str((channel or self.general).id))
        assert chat is not None
        return chat.id

    async def last_round(self, channel: FakeChannel | None = None) -> Round:
        assert self.app is not None
        round_ = await self.app.store.last_round(await self.chat_id(channel))
        assert round_ is not None
        return round_

    async def message_of(self, round_id: int) -> MessageRecord:
        """The question message of a round, once the bot has stored its reference."""
        assert self.app is not None
        app = self.app

        async def ref() -> str:
            while True:
                round_ = await app.store.get_round(round_id)
                if round_ is not None and round_.message_ref:
                    return round_.message_ref
                await self.server.wait_for(lambda: True, 1.0)  # the next change in the fake

        message_ref = await asyncio.wait_for(ref(), HANG)
        return self.server.messages[int(message_ref.split(":")[1])]

    def answer(self, round_: Round) -> tuple[str, ...]:
        return self.bank.question(round_.question_id).answer


def completed(server: FakeDiscord, message_id: int | None) -> MessageRecord | None:
    """The reply message once it is complete (a deferred one only after its follow-up)."""
    message = server.messages.get(message_id or 0)
    return message if message is not None and not message.flags & LOADING else None


def embed_text(message: MessageRecord) -> str:
    parts = [message.content]
    for embed in message.data.get("embeds", []):
        footer = (embed.get("footer") or {}).get("text", "")
        parts += [embed.get("title") or "", embed.get("description") or "", footer]
    return "\n".join(p for p in parts if p)


def buttons(message: MessageRecord) -> dict[str, dict[str, Any]]:
    return message.custom_ids()


@pytest.fixture(name="harness")
async def harness_fixture(discord_to_fake: FakeDiscord, study_world: StudyWorld, tmp_path: Path):  # noqa: F811
    h = Harness(discord_to_fake, study_world, tmp_path, make_bank())
    yield h
    await h.stop()


@pytest.fixture(name="live_harness")
async def live_harness_fixture(discord_to_fake: FakeDiscord, study_world: StudyWorld, tmp_path: Path):  # noqa: F811
    """The harness on the real clock and the real APScheduler: for timers (deadlines, contest
    steps, a mock's hand-in) with short real durations, waited for with timeouts."""
    h = Harness(discord_to_fake, study_world, tmp_path, make_bank(), clock=SystemClock())
    yield h
    await h.stop()


# ---------------------------------------------------------------- the harness's own tests


async def test_starts_with_plain_intents_syncs_localized_commands_and_stops_cleanly(harness: Harness) -> None:
    loop = asyncio.get_running_loop()
    problems: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: problems.append(context))
    try:
        await harness.start()
        server = harness.server
        assert server.gateway.intents == (1 << 0) | (1 << 10)  # GUILDS | GUILD_MESSAGE_REACTIONS
        sync = await server.wait_for_request("PUT", r"^/applications/\d+/commands$")
        by_name = {c["name"]: c for c in sync.body}
        assert set(by_name) == set(groups())  # every catalog command (test_discord_tree checks them in full)
        quiz = by_name["quiz"]
        assert quiz["name_localizations"] == {"zh-CN": "练习", "zh-TW": "練習", "en-US": "quiz"}
        assert quiz["description_localizations"]["zh-CN"] == "在本频道出一道练习题"
        assert quiz["description_localizations"]["zh-TW"] == "在本頻道出一道練習題"
        lang = by_name["lang"]["options"][0]
        assert [(c["value"], c["name"]) for c in lang["choices"]] == [
            ("zh-CN", "简体中文"), ("zh-TW", "繁體中文"), ("en", "English")]
        tag = next(o for o in quiz["options"] if o["name"] == "tag")
        assert tag["name_localizations"]["zh-CN"] == "标签"
        daily = by_name["daily"]
        assert int(daily["default_member_permissions"]) == 1 << 5  # Manage Server
        assert {o["name"] for o in daily["options"]} == {"set", "off", "show"}
        modes = next(o for o in daily["options"][0]["options"] if o["name"] == "mode")["choices"]
        assert [(c["value"], c["name_localizations"]["zh-CN"]) for c in modes] == [
            ("buttons", "按钮"), ("reactions", "表情回应")]
        await harness.stop()
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert not [p for p in problems if "nclosed" in str(p.get("message"))], problems
    assert all(s.conn is None for s in harness.server.gateway.sessions.values())


async def test_dev_guild_gets_the_commands_at_once(harness: Harness) -> None:
    await harness.start(discord_dev_guild=str(harness.world.guild.id))
    guild = harness.world.guild.id
    await harness.server.wait_for_request("PUT", rf"^/applications/\d+/guilds/{guild}/commands$")
    assert harness.server.commands.get(None) is None  # nothing global
    reply = await harness.command(harness.member("dana"), "streak")
    assert reply is not None and "Daily streak: 0" in reply.content and reply.flags & EPHEMERAL


async def test_the_token_never_reaches_the_logs(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    await harness.start()
    await harness.command(harness.member("dana"), "quiz")
    await harness.stop()
    token = harness.server.token
    logged = [r.getMessage() + str(r.args) + str(r.exc_text or "") for r in caplog.records]
    assert logged and not [line for line in logged if token in line]
    assert token not in caplog.text
