"""DiscordAdapter: the discord.py client's lifecycle on the app's loop, and the ChatPort the core
posts questions, reveals, standings and notices through. It is given the Application and plain
settings; the composition root (studybot/runner.py) builds it."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import aiohttp
import discord
import yarl

from adapters.discord import commands, custom_ids, transient
from adapters.discord.answering import Answering, carried, payload
from adapters.discord.live import LiveCounts
from adapters.discord.mock_views import MockButton
from adapters.discord.reactions import Reactions, parse_ref, supports
from adapters.discord.render import (
    CONTENT_MAX,
    MD,
    attachment,
    fit,
    question_embed,
    reveal_embed,
    standings_embed,
)
from adapters.discord.replies import InFlight
from adapters.discord.settings import DiscordSettings
from adapters.discord.translator import CatalogTranslator
from adapters.discord.views import DYNAMIC_ITEMS, question_buttons, revealed_buttons, star_buttons
from bot.application.app import Application
from bot.domain.kinds import ChatRef, Platform
from bot.ports.chat import ChatGone, PaceLimits, PostError, PostRejected, RetryLater
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView
from bot.views.quiz_text import render_notice

log = logging.getLogger("studybot.discord")
T = TypeVar("T")
GONE_CODES = {10003, 50001, 50013}  # Unknown Channel, Missing Access, Missing Permissions
NONCE_LENGTH = 25  # the longest nonce Discord takes
UNKNOWN_MESSAGE = 10008
DM_PREFIX = "dm:"  # a private chat the core names by the person's user id (a notice to an owner)


def intents() -> discord.Intents:
    """Nothing privileged: slash commands and buttons need no message content or member list."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_reactions = True
    return wanted


class StudyClient(discord.AutoShardedClient):
    """The bot's gateway shards (those of the settings, or all Discord recommends) in one client.
    Nothing here depends on which process received an event: a button's custom_id carries its
    round, a modal's its question, and the database decides."""

    def __init__(self, adapter: DiscordAdapter, settings: DiscordSettings) -> None:
        shards: dict[str, Any] = {}
        if settings.shard_count is not None:
            shards["shard_count"] = settings.shard_count
            if settings.shard_ids is not None:
                shards["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=settings.guild_ready_timeout,
            max_ratelimit_timeout=30.0,  # longer waits go back to the outbox as RetryLater
            **shards,
        )
        self.adapter = adapter
        self.answering = adapter.answering
        self.tree = commands.StudyTree(self)
        commands.install(self.tree, adapter)
        self.add_dynamic_items(*DYNAMIC_ITEMS, MockButton)

    async def launch_shards(self) -> None:
        if self.shard_count is None and self.adapter.settings.gateway_url:
            # Ask only for the recommended count: discord.py would also take Discord's gateway
            # address from that answer, and DISCORD_GATEWAY_URL must win.
            self.shard_count, _, _ = await self.http.get_bot_gateway()
        await super().launch_shards()

    async def setup_hook(self) -> None:
        await self.tree.set_translator(CatalogTranslator())

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        # Buttons are dispatched by their templates and commands by the tree; here: modal submits
        # (by custom_id, so they outlive a restart) and clicks no template of ours matches.
        # discord.py calls a button's callback only if the message carries that very component;
        # the rest would time out unanswered, so they are answered "closed" here.
        data = payload(interaction)
        custom_id = str(data.get("custom_id", ""))
        if interaction.type is discord.InteractionType.modal_submit:
            await self.answering.on_modal_submit(interaction)
        elif interaction.type is discord.InteractionType.component:
            message = interaction.message
            component = (int(data.get("component_type") or 0), custom_id)
            if not custom_ids.is_ours(custom_id) or message is None or component not in carried(message):
                await self.answering.on_stray(interaction)

    async def on_raw_reaction_add(self, event: discord.RawReactionActionEvent) -> None:
        await self.adapter.reactions.on_reaction(self, event)


class DiscordAdapter:
    platform = Platform.DISCORD
    limits = PaceLimits(per_second=50, per_chat=5, per_chat_window=5)
    ready_timeout = 30.0
    drain_timeout = 5.0

    def __init__(self, application: Application, settings: DiscordSettings) -> None:
        self.application = application
        self.settings = settings
        self.inflight = InFlight()
        self.counts = LiveCounts(application.rounds, lambda: self.client, settings.count_delay)
        self.answering = Answering(application, self.counts, self.inflight)
        self.reactions = Reactions(application, self.inflight)
        self.client: StudyClient | None = None
        self._runner: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        settings = self.settings
        transient.install()
        if settings.api_base:
            discord.http.Route.BASE = settings.api_base
        if settings.gateway_url:
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)
        client = self.client = StudyClient(self, settings)
        ready = asyncio.create_task(client.wait_until_ready())
        try:
            await client.login(settings.token)
            runner = asyncio.create_task(client.connect(reconnect=True), name="discord-gateway")
            self._runner = runner
            done, _ = await asyncio.wait({runner, ready}, timeout=self.ready_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
            if runner in done:
                runner.result()  # the connection failed: raise its error
                raise RuntimeError("the Discord gateway closed before the bot was ready")
            if not done:
                raise TimeoutError(f"Discord not ready after {self.ready_timeout:.0f}s")
        except BaseException:
            await self.stop()
            raise
        finally:
            ready.cancel()
        await self.reactions.preload()
        await self._sync()
        log.info("discord: logged in as %s (%s guilds, shards %s of %s)", client.user, len(client.guilds),
                 ",".join(str(i) for i in client.shards), client.shard_count)  # fmt: skip

    def connected(self) -> bool:
        """Every shard of this process has its gateway connection open (for /readyz); a shard
        reconnecting after a drop is not connected until it is back."""
        client = self.client
        if client is None or client.is_closed() or not client.is_ready():
            return False
        shards = client.shards.values()
        return bool(shards) and all(not shard.is_closed() for shard in shards)

    async def _sync(self) -> None:
        assert self.client is not None
        tree = self.client.tree
        if self.settings.shard_ids is not None and 0 not in self.settings.shard_ids:
            return  # the commands are the application's, not a shard's: the process with shard 0 syncs
        try:
            if self.settings.dev_guild:
                guild = discord.Object(int(self.settings.dev_guild))
                tree.copy_global_to(guild=guild)
                synced = await tree.sync(guild=guild)
            else:
                synced = await tree.sync()
        except (discord.HTTPException, ValueError) as exc:  # the bot still answers buttons
            log.error("discord: slash commands not synced: %s", exc)
            return
        log.info("discord: %d slash commands synced %s", len(synced),
                 "to the dev guild" if self.settings.dev_guild else "globally")  # fmt: skip

    async def stop(self) -> None:
        """Let the interactions being handled finish, then close the client and its session."""
        await self.inflight.drain(self.drain_timeout)
        await self.counts.close()
        client, runner = self.client, self._runner
        if client is not None:
            await client.close()
        if runner is not None:
            try:
                await asyncio.wait_for(runner, timeout=10)
            except TimeoutError:
                log.warning("discord: the gateway task did not end within 10 s of closing")
            except (asyncio.CancelledError, discord.DiscordException, OSError) as exc:
                log.info("discord: the gateway task ended with %s", type(exc).__name__)
        self._runner = None
        transient.uninstall()

    # ------------------------------------------------------------ ChatPort

    async def post_question(self, chat: ChatRef, view: QuestionView) -> str | None:
        channel = self._channel(chat)
        self.counts.remember(view)
        reactions = view.mode == "reactions" and supports(view)
        files = [attachment(picture) for picture in self.application.pictures(view)]  # with the question
        if reactions:
            message = await _mapped(channel.send(embed=question_embed(view, reactions=True),
                                                 view=star_buttons(view.round_id, view.language),
                                                 nonce=post_nonce(chat, view), files=files))  # fmt: skip
            await self.reactions.add_choices(message, view)
        else:
            message = await _mapped(channel.send(embed=question_embed(view), view=question_buttons(view),
                                                 nonce=post_nonce(chat, view), files=files))  # fmt: skip
        await self._retire(chat, view)
        return f"{message.channel.id}:{message.id}"

    async def _retire(self, chat: ChatRef, view: QuestionView) -> None:
        """Take the answer buttons off the copy of a question that this one was posted to replace
        (its ☆ stays). Posted already, the new copy must not be sent again for this: a failure
        here only leaves buttons whose clicks are refused as stale."""
        where = parse_ref(view.replaces)
        if where is None or int(where[0]) != int(chat.chat_key):
            return
        self.reactions.forget(where[1])
        message = self._channel(chat).get_partial_message(where[1])
        try:
            await message.edit(view=star_buttons(view.round_id, view.language))
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("earlier copy of round %s keeps its buttons: %s", view.round_id, transient.describe(exc))

    async def post_reveal(self, chat: ChatRef, view: RevealView) -> None:
        where = parse_ref(view.message_ref)
        async with self.counts.lock(view.round_id):
            self.counts.mark_revealed(view.round_id)
            if where is not None and int(where[0]) == int(chat.chat_key):
                reactions = where[1] in self.reactions.rounds
                self.reactions.forget(where[1])
                buttons = star_buttons(view.round_id, view.language) if reactions else revealed_buttons(view)
                message = self._channel(chat).get_partial_message(where[1])
                try:
                    await _mapped(message.edit(embed=reveal_embed(view), view=buttons))
                    return
                except discord.NotFound:  # the question was deleted: post the reveal anew
                    log.info("question message of round %s is gone; posting its reveal", view.round_id)
            await _mapped(self._channel(chat).send(embed=reveal_embed(view),
                                                   view=star_buttons(view.round_id, view.language),
                                                   nonce=post_nonce(chat, view)))  # fmt: skip

    async def post_standings(self, chat: ChatRef, view: StandingsView) -> None:
        await _mapped(self._channel(chat).send(embed=standings_embed(view), nonce=post_nonce(chat, view)))

    async def post_notice(self, chat: ChatRef, notice: Notice) -> None:
        text = fit(render_notice(notice, MD), CONTENT_MAX)
        if chat.chat_key.startswith(DM_PREFIX):  # a person's DM, by their user id (private_chat_key)
            client = self._client()
            user = discord.Object(int(chat.chat_key.removeprefix(DM_PREFIX)))
            channel = await _mapped(client.create_dm(user))
            await _mapped(channel.send(text))
            return
        await _mapped(self._channel(chat).send(text))

    def private_chat_key(self, user_key: str) -> str:
        """A person's DM with the bot, named by their user id: its channel id is known only once
        Discord opens it (POST /users/@me/channels), which the notice does when it is posted."""
        return f"{DM_PREFIX}{user_key}"

    def _client(self) -> discord.Client:
        if self.client is None:
            raise RetryLater(5.0, "the Discord client is not running")
        return self.client

    def _channel(self, chat: ChatRef) -> discord.PartialMessageable:
        return self._client().get_partial_messageable(int(chat.chat_key))


def post_nonce(chat: ChatRef, view: QuestionView | RevealView | StandingsView) -> str:
    """The nonce of a new message the outbox posts, which Discord checks for a few minutes
    (discord.py sends it with enforce_nonce): the same post sent again, after a crash between
    Discord taking it and the outbox recording that, or after an answer lost on the way, gets
    the message created the first time instead of a second one. Made of the chat and the view,
    which names its round or contest step, so two different posts never share one; notices may
    repeat word for word (two contests started alike), so they have none."""
    content = json.dumps(dataclasses.asdict(view), sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(f"{chat.chat_key}\n{content}".encode()).hexdigest()[:NONCE_LENGTH]


async def _mapped(call: Awaitable[T]) -> T:
    """Discord's errors as the port's: 429 -> RetryLater, no access to the channel -> ChatGone,
    another 4xx -> PostRejected (retrying cannot help), a 5xx or a network error -> PostError in
    a few words (the outbox retries it; no error page or URL in its log line). A missing message
    (404 Unknown Message) is left to the caller."""
    try:
        return await call
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise PostError(transient.describe(exc)) from exc
    except discord.RateLimited as exc:
        raise RetryLater(exc.retry_after, "Discord rate limit") from exc
    except discord.HTTPException as exc:
        if exc.status == 429:
            retry = exc.response.headers.get("Retry-After") if exc.response is not None else None
            raise RetryLater(float(retry or 1.0), "Discord rate limit") from exc
        if exc.status in (403, 404) and exc.code in GONE_CODES:
            raise ChatGone(f"{exc.status} {exc.code} {exc.text}") from exc
        if 400 <= exc.status < 500 and not (exc.status == 404 and exc.code == UNKNOWN_MESSAGE):
            raise PostRejected(f"{exc.status} {exc.code} {exc.text}") from exc
        if transient.transient(exc):
            raise PostError(transient.describe(exc)) from exc
        raise
