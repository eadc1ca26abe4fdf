"""Answering an interaction in time: refs for the application (chat, user, caller), and replies
that defer first when the work takes long (Discord drops an interaction not answered within 3
seconds)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any

import discord

from adapters.discord.render import CONTENT_MAX, fit, fit_embed
from bot.application.requests import Caller
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.locales.i18n import DEFAULT_LANGUAGE, match_language, t

log = logging.getLogger("studybot.discord")
DEFER_AFTER = 2.0  # seconds of work before the reply is deferred (Discord allows 3)
ALREADY_ACKNOWLEDGED = 40060  # Discord's code for a second answer to one interaction


def chat_ref(interaction: discord.Interaction) -> ChatRef:
    """The core's reference to the interaction's channel; a channel new to the bot starts in the
    server's preferred locale (a DM: the user's locale) unless the server chose a language."""
    channel = interaction.channel
    key = str(interaction.channel_id or (channel.id if channel is not None else None) or interaction.user.id)
    title = getattr(channel, "name", None) or ""
    if interaction.guild_id is None:
        locale = str(interaction.locale)
        return ChatRef(Platform.DISCORD, key, ChatKind.PRIVATE, title=title, language_hint=locale)
    hint = str(interaction.guild_locale) if interaction.guild_locale is not None else None
    return ChatRef(Platform.DISCORD, key, ChatKind.GROUP, guild_key=str(interaction.guild_id), title=title,
                   language_hint=hint)  # fmt: skip


def user_language(interaction: discord.Interaction) -> str | None:
    """The catalog language of the user's Discord client, for replies only they see."""
    return match_language(str(interaction.locale))


def user_ref(user: discord.abc.User) -> UserRef:
    return UserRef(Platform.DISCORD, str(user.id), user.display_name)


def is_admin(interaction: discord.Interaction) -> bool:
    """Manage Server (or Administrator) in this channel, as Discord computed it for the interaction."""
    perms = interaction.permissions
    return interaction.guild_id is not None and (perms.manage_guild or perms.administrator)


def caller(interaction: discord.Interaction) -> Caller:
    """Who runs a command and where; an admin has Manage Server; replies only they see speak
    their client's language when the catalog has it."""
    return Caller(chat_ref(interaction), user_ref(interaction.user), admin=is_admin(interaction),
                  language=user_language(interaction))  # fmt: skip


class InFlight:
    """The interactions and reactions being handled, so that stopping lets them finish first."""

    def __init__(self) -> None:
        self.closing = False
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.asynccontextmanager
    async def busy(self) -> AsyncIterator[bool]:
        """Yields False once closing: the work is then skipped (the bot is going away)."""
        if self.closing:
            yield False
            return
        self._count += 1
        self._idle.clear()
        try:
            yield True
        finally:
            self._count -= 1
            if not self._count:
                self._idle.set()

    async def drain(self, timeout: float) -> None:
        self.closing = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("discord: %d interactions still running at shutdown", self._count)


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    embed: discord.Embed | None = None
    view: discord.ui.View | None = None
    ephemeral: bool = True
    files: tuple[discord.File, ...] = ()


async def respond(
    interaction: discord.Interaction, work: Awaitable[Reply], *, public: bool = False
) -> int | None:
    """Run `work` and send its reply; defer if it is not done within DEFER_AFTER seconds.
    Returns the id of the message sent (None if Discord no longer takes the interaction)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER)
    deferred = False
    if not done and not interaction.response.is_done():
        try:
            await interaction.response.defer(ephemeral=not public, thinking=True)
            deferred = True
        except discord.HTTPException as exc:
            log.warning("could not defer interaction %s: %s", interaction.id, exc)
    reply = await task
    if deferred and reply.ephemeral == public:
        # The "thinking" message has the wrong visibility for this reply, and the first follow-up
        # would only fill it in: remove it, so that the reply is a message of its own.
        try:
            await interaction.delete_original_response()
        except discord.HTTPException as exc:
            log.warning("could not remove the deferred answer to interaction %s: %s", interaction.id, exc)
    return await send(interaction, reply)


async def send(interaction: discord.Interaction, reply: Reply) -> int | None:
    """Send the reply, fitted to Discord's limits; if Discord still refuses it (400), a short
    error in its place, so that the user is never left without an answer."""
    try:
        return await _send(interaction, reply)
    except discord.HTTPException as exc:
        if exc.status != 400:
            raise
        log.warning("discord refused the reply to interaction %s: %s %s", interaction.id, exc.code, exc.text)
        return await _send(interaction, Reply(t(await chat_language(interaction), "error.reply_failed")))


async def _send(interaction: discord.Interaction, reply: Reply) -> int | None:
    kwargs: dict[str, Any] = {"ephemeral": reply.ephemeral}
    if reply.content:
        kwargs["content"] = fit(reply.content, CONTENT_MAX)
    if reply.embed is not None:
        kwargs["embed"] = fit_embed(reply.embed)
    if reply.view is not None:
        kwargs["view"] = reply.view
    if reply.files:
        kwargs["files"] = list(reply.files)
    try:
        if not interaction.response.is_done():
            response = await interaction.response.send_message(**kwargs)
            return response.message_id
        message = await interaction.followup.send(wait=True, **kwargs)
        return message.id
    except discord.NotFound as exc:  # 10062: too late; 10015: the token expired
        log.warning("interaction %s could not be answered: %s", interaction.id, exc)
        return None
    except discord.HTTPException as exc:
        if exc.code != ALREADY_ACKNOWLEDGED:
            raise
        # The same interaction delivered twice (Discord resent it, or two processes share the
        # token): the other delivery answered it; this one has nothing to add.
        log.warning("interaction %s was answered already (delivered twice)", interaction.id)
        return None


async def chat_language(interaction: discord.Interaction) -> str:
    """The language of the interaction's chat, as the core knows it (for telling a failure: the
    default language if even that cannot be read)."""
    application: Any = getattr(getattr(interaction.client, "adapter", None), "application", None)
    if application is None:
        return DEFAULT_LANGUAGE
    try:
        return str(await application.language(chat_ref(interaction)))
    except Exception:  # telling a failure must not fail in turn
        log.warning("discord: the language of channel %s could not be read", interaction.channel_id)
        return DEFAULT_LANGUAGE
