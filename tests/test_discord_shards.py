"""Discord at scale (real discord.py, the full adapter, against the fake Discord's sharded gateway):
STUDYBOT_DISCORD_SHARDS, one process running several shards, two processes splitting them, a click
on a message one process posted handled by the other, and DMs arriving on shard 0 only."""

from __future__ import annotations

import asyncio
import signal
from dataclasses import replace
from pathlib import Path

import pytest

from bot.domain.clock import ManualClock
from bot.domain.questions import Bank, QuestionType
from bot.locales.i18n import t
from studybot.config import ConfigError, load_config
from studybot.shards import ShardSpec, parse_shards
from tests.conftest import START, make_bank
from tests.fakes.discord_fixtures import StudyWorld
from tests.fakes.discord_models import InteractionRecord
from tests.fakes.discord_rules import Perm
from tests.fakes.discord_server import FakeDiscord
from tests.process import BotProcess
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    buttons,
    completed,
    discord_to_fake,
    embed_text,
    fake_discord,
)
from tests.waits import HANG


def shard_world(server: FakeDiscord, shard: int, count: int = 2) -> StudyWorld:
    """A study guild whose id puts it on `shard` of `count`."""
    guild = server.add_guild(f"Hall {shard}", bot_permissions=Perm.MANAGE_MESSAGES, shard=(shard, count))
    admin = server.add_member(guild, f"admin{shard}", permissions=Perm.MANAGE_GUILD)
    student = server.add_member(guild, f"student{shard}")
    general = guild.add_text_channel("general")
    return StudyWorld(server, guild, general, general, admin, student, server.bot_member(guild))


def single_choice() -> Bank:
    bank = make_bank()
    return replace(bank, questions=tuple(q for q in bank.questions if q.type is QuestionType.SINGLE))


def receivers(server: FakeDiscord, record: InteractionRecord) -> list[tuple[int, int]]:
    """The shards (id, count) of the gateway sessions that were sent this interaction."""
    return sorted(
        session.shard for session in server.gateway.sessions.values()
        if any(e["t"] == "INTERACTION_CREATE" and e["d"]["id"] == str(record.id) for e in session.events)
    )  # fmt: skip


# ---------------------------------------------------------------- configuration


def test_shards_are_read_from_the_environment_and_a_bad_value_is_one_line_in_the_language() -> None:
    assert parse_shards("0-3/8") == ShardSpec((0, 1, 2, 3), 8)
    assert parse_shards(" 1/2 ") == ShardSpec((1,), 2)
    assert parse_shards("0-1,4/8") == ShardSpec((0, 1, 4), 8)
    config = load_config(env={"STUDYBOT_DISCORD_SHARDS": "4-7/8"})
    assert config.discord_shards == ShardSpec((4, 5, 6, 7), 8)
    assert load_config(env={}).discord_shards is None
    for bad in ("0-8/8", "3-1/8", "2", "a/2", "0/0", "0,0/2", "0-1/"):
        with pytest.raises(ConfigError) as caught:
            load_config(env={"STUDYBOT_DISCORD_SHARDS": bad})  # the default language, zh-CN
        message = str(caught.value)
        assert "\n" not in message and f"STUDYBOT_DISCORD_SHARDS = {bad} 无效" in message, message
        assert "0-3/8" in message  # the example of a good value


def test_a_bad_shard_value_speaks_the_configured_language(tmp_path: Path) -> None:
    config_file = tmp_path / "studybot.yaml"
    config_file.write_text("language: en\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config_file, env={"STUDYBOT_DISCORD_SHARDS": "9/8"})
    assert str(caught.value) == (
        f"{config_file}: STUDYBOT_DISCORD_SHARDS = 9/8 is not allowed: give the shards this process runs "
        "and the total, e.g. 0-3/8 (shards 0 to 3 of 8) or 1/2, every shard below the total."
    )
    config_file.write_text("language: en\ndiscord_shards: 1/2\n", encoding="utf-8")
    assert load_config(config_file, env={}).discord_shards == ShardSpec((1,), 2)
    # One file for every process; each one's own variable wins.
    mine = load_config(config_file, env={"STUDYBOT_DISCORD_SHARDS": "0/2"})
    assert mine.discord_shards == ShardSpec((0,), 2)


# ---------------------------------------------------------------- one process, several shards


async def test_one_process_running_shards_0_and_1_of_2_answers_in_guilds_of_both(
    discord_to_fake: FakeDiscord, tmp_path: Path  # noqa: F811
) -> None:
    server = discord_to_fake
    worlds = [shard_world(server, 0), shard_world(server, 1)]
    h = Harness(server, worlds[0], tmp_path, make_bank())
    try:
        await h.start(discord_shards="0-1/2")
        assert sorted(s.shard for s in server.gateway.live_sessions) == [(0, 2), (1, 2)]
        assert h.adapter is not None and h.adapter.client is not None
        assert {g.id for g in h.adapter.client.guilds} == {w.guild.id for w in worlds}
        for shard, world in enumerate(worlds):
            record = await server.slash_command(world.general, world.student, "quiz")
            reply = await h.reply(record)
            assert reply is not None and embed_text(reply).startswith("Practice · Q")
            assert receivers(server, record) == [(shard, 2)]
    finally:
        await h.stop()


async def test_without_the_setting_one_process_runs_every_shard_discord_recommends(
    discord_to_fake: FakeDiscord, tmp_path: Path  # noqa: F811
) -> None:
    server = discord_to_fake
    server.recommended_shards = 2  # GET /gateway/bot says so
    worlds = [shard_world(server, 0), shard_world(server, 1)]
    h = Harness(server, worlds[0], tmp_path, make_bank())
    try:
        await h.start()
        assert sorted(s.shard for s in server.gateway.live_sessions) == [(0, 2), (1, 2)]
        record = await server.slash_command(worlds[1].general, worlds[1].student, "quiz")
        assert await h.reply(record) is not None and receivers(server, record) == [(1, 2)]
    finally:
        await h.stop()


# ---------------------------------------------------------------- two processes, one shard each


async def test_two_processes_split_the_shards_and_a_click_is_handled_by_whichever_receives_it(
    discord_to_fake: FakeDiscord, tmp_path: Path  # noqa: F811
) -> None:
    server = discord_to_fake
    bank = single_choice()
    first, second = shard_world(server, 0), shard_world(server, 1)
    clock = ManualClock(START)  # one time for both processes, as on one machine's clock
    one = Harness(server, first, tmp_path, bank, clock=clock)
    two = Harness(server, second, tmp_path, bank, clock=clock)  # the same database
    try:
        await one.start(discord_shards="0/2")
        await two.start(discord_shards="1/2")
        assert one.adapter is not None and one.adapter.client is not None
        assert two.adapter is not None and two.adapter.client is not None
        assert [g.id for g in one.adapter.client.guilds] == [first.guild.id]
        assert [g.id for g in two.adapter.client.guilds] == [second.guild.id]
        syncs = [r for r in server.requests if r.method == "PUT" and r.path.endswith("/commands")]
        assert len(syncs) == 1  # only the process with shard 0 registers the commands

        # Each process gets only its own guilds' events.
        for world, harness, shard in ((first, one, (0, 2)), (second, two, (1, 2))):
            record = await server.slash_command(world.general, world.student, "quiz")
            reply = await harness.reply(record)
            assert reply is not None and embed_text(reply).startswith("Practice · Q")
            assert receivers(server, record) == [shard]

        # The second guild's daily, set through the process of shard 1 ...
        reply = await two.command(second.admin, "daily", {"time": "09:30"}, sub="set", channel=second.general)
        assert reply is not None and "Daily question set: every day at 09:30" in reply.content
        await one.stop()
        await one.start()  # ... is read from the database by the process of shard 0 too,
        # which posts it over REST into a guild it does not run (the other one's timer is not run
        # here: which process fires a job is the scheduler's business, not the platform's).
        await one.app.scheduler.advance(30 * 60)
        round_ = await one.last_round(second.general)
        question = await one.message_of(round_.id)
        assert embed_text(question).startswith("Daily question · Q1")

        # A member's click on it reaches the process of shard 1, which handles it.
        record = await server.click(second.general, second.student, question.id, f"sb:a:{round_.id}:B")
        receipt = await two.reply(record)
        assert receipt is not None and receipt.flags & EPHEMERAL
        assert receipt.content == "Recorded: B. The answer is revealed at the deadline."
        assert receivers(server, record) == [(1, 2)]
        await server.wait_for(lambda: "1 answered so far" in embed_text(question), what="the live count")
    finally:
        await two.stop()
        await one.stop()


# ---------------------------------------------------------------- DMs


async def test_dms_arrive_on_shard_0_only_so_private_study_is_handled_by_its_process(
    discord_to_fake: FakeDiscord, tmp_path: Path  # noqa: F811
) -> None:
    server = discord_to_fake
    first, second = shard_world(server, 0), shard_world(server, 1)
    clock = ManualClock(START)
    one = Harness(server, first, tmp_path, single_choice(), clock=clock)
    two = Harness(server, second, tmp_path, single_choice(), clock=clock)
    try:
        await one.start(discord_shards="0/2")
        await two.start(discord_shards="1/2")
        dm, dana = server.dm(server.add_user("dana"))
        record = await server.slash_command(dm, dana, "quiz")
        question = await one.reply(record)
        assert question is not None and embed_text(question).startswith("Practice · Q")
        assert receivers(server, record) == [(0, 2)]
        assert question.channel_id == dm.id

        round_ = await one.last_round(dm)
        choice = f"sb:a:{round_.id}:B"
        click = await server.click(dm, dana, question.id, choice)
        receipt = await one.reply(click)
        assert receipt is not None and receipt.content.startswith(("✅", "❌"))
        assert receivers(server, click) == [(0, 2)]
        assert len(await one.app.store.round_answers(round_.id)) == 1
    finally:
        await two.stop()
        await one.stop()


async def test_a_reaction_on_a_question_another_process_posted_is_counted(
    discord_to_fake: FakeDiscord, tmp_path: Path  # noqa: F811
) -> None:
    server = discord_to_fake
    bank = make_bank()
    bank = replace(bank, questions=tuple(q for q in bank.questions if q.type is QuestionType.JUDGE))
    first, second = shard_world(server, 0), shard_world(server, 1)
    clock = ManualClock(START)
    one = Harness(server, first, tmp_path, bank, clock=clock)
    two = Harness(server, second, tmp_path, bank, clock=clock)
    try:
        await one.start(discord_shards="0/2")
        await two.start(discord_shards="1/2")
        options = {"time": "09:30", "deadline": "1h", "mode": "reactions"}
        await two.command(second.admin, "daily", options, sub="set", channel=second.general)
        await one.stop()
        await one.start()
        await one.app.scheduler.advance(30 * 60)  # the process of shard 0 posts into the guild of shard 1
        round_ = await one.last_round(second.general)
        question = await one.message_of(round_.id)
        await server.wait_for(lambda: question.reactions == {"✅": [server.bot.id], "❌": [server.bot.id]},
                              what="the bot's ✅ and ❌")  # fmt: skip

        await server.react(second.general, second.student, question.id, "✅")  # to the process of shard 1
        await server.wait_for(lambda: second.student.id not in question.reactions["✅"],
                              what="the reaction hidden once recorded")  # fmt: skip
        answers = {a.display_name: a.response for a in await two.app.store.round_answers(round_.id)}
        assert answers == {second.student.user.username: "true"}
    finally:
        await two.stop()
        await one.stop()


# ---------------------------------------------------------------- as real processes


async def test_two_studybot_processes_split_the_shards_and_dms_go_to_shard_0(
    fake_discord: FakeDiscord, tmp_path: Path  # noqa: F811
) -> None:
    server = fake_discord
    worlds = [shard_world(server, 0), shard_world(server, 1)]
    config = tmp_path / "studybot.yaml"
    config.write_text("language: en\n")
    env = {"DISCORD_TOKEN": server.token, "DISCORD_API_BASE": server.api_base,
           "DISCORD_GATEWAY_URL": server.gateway_url}  # fmt: skip
    bots = [await BotProcess.start(tmp_path / f"data{shard}", config,
                                   env={**env, "STUDYBOT_DISCORD_SHARDS": f"{shard}/2"})
            for shard in (0, 1)]  # fmt: skip
    try:
        for bot, shard in zip(bots, (0, 1), strict=True):
            await bot.wait_for(f"shards {shard} of 2", timeout=30)
        for shard, world in enumerate(worlds):
            record = await server.slash_command(world.general, world.student, "quiz")
            reply = await server.wait_for(lambda r=record: completed(server, r.original_message_id), HANG)
            assert embed_text(reply).startswith("Practice · Q")
            assert receivers(server, record) == [(shard, 2)]
        record = await server.slash_command(*server.dm(server.add_user("erin")), "quiz")
        reply = await server.wait_for(lambda: completed(server, record.original_message_id), 10, "a DM reply")
        assert embed_text(reply).startswith("Practice · Q") and receivers(server, record) == [(0, 2)]
    finally:
        codes = []
        for bot in bots:
            bot.proc.send_signal(signal.SIGTERM)
            async with asyncio.timeout(20):
                codes.append(await bot.proc.wait())
                await bot._reader
    assert codes == [0, 0], [bot.output for bot in bots]
    assert all("Traceback" not in bot.output for bot in bots)


async def test_studybot_with_a_bad_shard_value_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    bot = await BotProcess.start(tmp_path, env={"DISCORD_TOKEN": "x" * 30, "STUDYBOT_DISCORD_SHARDS": "2/2"})
    async with asyncio.timeout(20):
        code = await bot.proc.wait()
        await bot._reader
    assert code == 2
    assert bot.output.strip().splitlines() == [
        "studybot: config: " + t("zh-CN", "config.discord_shards", value="2/2")
    ], bot.output
