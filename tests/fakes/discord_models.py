"""The fake Discord's world (users, guilds, roles, members, channels, messages, interactions) and
the JSON payloads Discord would send for each of them."""

from __future__ import annotations

import copy
import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.fakes.discord_rules import DM_PERMISSIONS, EVERYONE_DEFAULT, base_permissions, channel_permissions

DISCORD_EPOCH_MS = 1420070400000
_increment = itertools.count(1)


def snowflake(shard: tuple[int, int] | None = None) -> int:
    """A real-looking, strictly increasing snowflake (timestamp << 22 | increment). With `shard`
    (id, count), a guild id on that shard: its timestamp is moved back to the latest millisecond
    with (id >> 22) % count == shard id."""
    ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
    if shard is not None:
        ms -= (ms - shard[0]) % shard[1]
    return (ms << 22) | (next(_increment) & 0xFFF)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class FakeUser:
    id: int
    username: str
    bot: bool = False
    global_name: str | None = None

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id), "username": self.username, "discriminator": "0",
            "global_name": self.global_name or self.username, "avatar": None, "public_flags": 0,
            "avatar_decoration_data": None, "primary_guild": None, "collectibles": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class FakeAttachment:
    """A file a member attached to a slash command's ATTACHMENT option: Discord uploads it to its
    CDN first and the interaction carries it in `data.resolved.attachments`, by id."""

    id: int
    filename: str
    data: bytes = field(repr=False)
    url: str
    content_type: str | None = None

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": str(self.id), "filename": self.filename, "size": len(self.data), "url": self.url,
            "proxy_url": self.url, "ephemeral": True,  # a command's attachment is not kept
        }
        if self.content_type is not None:
            body["content_type"] = self.content_type
        return body


@dataclass
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id), "name": self.name, "permissions": str(int(self.permissions)),
            "position": self.position, "color": 0, "colors": {"primary_color": 0, "secondary_color": None,
            "tertiary_color": None}, "hoist": False, "managed": False, "mentionable": False,
            "icon": None, "unicode_emoji": None, "flags": 0, "description": None,
        }


@dataclass
class FakeMember:
    """A guild's member; with no guild, the user acting in their DM with the bot (a DM has no
    roles or overwrites: they, like the bot, may do there what DM_PERMISSIONS allows). Discord
    sends such a user as `user`, never as a `member`."""

    user: FakeUser
    guild: FakeGuild | None
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def id(self) -> int:
        return self.user.id

    def permissions(self, channel: FakeChannel | None = None) -> int:
        g = self.guild
        if g is None:
            return DM_PERMISSIONS
        perms = base_permissions(
            int(g.everyone.permissions), [int(g.roles[r].permissions) for r in self.role_ids if r in g.roles],
            self.id == g.owner_id,
        )
        if channel is None:
            return perms
        return channel_permissions(perms, channel.overwrites, g.id, self.role_ids, self.id)

    def payload(self, *, with_user: bool = True, channel: FakeChannel | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids], "nick": self.nick, "avatar": None, "banner": None,
            "joined_at": self.joined_at, "premium_since": None, "deaf": False, "mute": False,
            "flags": 0, "pending": False, "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if channel is not None:
            data["permissions"] = str(self.permissions(channel))
        return data


@dataclass
class FakeChannel:
    """A guild's text channel (type 0); with no guild, the DM (type 1) between the bot and
    `recipient` (DiscordStore.dm). A DM's events carry no guild_id, so only shard 0 gets them."""

    id: int
    guild: FakeGuild | None
    name: str
    type: int = 0
    position: int = 0
    topic: str | None = None
    overwrites: list[dict[str, Any]] = field(default_factory=list)
    recipient: FakeUser | None = None

    def overwrite(self, target: FakeRole | FakeMember, *, allow: int = 0, deny: int = 0) -> FakeChannel:
        """Add a permission overwrite for a role or a member (Discord applies them in that order)."""
        kind = 1 if isinstance(target, FakeMember) else 0
        self.overwrites.append(
            {"id": str(target.id), "type": kind, "allow": str(int(allow)), "deny": str(int(deny))})
        return self

    @property
    def label(self) -> str:
        """How error messages name the channel."""
        return f"#{self.name}" if self.recipient is None else f"the DM with {self.recipient.username}"

    def payload(self) -> dict[str, Any]:
        if self.guild is None:
            assert self.recipient is not None
            return {"id": str(self.id), "type": 1, "recipients": [self.recipient.payload()],
                    "last_message_id": None, "flags": 0}
        return {
            "id": str(self.id), "type": self.type, "guild_id": str(self.guild.id), "name": self.name,
            "position": self.position, "permission_overwrites": copy.deepcopy(self.overwrites),
            "topic": self.topic, "nsfw": False, "last_message_id": None, "rate_limit_per_user": 0,
            "parent_id": None, "flags": 0,
        }


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int = 0
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    preferred_locale: str = "en-US"  # the server's "primary language" (Server Settings)

    def __post_init__(self) -> None:
        # The @everyone role shares the guild's id.
        self.roles.setdefault(self.id, FakeRole(self.id, "@everyone", EVERYONE_DEFAULT))

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def add_role(self, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(snowflake(), name, int(permissions), position=len(self.roles))
        self.roles[role.id] = role
        return role

    def add_text_channel(self, name: str, *, topic: str | None = None) -> FakeChannel:
        channel = FakeChannel(snowflake(), self, name, position=len(self.channels), topic=topic)
        self.channels[channel.id] = channel
        return channel

    def add_member(
        self, user: FakeUser, *, roles: list[FakeRole] = (), permissions: int | None = None
    ) -> FakeMember:
        """`permissions` is a shortcut: it gives the member a personal role with those bits."""
        role_ids = [r.id for r in roles]
        if permissions is not None:
            role_ids.append(self.add_role(f"{user.username}-perms", int(permissions)).id)
        member = FakeMember(user, self, role_ids)
        self.members[user.id] = member
        return member

    def payload(self, *, members: list[FakeMember], joined_at: str) -> dict[str, Any]:
        """The GUILD_CREATE payload discord.py needs to build Guild, Role, Member and TextChannel."""
        return {
            "id": str(self.id), "name": self.name, "icon": None, "splash": None, "discovery_splash": None,
            "owner_id": str(self.owner_id), "afk_channel_id": None, "afk_timeout": 300,
            "verification_level": 0, "default_message_notifications": 0, "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()], "emojis": [], "stickers": [],
            "features": [], "mfa_level": 0, "application_id": None, "system_channel_id": None,
            "system_channel_flags": 0, "rules_channel_id": None, "max_members": 500000,
            "vanity_url_code": None, "description": None, "banner": None, "premium_tier": 0,
            "premium_subscription_count": 0, "preferred_locale": self.preferred_locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0, "premium_progress_bar_enabled": False, "safety_alerts_channel_id": None,
            "joined_at": joined_at, "large": False, "unavailable": False, "member_count": len(self.members),
            "voice_states": [], "members": [m.payload() for m in members],
            "channels": [c.payload() for c in self.channels.values()], "threads": [], "presences": [],
            "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
            "lazy": True,
        }


@dataclass
class MessageRecord:
    """A message as the fake stores it: current `data`, previous versions in `edits`."""

    data: dict[str, Any]
    edits: list[dict[str, Any]] = field(default_factory=list)
    reactions: dict[str, list[int]] = field(default_factory=dict)  # emoji key -> user ids
    deleted: bool = False
    ephemeral_for: int | None = None  # user id who may see it, for ephemeral messages
    interaction_token: str | None = None

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def channel_id(self) -> int:
        return int(self.data["channel_id"])

    @property
    def content(self) -> str:
        return self.data.get("content", "")

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.data.get("components", [])

    @property
    def flags(self) -> int:
        return self.data.get("flags", 0)

    def custom_ids(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}

        def walk(items: list) -> None:
            for c in items:
                if "custom_id" in c:
                    found[c["custom_id"]] = c
                walk(c.get("components") or [])
                if isinstance(c.get("accessory"), dict):
                    walk([c["accessory"]])

        walk(self.components)
        return found


@dataclass
class Callback:
    """One POST to /interactions/{id}/{token}/callback, accepted or not."""

    body: dict[str, Any]
    status: int
    at: float


@dataclass
class InteractionRecord:
    id: int
    token: str
    type: int
    payload: dict[str, Any]
    dispatched_at: float
    member: FakeMember  # in a DM, FakeMember(user, None): the payload carries its `user`
    channel: FakeChannel
    callbacks: list[Callback] = field(default_factory=list)
    response: dict[str, Any] | None = None  # the accepted callback body
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        return self.response is not None

    @property
    def response_type(self) -> int | None:
        return self.response["type"] if self.response else None


def message_payload(
    *, channel: FakeChannel, author: FakeUser, body: dict[str, Any], message_type: int = 0,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A full message object built from a create request body, as Discord returns it."""
    data: dict[str, Any] = {
        "id": str(snowflake()), "channel_id": str(channel.id), "type": message_type,
        "author": author.payload(), "content": body.get("content") or "", "timestamp": iso_now(),
        "edited_timestamp": None, "tts": bool(body.get("tts", False)), "mention_everyone": False,
        "mentions": [], "mention_roles": [], "attachments": [], "embeds": [], "pinned": False,
        "flags": int(body.get("flags") or 0), "components": [],
    }
    apply_edit(data, body)
    data.update(extra or {})
    return data


def apply_edit(data: dict[str, Any], body: dict[str, Any]) -> None:
    """Fields of a create/edit body that change the stored message."""
    if "content" in body:
        data["content"] = body["content"] or ""
    if "embeds" in body:
        data["embeds"] = [{"type": "rich", **e} for e in body["embeds"] or []]
    if "components" in body:
        data["components"] = _with_component_ids(copy.deepcopy(body["components"] or []))
    if body.get("flags") is not None:
        # Only some flags are settable; EPHEMERAL/LOADING are preserved from creation.
        data["flags"] = (data.get("flags", 0) & (64 | 128)) | int(body["flags"])
    if body.get("attachments") is not None:
        # Listed ids that exist are kept; other entries describe newly uploaded files.
        existing = {a["id"]: a for a in data.get("attachments", [])}
        data["attachments"] = [existing.get(str(a.get("id"))) or attachment_payload(a.get("filename", "file"))
                               for a in body["attachments"]]


def attachment_payload(filename: str) -> dict[str, Any]:
    url = f"https://cdn.invalid/attachments/{filename}"
    return {"id": str(snowflake()), "filename": filename, "size": 0, "url": url, "proxy_url": url}


def _with_component_ids(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Discord numbers every component of a message; discord.py reads the numbers back."""
    counter = itertools.count(1)

    def walk(items: list) -> None:
        for c in items:
            c.setdefault("id", next(counter))
            walk(c.get("components") or [])
            if isinstance(c.get("accessory"), dict):
                walk([c["accessory"]])

    walk(components)
    return components


def emoji_payload(emoji: str) -> dict[str, Any]:
    """'👍' -> {id: None, name}; 'name:123', '<:name:123>' or '<a:name:123>' -> custom emoji."""
    text = emoji.strip("<>")
    if ":" not in text:
        return {"id": None, "name": emoji}
    parts = text.split(":")
    return {"id": parts[-1], "name": parts[-2], "animated": parts[0] == "a"}


def emoji_key(emoji: dict[str, Any]) -> str:
    return f"{emoji['name']}:{emoji['id']}" if emoji.get("id") else emoji["name"]

