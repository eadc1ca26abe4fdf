"""State of the fake Discord (guilds, users, messages, commands, interactions) and the operations
REST handlers and simulations share: lookups that fail like Discord, permission checks, and
message create/edit/delete with the matching gateway events."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from tests.fakes.discord_gateway import (
    DIRECT_MESSAGE_REACTIONS,
    DIRECT_MESSAGES,
    GUILD_MESSAGE_REACTIONS,
    GUILD_MESSAGES,
    MESSAGE_CONTENT,
    Gateway,
)
from tests.fakes.discord_models import (
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeUser,
    InteractionRecord,
    MessageRecord,
    apply_edit,
    emoji_key,
    iso_now,
    message_payload,
    snowflake,
)
from tests.fakes.discord_rules import (
    CANNOT_ACT_ON_DM,
    DM_PERMISSIONS,
    EPHEMERAL,
    UNKNOWN_CHANNEL,
    UNKNOWN_GUILD,
    UNKNOWN_MEMBER,
    UNKNOWN_MESSAGE,
    DiscordError,
    Perm,
    missing_access,
    missing_permissions,
    not_found,
)

if TYPE_CHECKING:
    from collections.abc import Iterable


class DiscordStore:
    """Mixed into FakeDiscord; expects `self.gateway`, `self.bot` and `self.application_id`."""

    gateway: Gateway
    bot: FakeUser
    application_id: int

    def _init_store(self) -> None:
        self.guilds: dict[int, FakeGuild] = {}
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot}
        self.messages: dict[int, MessageRecord] = {}  # message id -> record, in creation order
        self.commands: dict[int | None, list[dict[str, Any]]] = {}  # guild id (None: global) -> commands
        self.interactions: dict[int, InteractionRecord] = {}
        self.open_modals: dict[tuple[int, str], tuple[dict[str, Any], InteractionRecord]] = {}
        self.cdn: dict[str, bytes] = {}  # CDN path -> the file's bytes (attachments members sent)
        self.cdn_downloads: list[str] = []  # CDN paths fetched, in order
        self.joined_at = iso_now()
        self.dms: dict[int, tuple[FakeChannel, FakeMember]] = {}  # user id -> DM with the bot, user in it

    def add_user(self, username: str, *, bot: bool = False) -> FakeUser:
        user = FakeUser(snowflake(), username, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self, name: str, *, owner: FakeUser | None = None, bot_permissions: int | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A guild the bot is in. `bot_permissions` gives the bot's member a role with those bits
        (default: only what @everyone has); `shard` (id, count): its id puts it on that shard."""
        owner = owner or self.add_user(f"{name.lower().replace(' ', '-')}-owner")
        guild = FakeGuild(snowflake(shard), name, owner_id=owner.id)
        self.guilds[guild.id] = guild
        guild.add_member(owner)
        guild.add_member(self.bot, permissions=bot_permissions)
        return guild

    def add_member(self, guild: FakeGuild, username: str, *, permissions: int | None = None,
                   roles: Iterable = ()) -> FakeMember:
        """A new user who is a member of `guild` (`permissions`: bits of a personal role)."""
        return guild.add_member(self.add_user(username), roles=list(roles), permissions=permissions)

    def channel(self, channel_id: int | str) -> FakeChannel:
        for guild in self.guilds.values():
            if int(channel_id) in guild.channels:
                return guild.channels[int(channel_id)]
        for dm, _ in self.dms.values():
            if dm.id == int(channel_id):
                return dm
        raise not_found(UNKNOWN_CHANNEL, "Channel")

    def dm(self, user: FakeUser) -> tuple[FakeChannel, FakeMember]:
        """The DM channel between `user` and the bot (opened on first use), and the user as the
        one acting in it (a member of no guild): pass both to slash_command, click, react, ..."""
        self.users.setdefault(user.id, user)
        if user.id not in self.dms:
            channel = FakeChannel(snowflake(), None, "", type=1, recipient=user)
            self.dms[user.id] = (channel, FakeMember(user, None))
        return self.dms[user.id]

    def guild(self, guild_id: int | str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            raise not_found(UNKNOWN_GUILD, "Guild")
        return guild

    def member(self, guild: FakeGuild, user_id: int | str) -> FakeMember:
        member = guild.members.get(int(user_id))
        if member is None:
            raise not_found(UNKNOWN_MEMBER, "Member")
        return member

    def bot_member(self, guild: FakeGuild) -> FakeMember:
        return guild.members[self.bot.id]

    def require(self, channel: FakeChannel, perms: int) -> None:
        """The bot needs `perms` in `channel`: 50001 without VIEW_CHANNEL, else 50013; in a DM,
        50003 for what nobody may do there (e.g. MANAGE_MESSAGES)."""
        if channel.guild is None:
            if perms & ~DM_PERMISSIONS:
                raise DiscordError(403, CANNOT_ACT_ON_DM, "Cannot execute action on a DM channel")
            return
        have = self.bot_member(channel.guild).permissions(channel)
        if not have & Perm.VIEW_CHANNEL:
            raise missing_access()
        if have & perms != perms:
            raise missing_permissions()

    def message(self, channel: FakeChannel, message_id: int | str) -> MessageRecord:
        """A message the bot can see through the channel API (ephemeral ones are invisible)."""
        record = self.messages.get(int(message_id))
        if record is None or record.deleted or record.channel_id != channel.id or record.ephemeral_for:
            raise not_found(UNKNOWN_MESSAGE, "Message")
        return record

    def messages_in(
        self, channel: FakeChannel | int, *, include_deleted: bool = False
    ) -> list[MessageRecord]:
        """Messages of a channel in creation order (ephemeral ones included; see `.flags`)."""
        cid = channel if isinstance(channel, int) else channel.id
        return [m for m in self.messages.values()
                if m.channel_id == cid and (include_deleted or not m.deleted)]

    def followups(self, interaction_token: str) -> list[MessageRecord]:
        record = next((i for i in self.interactions.values() if i.token == interaction_token), None)
        return [self.messages[m] for m in record.followup_ids] if record else []

    async def create_message(
        self, channel: FakeChannel, body: dict[str, Any], *, author: FakeUser | None = None,
        message_type: int = 0, extra: dict[str, Any] | None = None, ephemeral_for: int | None = None,
        interaction_token: str | None = None,
    ) -> MessageRecord:
        data = message_payload(channel=channel, author=author or self.bot, body=body,
                               message_type=message_type, extra=extra)
        record = MessageRecord(data, ephemeral_for=ephemeral_for if data["flags"] & EPHEMERAL else None,
                               interaction_token=interaction_token)
        self.messages[record.id] = record
        if record.ephemeral_for is None:
            await self._dispatch_message("MESSAGE_CREATE", record, with_member=True)
        return record

    async def edit_message(self, record: MessageRecord, body: dict[str, Any]) -> MessageRecord:
        record.edits.append(copy.deepcopy(record.data))
        apply_edit(record.data, body)
        record.data["edited_timestamp"] = iso_now()
        if record.ephemeral_for is None:
            await self._dispatch_message("MESSAGE_UPDATE", record, with_member=False)
        return record

    async def delete_message(self, record: MessageRecord) -> None:
        record.deleted = True
        if record.ephemeral_for is not None:
            return
        channel = self.channel(record.channel_id)
        data = {"id": str(record.id), "channel_id": str(channel.id)}
        if channel.guild is None:
            await self.gateway.dispatch("MESSAGE_DELETE", data, DIRECT_MESSAGES)
            return
        await self.gateway.dispatch("MESSAGE_DELETE", {**data, "guild_id": str(channel.guild.id)},
                                    GUILD_MESSAGES)

    async def _dispatch_message(self, event: str, record: MessageRecord, *, with_member: bool) -> None:
        channel = self.channel(record.channel_id)
        if channel.guild is None:  # a DM: only a bot with the DIRECT_MESSAGES intent hears of it
            await self.gateway.dispatch(event, copy.deepcopy(record.data), DIRECT_MESSAGES)
            return
        data = {**copy.deepcopy(record.data), "guild_id": str(channel.guild.id)}
        author = channel.guild.members.get(int(data["author"]["id"]))
        if with_member and author is not None:
            data["member"] = author.payload(with_user=False)
        mentioned = any(int(u["id"]) == self.bot.id for u in data.get("mentions", []))
        if author is not None and author.id != self.bot.id and not mentioned and (
                not (self.gateway.intents or 0) & MESSAGE_CONTENT):
            data.update(content="", embeds=[], attachments=[], components=[])
        await self.gateway.dispatch(event, data, GUILD_MESSAGES)

    async def add_reaction(self, record: MessageRecord, user_id: int, emoji: dict[str, Any]) -> None:
        users = record.reactions.setdefault(emoji_key(emoji), [])
        if user_id in users:
            return
        users.append(user_id)
        self._refresh_reactions(record)
        channel = self.channel(record.channel_id)
        event = {
            "user_id": str(user_id), "channel_id": str(channel.id), "message_id": str(record.id),
            "emoji": emoji, "burst": False, "burst_colors": [], "type": 0,
            "message_author_id": record.data["author"]["id"],
        }
        if channel.guild is None:
            await self.gateway.dispatch("MESSAGE_REACTION_ADD", event, DIRECT_MESSAGE_REACTIONS)
            return
        event["guild_id"] = str(channel.guild.id)
        member = channel.guild.members.get(user_id)
        if member is not None:
            event["member"] = member.payload()
        await self.gateway.dispatch("MESSAGE_REACTION_ADD", event, GUILD_MESSAGE_REACTIONS)

    async def remove_reaction(self, record: MessageRecord, user_id: int, emoji: dict[str, Any]) -> None:
        users = record.reactions.get(emoji_key(emoji), [])
        if user_id not in users:
            return
        users.remove(user_id)
        self._refresh_reactions(record)
        channel = self.channel(record.channel_id)
        event = {"user_id": str(user_id), "channel_id": str(channel.id), "message_id": str(record.id),
                 "emoji": emoji, "burst": False, "type": 0}  # fmt: skip
        if channel.guild is None:
            await self.gateway.dispatch("MESSAGE_REACTION_REMOVE", event, DIRECT_MESSAGE_REACTIONS)
            return
        await self.gateway.dispatch("MESSAGE_REACTION_REMOVE", {**event, "guild_id": str(channel.guild.id)},
                                    GUILD_MESSAGE_REACTIONS)

    def _refresh_reactions(self, record: MessageRecord) -> None:
        reactions = []
        for key, users in record.reactions.items():
            if not users:
                continue
            name, _, eid = key.partition(":")
            reactions.append({
                "count": len(users), "count_details": {"burst": 0, "normal": len(users)},
                "me": self.bot.id in users, "me_burst": False, "burst_colors": [],
                "emoji": {"id": eid or None, "name": name},
            })
        record.data["reactions"] = reactions
        if not reactions:
            del record.data["reactions"]

    def find_command(self, guild_id: int | None, name: str) -> dict[str, Any] | None:
        """A chat-input command visible in `guild_id`: the guild's own first, then global ones."""
        for scope in (guild_id, None):
            for command in self.commands.get(scope, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        return None
