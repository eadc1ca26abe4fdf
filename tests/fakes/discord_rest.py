"""REST handlers of the fake Discord for login, gateway discovery, application commands, guilds,
channels, messages and reactions. Interaction callbacks and webhooks are in discord_interactions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tests.fakes.discord_models import emoji_payload, snowflake
from tests.fakes.discord_rules import (
    CANNOT_EDIT_OTHERS_MESSAGE,
    EMPTY_MESSAGE,
    UNKNOWN_EMOJI,
    UNKNOWN_USER,
    DiscordError,
    Finding,
    Perm,
    invalid_form_body,
    message_is_empty,
    missing_access,
    not_found,
)

if TYPE_CHECKING:
    from tests.fakes.discord_server import FakeDiscord


@dataclass
class ApiRequest:
    """One REST request as the fake saw it, and what it answered."""

    method: str
    path: str  # without the /api/v10 prefix, percent-decoded per segment
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    files: list[str] = field(default_factory=list)
    uploads: dict[str, bytes] = field(default_factory=dict)  # file name -> the bytes uploaded
    template: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    status: int = 0
    response: Any = None

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass
class ApiResponse:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[["FakeDiscord", ApiRequest], Awaitable[Any]]
HANDLERS: dict[tuple[str, str], Handler] = {}


def route(method: str, template: str) -> Callable[[Handler], Handler]:
    """Register a handler for an OpenAPI path template. It returns a JSON value (200), None
    (204) or an ApiResponse, and raises DiscordError for Discord's errors."""

    def register(func: Handler) -> Handler:
        HANDLERS[(method, template)] = func
        return func

    return register


@route("GET", "/users/@me")
async def get_me(server: FakeDiscord, req: ApiRequest) -> Any:
    return {**server.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0, "email": None,
            "locale": "en-US", "premium_type": 0, "banner": None, "accent_color": None, "bio": ""}


@route("GET", "/users/{user_id}")
async def get_user(server: FakeDiscord, req: ApiRequest) -> Any:
    user = server.users.get(int(req.params["user_id"]))
    if user is None:
        raise not_found(UNKNOWN_USER, "User")
    return user.payload()


@route("POST", "/users/@me/channels")
async def create_dm(server: FakeDiscord, req: ApiRequest) -> Any:
    """Create DM: the DM channel with `recipient_id` (the same one each time)."""
    recipient = (req.body or {}).get("recipient_id")
    user = server.users.get(int(recipient)) if str(recipient or "").isdigit() else None
    if user is None:
        raise not_found(UNKNOWN_USER, "User")
    channel, _ = server.dm(user)
    return channel.payload()


@route("GET", "/oauth2/applications/@me")
@route("GET", "/applications/@me")
async def get_application(server: FakeDiscord, req: ApiRequest) -> Any:
    return server.application_payload()


@route("GET", "/gateway")
async def get_gateway(server: FakeDiscord, req: ApiRequest) -> Any:
    return {"url": server.gateway_url}


@route("GET", "/gateway/bot")
async def get_gateway_bot(server: FakeDiscord, req: ApiRequest) -> Any:
    return {"url": server.gateway_url, "shards": server.recommended_shards, "session_start_limit": {
        "total": 1000, "remaining": 999, "reset_after": 14400000, "max_concurrency": 1}}


def _command_scope(server: FakeDiscord, req: ApiRequest) -> int | None:
    if int(req.params["application_id"]) != server.application_id:
        raise missing_access()
    if "guild_id" not in req.params:
        return None
    guild_id = int(req.params["guild_id"])
    if guild_id not in server.guilds:
        raise missing_access()  # what Discord answers when the bot is not in that guild
    return guild_id


@route("PUT", "/applications/{application_id}/commands")
@route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
async def bulk_overwrite_commands(server: FakeDiscord, req: ApiRequest) -> Any:
    scope = _command_scope(server, req)
    findings = _check_commands(req.body or [])
    if findings:
        raise invalid_form_body(findings)
    old = {(c["name"], c.get("type", 1)): c for c in server.commands.get(scope, [])}
    stored = []
    for body in req.body or []:
        kind = body.get("type") or 1
        previous = old.get((body["name"], kind))
        command = {
            "id": previous["id"] if previous else str(snowflake()),
            "application_id": str(server.application_id),
            "version": str(snowflake()), "type": kind, "name": body["name"],
            "name_localizations": body.get("name_localizations"),
            "description": body.get("description") or "",
            "description_localizations": body.get("description_localizations"),
            "options": body.get("options") or [],
            "default_member_permissions": body.get("default_member_permissions"),
            "nsfw": bool(body.get("nsfw", False)), "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types") or [0],
        }
        if scope is not None:
            command["guild_id"] = str(scope)
        else:
            command["dm_permission"] = body.get("dm_permission", True)
        stored.append(command)
    server.commands[scope] = stored
    return stored


def _check_commands(commands: list[dict[str, Any]]) -> list[Finding]:
    """Naming rules of chat-input commands and their options, and unique names per type."""
    out: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for i, command in enumerate(commands):
        kind = command.get("type") or 1
        name = command.get("name", "")
        if (name, kind) in seen:
            out.append(Finding((str(i), "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME",
                               f"Application command names must be unique: {name}"))
        seen.add((name, kind))
        if kind == 1:
            out += _check_name_description(command, (str(i),))
            out += _check_options(command.get("options") or [], (str(i), "options"))
    return out


def _check_options(options: list, base: tuple[str, ...]) -> list[Finding]:
    out: list[Finding] = []
    if len(options) > 25:
        out.append(Finding(base, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."))
    optional_seen = False
    for j, option in enumerate(options):
        opath = (*base, str(j))
        out += _check_name_description(option, opath)
        if option.get("type") in (1, 2):
            out += _check_options(option.get("options") or [], (*opath, "options"))
            continue
        if option.get("required"):
            if optional_seen:
                out.append(Finding((*opath, "required"), "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                                   "Required options must be placed before non-required options"))
        else:
            optional_seen = True
        if len(option.get("choices") or []) > 25:
            out.append(Finding((*opath, "choices"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."))
    return out


def _check_name_description(item: dict[str, Any], path: tuple[str, ...]) -> list[Finding]:
    out = []
    name = item.get("name") or ""
    if not (1 <= len(name) <= 32 and name == name.lower() and all(c.isalnum() or c in "-_" for c in name)):
        out.append(Finding((*path, "name"), "APPLICATION_COMMAND_INVALID_NAME",
                           f"Command name is invalid: {name!r}"))
    if not 1 <= len(item.get("description") or "") <= 100:
        out.append(Finding((*path, "description"), "BASE_TYPE_BAD_LENGTH",
                           "Must be between 1 and 100 in length."))
    return out


@route("GET", "/applications/{application_id}/commands")
@route("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
async def get_commands(server: FakeDiscord, req: ApiRequest) -> Any:
    return server.commands.get(_command_scope(server, req), [])


@route("GET", "/guilds/{guild_id}")
async def get_guild(server: FakeDiscord, req: ApiRequest) -> Any:
    guild = server.guild(req.params["guild_id"])
    data = guild.payload(members=[], joined_at=server.joined_at)
    for key in ("members", "channels", "threads", "presences", "voice_states", "joined_at", "large",
                "member_count", "stage_instances", "guild_scheduled_events", "soundboard_sounds", "lazy",
                "unavailable"):
        data.pop(key, None)
    if req.query.get("with_counts", "").lower() in ("true", "1"):
        data.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
    return data


@route("GET", "/guilds/{guild_id}/members/{user_id}")
async def get_member(server: FakeDiscord, req: ApiRequest) -> Any:
    guild = server.guild(req.params["guild_id"])
    return server.member(guild, req.params["user_id"]).payload()


@route("GET", "/guilds/{guild_id}/channels")
async def get_guild_channels(server: FakeDiscord, req: ApiRequest) -> Any:
    return [c.payload() for c in server.guild(req.params["guild_id"]).channels.values()]


@route("GET", "/channels/{channel_id}")
async def get_channel(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, Perm.VIEW_CHANNEL)
    return channel.payload()


@route("POST", "/channels/{channel_id}/typing")
async def trigger_typing(server: FakeDiscord, req: ApiRequest) -> Any:
    server.require(server.channel(req.params["channel_id"]), Perm.SEND_MESSAGES)
    return None


@route("POST", "/channels/{channel_id}/messages")
async def create_message(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    body = req.body or {}
    server.require(channel, Perm.SEND_MESSAGES | (Perm.ATTACH_FILES if req.files else 0))
    if message_is_empty(body, bool(req.files)):
        raise DiscordError(400, EMPTY_MESSAGE, "Cannot send an empty message")
    nonce = body.get("nonce")
    if nonce is not None and body.get("enforce_nonce"):
        earlier = _created_with_nonce(server, str(nonce))
        if earlier is not None:  # Discord returns that message and creates none
            return earlier.data
    extra: dict[str, Any] = {}
    reference = body.get("message_reference")
    if reference:
        target = server.messages.get(int(reference.get("message_id", 0)))
        if target is None or target.deleted:
            if reference.get("fail_if_not_exists", True):
                raise invalid_form_body([Finding(("message_reference",), "MESSAGE_REFERENCE_UNKNOWN_MESSAGE",
                                                 "Unknown message")])
        else:
            reference = {"type": 0, "message_id": str(target.id), "channel_id": str(channel.id)}
            if channel.guild is not None:
                reference["guild_id"] = str(channel.guild.id)
            extra = {"message_reference": reference, "referenced_message": target.data}
    if req.files and not body.get("attachments"):
        body = {**body, "attachments": [{"id": i, "filename": name} for i, name in enumerate(req.files)]}
    message_type = 19 if extra else 0
    if nonce is not None:
        extra = {**extra, "nonce": str(nonce)}
    record = await server.create_message(channel, body, message_type=message_type, extra=extra)
    return record.data


NONCE_SECONDS = 300.0  # "checked for uniqueness in the past few minutes"


def _created_with_nonce(server: FakeDiscord, nonce: str) -> Any:
    """The bot's message created with `nonce` within the last few minutes, if any."""
    now = datetime.now(UTC)
    for record in reversed(list(server.messages.values())):
        data = record.data
        if data.get("nonce") != nonce or data["author"]["id"] != str(server.bot.id) or record.deleted:
            continue
        if (now - datetime.fromisoformat(data["timestamp"])).total_seconds() < NONCE_SECONDS:
            return record
    return None


@route("GET", "/channels/{channel_id}/messages")
async def get_messages(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, Perm.READ_MESSAGE_HISTORY)
    visible = [m for m in server.messages_in(channel) if not m.ephemeral_for]
    if "before" in req.query:
        visible = [m for m in visible if m.id < int(req.query["before"])]
    if "after" in req.query:
        visible = [m for m in visible if m.id > int(req.query["after"])]
    limit = int(req.query.get("limit", 50))
    return [m.data for m in reversed(visible)][:limit]


@route("GET", "/channels/{channel_id}/messages/{message_id}")
async def get_message(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, Perm.READ_MESSAGE_HISTORY)
    return server.message(channel, req.params["message_id"]).data


@route("PATCH", "/channels/{channel_id}/messages/{message_id}")
async def edit_message(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, 0)
    record = server.message(channel, req.params["message_id"])
    body = req.body or {}
    if int(record.data["author"]["id"]) != server.bot.id:
        # Others' messages: only the SUPPRESS_EMBEDS flag, and only with MANAGE_MESSAGES.
        if set(body) - {"flags"}:
            raise DiscordError(403, CANNOT_EDIT_OTHERS_MESSAGE,
                               "Cannot edit a message authored by another user")
        server.require(channel, Perm.MANAGE_MESSAGES)
    return (await server.edit_message(record, body)).data


@route("DELETE", "/channels/{channel_id}/messages/{message_id}")
async def delete_message(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, 0)
    record = server.message(channel, req.params["message_id"])
    if int(record.data["author"]["id"]) != server.bot.id:
        server.require(channel, Perm.MANAGE_MESSAGES)
    await server.delete_message(record)
    return None


REACTIONS = "/channels/{channel_id}/messages/{message_id}/reactions"


def _reaction_target(server: FakeDiscord, req: ApiRequest) -> tuple[Any, Any, dict[str, Any]]:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, Perm.READ_MESSAGE_HISTORY)
    record = server.message(channel, req.params["message_id"])
    emoji = emoji_payload(req.params.get("emoji_name", ""))
    if emoji["id"] is not None and emoji["id"] not in server.custom_emojis:
        raise not_found(UNKNOWN_EMOJI, "Emoji")
    return channel, record, emoji


@route("PUT", REACTIONS + "/{emoji_name}/@me")
async def add_own_reaction(server: FakeDiscord, req: ApiRequest) -> Any:
    channel, record, emoji = _reaction_target(server, req)
    key = emoji["name"] if emoji["id"] is None else f"{emoji['name']}:{emoji['id']}"
    if not record.reactions.get(key):  # adding a new emoji needs ADD_REACTIONS, joining one does not
        server.require(channel, Perm.ADD_REACTIONS)
    await server.add_reaction(record, server.bot.id, emoji)
    return None


@route("DELETE", REACTIONS + "/{emoji_name}/@me")
async def remove_own_reaction(server: FakeDiscord, req: ApiRequest) -> Any:
    _, record, emoji = _reaction_target(server, req)
    await server.remove_reaction(record, server.bot.id, emoji)
    return None


@route("DELETE", REACTIONS + "/{emoji_name}/{user_id}")
async def remove_user_reaction(server: FakeDiscord, req: ApiRequest) -> Any:
    channel, record, emoji = _reaction_target(server, req)
    user_id = int(req.params["user_id"])
    if user_id != server.bot.id:
        server.require(channel, Perm.MANAGE_MESSAGES)
    await server.remove_reaction(record, user_id, emoji)
    return None


@route("GET", REACTIONS + "/{emoji_name}")
async def get_reaction_users(server: FakeDiscord, req: ApiRequest) -> Any:
    _, record, emoji = _reaction_target(server, req)
    key = emoji["name"] if emoji["id"] is None else f"{emoji['name']}:{emoji['id']}"
    return [server.users[u].payload() for u in record.reactions.get(key, []) if u in server.users]


@route("DELETE", REACTIONS)
async def clear_reactions(server: FakeDiscord, req: ApiRequest) -> Any:
    channel = server.channel(req.params["channel_id"])
    server.require(channel, Perm.MANAGE_MESSAGES)
    record = server.message(channel, req.params["message_id"])
    record.reactions.clear()
    record.data.pop("reactions", None)
    return None
