"""What users do in the fake Discord: run slash commands, click components, submit modals, react
and post messages. Each becomes the gateway event Discord would send to the bot. Like Discord's
own client, these refuse what a user could not do (unsynced commands, missing buttons, ...)."""

from __future__ import annotations

import copy
import secrets
from typing import TYPE_CHECKING, Any

from tests.fakes.discord_gateway import Gateway
from tests.fakes.discord_interactions import APPLICATION_COMMAND, MESSAGE_COMPONENT, MODAL_SUBMIT
from tests.fakes.discord_models import (
    FakeAttachment,
    FakeChannel,
    FakeMember,
    FakeRole,
    FakeUser,
    InteractionRecord,
    MessageRecord,
    emoji_payload,
    snowflake,
)
from tests.fakes.discord_rules import Perm

if TYPE_CHECKING:
    from tests.fakes.discord_store import DiscordStore

    _Base = DiscordStore
else:
    _Base = object

STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
GUILD_CONTEXT, BOT_DM = 0, 1  # interaction contexts


class SimulationMixin(_Base):
    gateway: Gateway

    def clock(self) -> float:  # provided by FakeDiscord
        raise NotImplementedError

    async def slash_command(
        self, channel: FakeChannel, member: FakeMember, name: str, options: dict[str, Any] | None = None,
        *, subcommand: str | None = None, locale: str = "en-US",
    ) -> InteractionRecord:
        """Dispatch INTERACTION_CREATE type 2 for `/name [subcommand path] options...`.
        `subcommand` is "sub" or "group sub"; option values are plain Python values or
        FakeMember/FakeUser/FakeChannel/FakeRole for USER/CHANNEL/ROLE/MENTIONABLE options, a
        FakeAttachment (from `attachment`) for an ATTACHMENT option."""
        guild = channel.guild
        command = self.find_command(guild.id if guild is not None else None, name)
        if command is None:
            where = f"guild {guild.name!r}" if guild is not None else "DMs"
            raise LookupError(f"/{name} is not synced for {where} (or globally)")
        perms = member.permissions(channel)
        if not perms & Perm.USE_APPLICATION_COMMANDS:
            raise PermissionError(f"{member.user.username} cannot use application commands here")
        if guild is None:
            contexts = command.get("contexts")
            if (BOT_DM not in contexts) if contexts is not None else not command.get("dm_permission", True):
                raise PermissionError(f"/{name} is not offered in DMs with the bot")
        needed = int(command.get("default_member_permissions") or 0)
        restricted = guild is not None and command.get("default_member_permissions") is not None
        if restricted and perms & needed != needed:
            raise PermissionError(f"/{name} needs permissions {needed} that {member.user.username} lacks")
        definitions = command.get("options") or []
        path = subcommand.split() if subcommand else []
        for part in path:
            sub = next((o for o in definitions if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                raise LookupError(f"/{name} has no subcommand (group) {part!r}")
            definitions = sub.get("options") or []
        if any(d["type"] in (1, 2) for d in definitions):
            raise LookupError(f"/{name} {subcommand or ''} needs a subcommand: pass subcommand=")
        resolved: dict[str, dict[str, Any]] = {}
        leaf = _build_options(definitions, options or {}, resolved, channel)
        for part in reversed(path):
            kind = 2 if leaf and leaf[0]["type"] == 1 else 1  # a group wraps a subcommand
            leaf = [{"type": kind, "name": part, "options": leaf}]
        data: dict[str, Any] = {"id": command["id"], "name": name, "type": 1, "options": leaf}
        if "guild_id" in command:
            data["guild_id"] = command["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return await self._dispatch_interaction(APPLICATION_COMMAND, channel, member, data, locale=locale)

    async def click(
        self, channel: FakeChannel, member: FakeMember, message_id: int, custom_id: str,
        values: list[str] | None = None,
    ) -> InteractionRecord:
        """Dispatch INTERACTION_CREATE type 3: a button press, or a select with `values`."""
        record = self._visible_message(channel, member, message_id)
        component = record.custom_ids().get(custom_id)
        if component is None:
            raise LookupError(f"message {message_id} has no component with custom_id {custom_id!r}")
        if component.get("disabled"):
            raise PermissionError(f"component {custom_id!r} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            allowed = {o["value"] for o in component.get("options") or []}
            if component["type"] == 3 and not set(values or []) <= allowed:
                raise ValueError(f"select {custom_id!r} offers {sorted(allowed)}, not {values}")
            data["values"] = list(values or [])
        return await self._dispatch_interaction(MESSAGE_COMPONENT, channel, member, data,
                                                message=copy.deepcopy(record.data))

    async def submit_modal(
        self, channel: FakeChannel, member: FakeMember, custom_id: str, values: dict[str, Any],
    ) -> InteractionRecord:
        """Dispatch INTERACTION_CREATE type 5 for the modal `custom_id` that the bot showed
        `member`; `values` maps text input custom_ids to text (select custom_ids to lists)."""
        opened = self.open_modals.get((member.id, custom_id))
        if opened is None:
            raise LookupError(f"no modal {custom_id!r} is open for {member.user.username}")
        modal, source = opened
        inputs: dict[str, dict[str, Any]] = {}
        submitted = [_submitted(c, values, inputs) for c in modal.get("components") or []]
        unknown = set(values) - set(inputs)
        if unknown:
            raise LookupError(f"modal {custom_id!r} has no inputs {sorted(unknown)}")
        for cid, item in inputs.items():
            value = values.get(cid, "")
            if item.get("type") == 4:
                if item.get("required", True) and not value:
                    raise ValueError(f"text input {cid!r} is required")
                if value and not item.get("min_length", 0) <= len(value) <= item.get("max_length", 4000):
                    raise ValueError(f"text input {cid!r} must be {item.get('min_length', 0)}-"
                                     f"{item.get('max_length', 4000)} characters")
        del self.open_modals[(member.id, custom_id)]  # submitting closes the modal
        data = {"custom_id": custom_id, "components": submitted}
        message = source.payload.get("message")
        return await self._dispatch_interaction(MODAL_SUBMIT, channel, member, data,
                                                message=copy.deepcopy(message) if message else None)

    async def forged_click(
        self, channel: FakeChannel, member: FakeMember, message_id: int, custom_id: str,
        component_type: int = 2,
    ) -> InteractionRecord:
        """A click a modified client makes up: any custom_id, on a message the member can see.
        Discord still fills in the real message (with the components it really carries)."""
        record = self._visible_message(channel, member, message_id)
        data = {"custom_id": custom_id, "component_type": component_type}
        return await self._dispatch_interaction(MESSAGE_COMPONENT, channel, member, data,
                                                message=copy.deepcopy(record.data))

    async def forged_modal_submit(
        self, channel: FakeChannel, member: FakeMember, custom_id: str, values: dict[str, str],
        message_id: int | None = None,
    ) -> InteractionRecord:
        """A modal submit no modal of the bot's asked for: any custom_id and text inputs, sent
        as if from a message the member can see (or from none, as after a slash command)."""
        rows = [{"type": 1, "id": index * 2 + 1,
                 "components": [{"type": 4, "id": index * 2 + 2, "custom_id": cid, "value": value}]}
                for index, (cid, value) in enumerate(values.items())]  # fmt: skip
        message = self._visible_message(channel, member, message_id).data if message_id is not None else None
        return await self._dispatch_interaction(
            MODAL_SUBMIT, channel, member, {"custom_id": custom_id, "components": rows},
            message=copy.deepcopy(message) if message else None,
        )  # fmt: skip

    async def forged_interaction(
        self, channel: FakeChannel, member: FakeMember, kind: int, data: dict[str, Any], *,
        locale: str = "en-US",
    ) -> InteractionRecord:
        """An application command or autocomplete interaction whose data no synced command need
        match: a stale client's (a command since removed, an option since renamed), or a modified
        one's (a user option without its resolved user). Discord relays such data as it is."""
        return await self._dispatch_interaction(kind, channel, member, data, locale=locale)

    async def react(self, channel: FakeChannel, member: FakeMember, message_id: int, emoji: str) -> None:
        """`member` adds a reaction (MESSAGE_REACTION_ADD, needs GUILD_MESSAGE_REACTIONS)."""
        record = self._visible_message(channel, member, message_id)
        await self.add_reaction(record, member.id, emoji_payload(emoji))

    async def unreact(self, channel: FakeChannel, member: FakeMember, message_id: int, emoji: str) -> None:
        record = self._visible_message(channel, member, message_id)
        await self.remove_reaction(record, member.id, emoji_payload(emoji))

    async def post_message(self, channel: FakeChannel, member: FakeMember, content: str) -> MessageRecord:
        """A user's message (MESSAGE_CREATE); the bot sees its text only with the MESSAGE_CONTENT
        intent or when the message mentions it, as on Discord."""
        if not member.permissions(channel) & Perm.SEND_MESSAGES:
            raise PermissionError(f"{member.user.username} cannot send messages in {channel.label}")
        mentions = [u.payload() for u in self.users.values() if f"<@{u.id}>" in content]
        return await self.create_message(channel, {"content": content}, author=member.user,
                                         extra={"mentions": mentions})

    async def redeliver(self, record: InteractionRecord) -> None:
        """Send the same INTERACTION_CREATE again (as when two bot processes share a token)."""
        await self.gateway.dispatch("INTERACTION_CREATE", copy.deepcopy(record.payload))

    def _visible_message(self, channel: FakeChannel, member: FakeMember, message_id: int) -> MessageRecord:
        record = self.messages.get(int(message_id))
        if record is None or record.deleted or record.channel_id != channel.id:
            raise LookupError(f"no message {message_id} in {channel.label}")
        if record.ephemeral_for not in (None, member.id):
            raise PermissionError(f"message {message_id} is ephemeral for someone else")
        if not member.permissions(channel) & Perm.VIEW_CHANNEL:
            raise PermissionError(f"{member.user.username} cannot see {channel.label}")
        return record

    async def _dispatch_interaction(
        self, kind: int, channel: FakeChannel, member: FakeMember, data: dict[str, Any], *,
        message: dict[str, Any] | None = None, locale: str = "en-US",
    ) -> InteractionRecord:
        iid = snowflake()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(96)
        payload: dict[str, Any] = {
            "id": str(iid), "application_id": str(self.application_id), "type": kind, "data": data,
            "channel_id": str(channel.id), "token": token, "version": 1, "locale": locale,
            "entitlements": [], "entitlement_sku_ids": [], "attachment_size_limit": 10 * 1024 * 1024,
        }
        guild = channel.guild
        if guild is None:
            # A DM: the user instead of a member, no guild_id (so the gateway sends it to shard 0),
            # and an app installed to guilds is authorized by "0".
            payload.update(
                channel=channel.payload(), user=member.user.payload(), context=BOT_DM,
                app_permissions=str(member.permissions(channel)), authorizing_integration_owners={"0": "0"},
            )  # fmt: skip
        else:
            payload.update(
                guild_id=str(guild.id), guild={"id": str(guild.id), "locale": guild.preferred_locale,
                                               "features": []},
                channel={**channel.payload(), "permissions": str(member.permissions(channel))},
                member=member.payload(channel=channel), guild_locale=guild.preferred_locale,
                app_permissions=str(self.bot_member(guild).permissions(channel)),
                authorizing_integration_owners={"0": str(guild.id)}, context=GUILD_CONTEXT,
            )  # fmt: skip
        if message is not None:
            payload["message"] = message
        record = InteractionRecord(iid, token, kind, payload, self.clock(), member, channel)
        self.interactions[iid] = record
        await self.gateway.dispatch("INTERACTION_CREATE", copy.deepcopy(payload))
        return record


def _build_options(
    definitions: list[dict[str, Any]], values: dict[str, Any], resolved: dict, channel: FakeChannel
) -> list[dict[str, Any]]:
    by_name = {d["name"]: d for d in definitions}
    for name, definition in by_name.items():
        if definition.get("required") and name not in values:
            raise ValueError(f"option {name!r} is required")
    out = []
    for name, value in values.items():
        definition = by_name.get(name)
        if definition is None:
            raise LookupError(f"no option {name!r}; the command has {sorted(by_name)}")
        kind = definition["type"]
        choices = [c["value"] for c in definition.get("choices") or []]
        if choices and value not in choices:
            raise ValueError(f"option {name!r} must be one of {choices}")
        out.append({"type": kind, "name": name, "value": _option_value(kind, value, resolved, channel)})
    return out


def _option_value(kind: int, value: Any, resolved: dict, channel: FakeChannel) -> Any:
    if kind == ATTACHMENT or isinstance(value, FakeAttachment):
        if kind != ATTACHMENT or not isinstance(value, FakeAttachment):
            raise TypeError(f"option of type {kind} got {value!r} (attachments: FakeDiscord.attachment())")
        resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
        return str(value.id)
    if isinstance(value, FakeMember):
        resolved.setdefault("users", {})[str(value.id)] = value.user.payload()
        resolved.setdefault("members", {})[str(value.id)] = value.payload(with_user=False, channel=channel)
        return str(value.id)
    if isinstance(value, FakeUser):
        resolved.setdefault("users", {})[str(value.id)] = value.payload()
        return str(value.id)
    if isinstance(value, FakeChannel):
        resolved.setdefault("channels", {})[str(value.id)] = {
            "id": str(value.id), "name": value.name, "type": value.type,
            "permissions": str(Perm.VIEW_CHANNEL), "guild_id": str(value.guild.id)}
        return str(value.id)
    if isinstance(value, FakeRole):
        resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)
    python_type = {STRING: str, INTEGER: int, BOOLEAN: bool, NUMBER: int | float}.get(kind, object)
    if not isinstance(value, python_type) or (kind == INTEGER and isinstance(value, bool)):
        raise TypeError(f"option of type {kind} got {value!r}")
    if kind in (USER, CHANNEL, ROLE, MENTIONABLE):
        raise TypeError(f"option of type {kind} needs a FakeMember/FakeUser/FakeChannel/FakeRole, "
                        f"got {value!r}")
    return float(value) if kind == NUMBER else value


def _submitted(
    component: dict[str, Any], values: dict[str, Any], inputs: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Mirror one modal component as Discord submits it: rows and labels keep their shape."""
    out: dict[str, Any] = {"type": component["type"], "id": component.get("id", 0)}
    if "components" in component:
        out["components"] = [_submitted(c, values, inputs) for c in component["components"]]
    if isinstance(component.get("component"), dict):
        out["component"] = _submitted(component["component"], values, inputs)
    cid = component.get("custom_id")
    if cid is not None:
        inputs[cid] = component
        out["custom_id"] = cid
        if component["type"] == 4:
            out["value"] = values.get(cid, "")
        else:
            out["values"] = list(values.get(cid, []))
    return out
