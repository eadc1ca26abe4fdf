"""Reaction mode (dailies set with mode=reactions): choices as 🇦🇧🇨🇩 or ✅❌ reactions, a user's
first reaction is their answer, and with Manage Messages the bot removes reactions to hide choices.

A reaction is a click on an option of the question's message: it goes through
`Application.answering.click`, checked like a button against the round's message."""

from __future__ import annotations

import asyncio
import logging

import discord

from adapters.discord.replies import InFlight
from bot.application.answering import ReceiptReply
from bot.application.app import Application, log_failure
from bot.application.clicks import Act, Click
from bot.application.keyed_locks import KeyedLocks
from bot.domain.kinds import (
    AnswerMode,
    AnswerStatus,
    ChatKind,
    ChatRef,
    InputKind,
    Platform,
    UserRef,
)
from bot.views.quiz import QuestionView

log = logging.getLogger("studybot.discord")
JUDGE_EMOJI = {"true": "✅", "false": "❌"}
REGIONAL_A = 0x1F1E6  # 🇦; 🇧 … 🇿 follow
MAX_REACTIONS = 20  # Discord's limit of distinct reactions on a message
LOOKED_UP_MAX = 10_000  # message ids remembered as not questions before the memory starts over
LOOK_UP_AGAIN = 5.0  # seconds before a bot message that was not a known question is looked up again


def emoji_for(token: str) -> str:
    if token in JUDGE_EMOJI:
        return JUDGE_EMOJI[token]
    return chr(REGIONAL_A + ord(token) - ord("A"))


def token_for(emoji: str) -> str | None:
    for token, judge in JUDGE_EMOJI.items():
        if emoji == judge:
            return token
    if len(emoji) == 1 and 0 <= ord(emoji) - REGIONAL_A < 26:
        return chr(ord("A") + ord(emoji) - REGIONAL_A)
    return None


def supports(view: QuestionView) -> bool:
    """One reaction is one answer: choose one and true/false only (others keep their buttons)."""
    kinds = (InputKind.CHOOSE_ONE, InputKind.TRUE_FALSE)
    return view.input_kind in kinds and 0 < len(view.options) <= MAX_REACTIONS


def parse_ref(message_ref: str | None) -> tuple[int, int] | None:
    channel, _, message = (message_ref or "").partition(":")
    if not (channel.isdigit() and message.isdigit()):
        return None
    return int(channel), int(message)


class Reactions:
    def __init__(self, application: Application, inflight: InFlight) -> None:
        self.application = application
        self.inflight = inflight
        self.rounds: dict[int, int] = {}  # message id -> round id, for open reaction-mode questions
        self._tokens: dict[int, frozenset[str]] = {}  # message id -> the options offered on it
        self._locks = KeyedLocks()  # per (round, user): one reaction at a time counts
        self._looked_up: dict[int, float] = {}  # bot messages not tracked here -> when looked up
        self._lookup = asyncio.Lock()

    def track(self, message_id: int, view: QuestionView) -> None:
        self.rounds[message_id] = view.round_id
        self._tokens[message_id] = frozenset(o.token for o in view.options)

    def forget(self, message_id: int) -> None:
        self.rounds.pop(message_id, None)
        self._tokens.pop(message_id, None)

    async def add_choices(self, message: discord.Message, view: QuestionView) -> None:
        self.track(message.id, view)
        for option in view.options:
            try:
                await message.add_reaction(emoji_for(option.token))
            except discord.HTTPException as exc:  # members can still react themselves
                log.warning("could not add %s to message %s: %s", option.token, message.id, exc)

    async def preload(self) -> None:
        """After a restart: find the open reaction-mode questions again (each round keeps its mode)."""
        for posted in await self.application.rounds.open_on(Platform.DISCORD, AnswerMode.REACTIONS):
            where = parse_ref(posted.message_ref)
            if where is not None and supports(posted.view):
                self.track(where[1], posted.view)

    async def on_reaction(self, client: discord.Client, event: discord.RawReactionActionEvent) -> None:
        me = client.user
        if me is None or event.user_id == me.id or (event.member and event.member.bot):
            return
        round_id = self.rounds.get(event.message_id)
        if round_id is None and event.message_author_id == me.id:
            round_id = await self._posted_elsewhere(event.message_id)
        if round_id is None:
            return
        async with self.inflight.busy() as running:
            if running:
                await self._answer(client, event, round_id)

    async def _posted_elsewhere(self, message_id: int) -> int | None:
        """A reaction on a message of the bot's that this process did not post: with several
        processes, another one may have posted the question (the reaction comes to the process
        running the guild's shard). Read the open reaction-mode questions again, once per message."""
        async with self._lookup:
            now = asyncio.get_running_loop().time()
            last = self._looked_up.get(message_id)
            # Again after a while: the reaction may have come before the question's reference was stored.
            if message_id not in self.rounds and (last is None or now - last > LOOK_UP_AGAIN):
                if len(self._looked_up) > LOOKED_UP_MAX:
                    self._looked_up.clear()
                self._looked_up[message_id] = now
                await self.preload()
        return self.rounds.get(message_id)

    async def _answer(self, client: discord.Client, event: discord.RawReactionActionEvent, round_id: int,
                      ) -> None:  # fmt: skip
        try:
            token = token_for(event.emoji.name or "") if event.emoji.is_unicode_emoji() else None
            if token is not None:
                name = event.member.display_name if event.member else str(event.user_id)
                user = UserRef(Platform.DISCORD, str(event.user_id), name)
                kind = ChatKind.GROUP if event.guild_id else ChatKind.PRIVATE
                guild = str(event.guild_id) if event.guild_id else None
                chat = ChatRef(Platform.DISCORD, str(event.channel_id), kind, guild_key=guild)
                # The bot put these options on this very message (tracked above), so they are its controls.
                message_ref = f"{event.channel_id}:{event.message_id}"
                offered = self._tokens.get(event.message_id, frozenset())
                click = Click(
                    round_id, Platform.DISCORD, chat.chat_key, message_ref, Act.ANSWER, token, token, offered
                )
                # One user's reactions one after another, so the first one is the one recorded.
                async with self._locks.hold((round_id, event.user_id)):
                    result = await self.application.click(chat, user, click)
                closed = (AnswerStatus.CLOSED, AnswerStatus.UNKNOWN_ROUND)
                if not isinstance(result, ReceiptReply) or result.receipt.status in closed:
                    return  # the reveal is coming (or came): reactions no longer need hiding
            await self._hide(client, event)
        except Exception:  # a reaction must never take the gateway handler down
            log_failure(log, "reaction on message %s not handled", event.message_id)

    async def _hide(self, client: discord.Client, event: discord.RawReactionActionEvent) -> None:
        guild = client.get_guild(event.guild_id or 0)
        channel = guild.get_channel_or_thread(event.channel_id) if guild else None
        if guild is None or channel is None or not channel.permissions_for(guild.me).manage_messages:
            return
        message = client.get_partial_messageable(event.channel_id).get_partial_message(event.message_id)
        try:
            await message.remove_reaction(event.emoji, discord.Object(event.user_id))
        except discord.HTTPException as exc:
            log.info("could not hide a reaction on message %s: %s", event.message_id, exc)
