"""The real discord.py client (login, gateway, app commands, views, modals, reactions, errors and
rate limits) works against tests.fakes' fake Discord, and the fake answers like Discord."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest
from discord.ext import commands

from tests.fakes.discord_fixtures import (  # noqa: F401  (fixtures)
    StudyWorld,
    discord_to_fake,
    fake_discord,
    running_client,
    study_world,
)
from tests.fakes.discord_rules import Perm
from tests.fakes.discord_server import FakeDiscord
from tests.waits import HANG


class Probe:
    """Values the bot's handlers report, per key, awaited by the test with a timeout."""

    def __init__(self) -> None:
        self._queues: defaultdict[str, asyncio.Queue] = defaultdict(asyncio.Queue)

    def put(self, key: str, value: Any = None) -> None:
        self._queues[key].put_nowait(value)

    async def get(self, key: str, timeout: float = HANG) -> Any:
        return await asyncio.wait_for(self._queues[key].get(), timeout)


class VoteButton(discord.ui.DynamicItem[discord.ui.Button], template=r"vote:(?P<choice>[a-z]+)"):
    def __init__(self, choice: str) -> None:
        super().__init__(discord.ui.Button(label=f"Vote {choice}", custom_id=f"vote:{choice}"))
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any
    ) -> VoteButton:
        return cls(match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        interaction.client.probe.put("vote", (self.choice, interaction.user.id))
        await interaction.response.edit_message(content=f"Voted {self.choice}")


class AskModal(discord.ui.Modal, title="Ask a question"):
    question = discord.ui.TextInput(label="Question", custom_id="question", max_length=200)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        interaction.client.probe.put("modal", (self.question.value, interaction.user.id))
        await interaction.response.send_message("Thanks!", ephemeral=True)


def build_bot() -> commands.Bot:
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                       guild_ready_timeout=0.05)
    bot.probe = probe = Probe()
    bot.add_dynamic_items(VoteButton)

    @bot.tree.command(name="ping", description="Answer privately")
    async def ping(interaction: discord.Interaction, topic: str, buddy: discord.Member | None = None) -> None:
        await interaction.response.send_message(f"pong {topic}", ephemeral=True)
        probe.put("ping", (interaction, buddy))

    @bot.tree.command(name="twice", description="Answer twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        try:
            await interaction.response.send_message("two")
        except discord.InteractionResponded as exc:
            probe.put("twice", exc)

    @bot.tree.command(name="hold", description="Answer when the test says so")
    async def hold(interaction: discord.Interaction) -> None:
        probe.put("holding")
        await probe.get("go")
        try:
            await interaction.response.send_message("late")
        except discord.HTTPException as exc:
            probe.put("hold", exc)

    @bot.tree.command(name="ask", description="Open a modal")
    async def ask(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(AskModal(custom_id="ask"))

    @bot.tree.command(name="think", description="Defer, then follow up")
    async def think(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        first = await interaction.followup.send("first", wait=True)
        second = await interaction.followup.send("second", wait=True)
        await interaction.edit_original_response(content="first, edited")
        probe.put("think", (first.id, second.id))

    @bot.event
    async def on_raw_reaction_add(event: discord.RawReactionActionEvent) -> None:
        probe.put("reaction", event)

    return bot


@dataclass
class Live:
    bot: commands.Bot
    world: StudyWorld
    server: FakeDiscord
    probe: Probe

    @property
    def general(self) -> discord.TextChannel:
        return self.bot.get_channel(self.world.general.id)


@pytest.fixture
async def live(discord_to_fake: FakeDiscord, study_world: StudyWorld):  # noqa: F811
    bot = build_bot()
    async with running_client(bot, discord_to_fake):
        guild = discord.Object(study_world.guild.id)
        bot.tree.copy_global_to(guild=guild)
        await bot.tree.sync(guild=guild)
        yield Live(bot, study_world, discord_to_fake, bot.probe)


async def test_login_ready_and_guild_cache(live: Live) -> None:
    server, world, bot = live.server, live.world, live.bot
    assert [r.path for r in server.requests[:2]] == ["/users/@me", "/oauth2/applications/@me"]
    assert server.gateway.intents == discord.Intents.default().value
    # discord.py asks for transport compression (zlib-stream unless a zstd module is installed).
    wanted = discord.utils._ActiveDecompressionContext.COMPRESSION_TYPE
    assert server.gateway.connections[0].compression == wanted
    await server.wait_for(lambda: server.gateway.heartbeats >= 1, what="a heartbeat")
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.name == "Study Hall" and guild.owner_id == world.guild.owner_id
    assert guild.me.id == bot.user.id == server.application_id
    assert {c.name for c in guild.text_channels} == {"general", "staff"}
    staff = guild.get_channel(world.staff.id)
    assert staff.permissions_for(guild.me).view_channel
    assert not staff.permissions_for(guild.default_role).view_channel
    assert guild.me.guild_permissions.manage_messages


async def test_sync_and_ephemeral_slash_reply(live: Live) -> None:
    server, world = live.server, live.world
    sync = await server.wait_for_request("PUT", rf"/guilds/{world.guild.id}/commands$")
    assert {c["name"] for c in sync.body} == {"ping", "twice", "hold", "ask", "think"}
    options = {"topic": "algebra", "buddy": world.admin}
    record = await server.slash_command(world.general, world.student, "ping", options)
    callback = await server.wait_for_callback(record)
    assert callback["type"] == 4 and callback["data"]["flags"] == 64
    interaction, buddy = await live.probe.get("ping")
    assert interaction.user.id == world.student.id and interaction.command.name == "ping"
    assert buddy.id == world.admin.id and interaction.permissions.send_messages
    reply = server.messages_in(world.general)[-1]
    assert reply.content == "pong algebra" and reply.flags & 64 and reply.id == record.original_message_id
    with pytest.raises(LookupError):
        await server.slash_command(world.general, world.student, "nope")


async def test_second_response_is_refused(live: Live) -> None:
    server, world = live.server, live.world
    await server.slash_command(world.general, world.student, "twice")
    assert isinstance(await live.probe.get("twice"), discord.InteractionResponded)
    # Raw callbacks: the first one wins, the second gets 40060, and so does the bot's late answer.
    record = await server.slash_command(world.general, world.student, "hold")
    await live.probe.get("holding")
    url = f"{server.api_base}/interactions/{record.id}/{record.token}/callback"
    async with aiohttp.ClientSession() as http:
        first = await http.post(url, json={"type": 4, "data": {"content": "raw"}})
        second = await http.post(url, json={"type": 4, "data": {"content": "again"}})
        assert first.status == 204 and second.status == 400
        assert (await second.json())["code"] == 40060
    live.probe.put("go")
    error = await live.probe.get("hold")
    assert isinstance(error, discord.HTTPException) and error.code == 40060


async def test_late_response_is_unknown_interaction(live: Live) -> None:
    server, world = live.server, live.world
    record = await server.slash_command(world.general, world.student, "hold")
    await live.probe.get("holding")
    server.advance_clock(server.interaction_deadline + 0.5)
    live.probe.put("go")
    error = await live.probe.get("hold")
    assert isinstance(error, discord.NotFound) and error.code == 10062
    assert record.response is None and [c.status for c in record.callbacks] == [404]


async def test_dynamic_button_click_updates_message(live: Live) -> None:
    server, world = live.server, live.world
    view = discord.ui.View(timeout=None)
    view.add_item(VoteButton("yes"))
    view.add_item(VoteButton("no"))
    sent = await live.general.send("Is 2+2=4?", view=view)
    stored = server.messages_in(world.general)[-1]
    assert stored.id == sent.id and set(stored.custom_ids()) == {"vote:yes", "vote:no"}
    record = await server.click(world.general, world.student, sent.id, "vote:yes")
    assert await live.probe.get("vote") == ("yes", world.student.id)
    assert (await server.wait_for_callback(record))["type"] == 7
    assert stored.content == "Voted yes" and stored.edits[0]["content"] == "Is 2+2=4?"


async def test_modal_submit_reaches_on_submit(live: Live) -> None:
    server, world = live.server, live.world
    record = await server.slash_command(world.general, world.student, "ask")
    modal = await server.wait_for_callback(record)
    assert modal["type"] == 9 and modal["data"]["custom_id"] == "ask"
    submit = await server.submit_modal(world.general, world.student, "ask", {"question": "What is 2+2?"})
    assert await live.probe.get("modal") == ("What is 2+2?", world.student.id)
    assert (await server.wait_for_callback(submit))["data"]["content"] == "Thanks!"


async def test_deferred_reply_and_followups(live: Live) -> None:
    server, world = live.server, live.world
    record = await server.slash_command(world.general, world.student, "think")
    first_id, second_id = await live.probe.get("think")
    assert (await server.wait_for_callback(record)) == {"type": 5, "data": {"flags": 64}}
    assert first_id == record.original_message_id  # the first follow-up fills the "thinking" message
    original = server.messages[first_id]
    assert original.content == "first, edited" and original.flags == 64
    assert [m.id for m in server.followups(record.token)] == [second_id]


async def test_reactions_events_and_permissions(live: Live) -> None:
    server, world = live.server, live.world
    message = await live.general.send("React to me")
    await message.add_reaction("👍")
    assert (await live.probe.get("reaction")).user_id == live.bot.user.id
    await server.react(world.general, world.student, message.id, "✅")
    event = await live.probe.get("reaction")
    assert (event.user_id, event.emoji.name, event.member.id) == (world.student.id, "✅", world.student.id)
    assert server.messages[message.id].reactions == {"👍": [server.bot.id], "✅": [world.student.id]}
    await message.remove_reaction("✅", discord.Object(world.student.id))  # needs MANAGE_MESSAGES
    assert server.messages[message.id].reactions["✅"] == []
    world.guild.roles[world.bot.role_ids[0]].permissions = 0
    with pytest.raises(discord.Forbidden) as denied:
        await message.remove_reaction("👍", discord.Object(world.student.id))
    assert denied.value.code == 50013


async def test_a_dm_is_a_guildless_channel_with_the_user_in_place_of_a_member(live: Live) -> None:
    server, bot = live.server, live.bot
    dm, dana = server.dm(server.add_user("dana"))
    assert server.dm(dana.user) == (dm, dana)  # opened once
    with pytest.raises(LookupError):  # the commands are synced to the guild only so far
        await server.slash_command(dm, dana, "ping", {"topic": "x"})
    await bot.tree.sync()
    record = await server.slash_command(dm, dana, "ping", {"topic": "sets"})
    interaction, _ = await live.probe.get("ping")
    assert interaction.guild_id is None and isinstance(interaction.channel, discord.DMChannel)
    assert interaction.user.id == dana.id and not isinstance(interaction.user, discord.Member)
    assert "member" not in record.payload and "guild_id" not in record.payload
    assert record.payload["context"] == 1 and record.payload["channel"]["recipients"][0]["id"] == str(dana.id)
    assert server.messages_in(dm)[-1].content == "pong sets"

    channel = await bot.fetch_channel(dm.id)
    assert isinstance(channel, discord.DMChannel) and channel.recipient.id == dana.id
    message = await channel.send("React to me")
    await server.react(dm, dana, message.id, "✅")
    event = await live.probe.get("reaction")
    assert (event.user_id, event.guild_id, event.member) == (dana.id, None, None)
    with pytest.raises(discord.Forbidden) as denied:  # nobody may remove another's reaction in a DM
        await message.remove_reaction("✅", discord.Object(dana.id))
    assert denied.value.code == 50003


class Crafted(discord.ui.View):
    """A view sending raw components, to get past discord.py's own client-side layout checks."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__()
        self.components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.components


def button(custom_id: str, label: str = "b") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}


@pytest.mark.parametrize(("components", "field"), [
    ([{"type": 1, "components": [button(f"r{i}")]} for i in range(6)], "In components:"),
    ([{"type": 1, "components": [button(f"b{i}") for i in range(6)]}], "In components.0.components:"),
    ([{"type": 1, "components": [button("c" * 101)]}], "In components.0.components.0.custom_id:"),
    ([{"type": 1, "components": [button("x", "l" * 81)]}], "In components.0.components.0.label:"),
], ids=["6-rows", "6-buttons-in-a-row", "custom_id-101", "label-81"])
async def test_component_limits_answer_50035(live: Live, components: list, field: str) -> None:
    with pytest.raises(discord.HTTPException) as caught:
        await live.general.send("components", view=Crafted(components))
    assert caught.value.code == 50035 and field in caught.value.text
    assert live.server.messages_in(live.world.general) == []


async def test_message_limits_answer_50035(live: Live) -> None:
    with pytest.raises(discord.HTTPException) as too_long:
        await live.general.send("x" * 2001)
    assert too_long.value.code == 50035 and "In content: Must be 2000 or fewer" in too_long.value.text
    embed = discord.Embed(description="d" * 4097)
    for n in range(26):
        embed.add_field(name=str(n), value="v")
    with pytest.raises(discord.HTTPException) as embeds:
        await live.general.send(embed=embed)
    assert "embeds.0.description" in embeds.value.text and "embeds.0.fields" in embeds.value.text
    assert live.server.messages_in(live.world.general) == []


async def test_429_is_retried_by_discord_py(live: Live) -> None:
    server = live.server
    server.fail_next("POST /channels/{channel_id}/messages", code=429, retry_after=0.05)
    await live.general.send("after a rate limit")
    posts = [r for r in server.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert [r.status for r in posts] == [429, 200]
    assert posts[0].response["retry_after"] == 0.05
    assert [m.content for m in server.messages_in(live.world.general)] == ["after a rate limit"]


async def test_enforced_buckets_make_discord_py_wait(live: Live) -> None:
    server = live.server
    server.enforce_rate_limits = True
    server.rate_limits[("POST", "/channels/{channel_id}/messages")] = (2, 0.3)
    for n in range(3):
        await live.general.send(f"message {n}")
    assert len(server.messages_in(live.world.general)) == 3
    assert all(r.status == 200 for r in server.requests if r.method == "POST")


async def test_unknown_route_and_field_are_violations(live: Live) -> None:
    server, http = live.server, live.bot.http
    with pytest.raises(discord.NotFound):
        await http.request(discord.http.Route("GET", "/definitely/not/discord"))
    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=live.world.general.id)
    with pytest.raises(discord.HTTPException) as bad_field:
        await http.request(route, json={"content": "hi", "colour": 3})
    assert bad_field.value.code == 50035
    problems = [v.problem.split(":")[0] for v in server.spec_violations]
    assert problems == ["no such route in Discord's API", "colour"]
    with pytest.raises(AssertionError):
        server.assert_all_requests_valid()
    server.spec_violations.clear()


async def test_missing_things_and_permissions(live: Live) -> None:
    world, bot = live.world, live.bot
    hidden = world.guild.add_text_channel("secret").overwrite(world.bot, deny=Perm.VIEW_CHANNEL)
    muted = world.guild.add_text_channel("read-only").overwrite(world.bot, deny=Perm.SEND_MESSAGES)
    cases = [(hidden.id, discord.Forbidden, 50001), (muted.id, discord.Forbidden, 50013),
             (1, discord.NotFound, 10003)]
    for channel_id, error, code in cases:
        with pytest.raises(error) as caught:
            await bot.get_partial_messageable(channel_id).send("hello")
        assert caught.value.code == code
    with pytest.raises(discord.NotFound) as unknown:
        await live.general.fetch_message(1)
    assert unknown.value.code == 10008


async def test_gateway_resume_replays_missed_events(live: Live) -> None:
    server, world = live.server, live.world
    message = await live.general.send("Resume test")
    await server.gateway.disconnect(code=4000)
    await server.react(world.general, world.admin, message.id, "🎉")  # sent while the bot is away
    event = await live.probe.get("reaction")
    assert (event.user_id, event.emoji.name) == (world.admin.id, "🎉")
    assert server.gateway.resumes == 1 and server.gateway.connections[-1].path == "/gateway-resume"


async def test_wrong_token_is_login_failure(discord_to_fake: FakeDiscord) -> None:  # noqa: F811
    client = discord.Client(intents=discord.Intents.default())
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()


async def test_members_intent_chunks_and_privileged_refusal(
    discord_to_fake: FakeDiscord, study_world: StudyWorld  # noqa: F811
) -> None:
    intents = discord.Intents.default()
    intents.members = True
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=intents, guild_ready_timeout=0.05)
    async with running_client(bot, discord_to_fake):
        guild = bot.get_guild(study_world.guild.id)
        assert guild.chunked and {m.name for m in guild.members} == {"StudyBot", "alice", "bob",
                                                                     "study-hall-owner"}
        assert guild.get_member(study_world.admin.id).guild_permissions.manage_guild
    discord_to_fake.allowed_privileged_intents = 0
    refused = commands.Bot(command_prefix=commands.when_mentioned, intents=intents, guild_ready_timeout=0.05)
    with pytest.raises(discord.PrivilegedIntentsRequired):
        async with running_client(refused, discord_to_fake):
            pass
