"""Discord's own rules for the fake Discord: error codes and bodies, permission maths, and the
message/component/modal limits that live in Discord's documentation rather than in the OpenAPI file."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntFlag
from typing import Any

# JSON error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes)
UNKNOWN_APPLICATION = 10002
UNKNOWN_CHANNEL = 10003
UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_MESSAGE = 10008
UNKNOWN_USER = 10013
UNKNOWN_EMOJI = 10014
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
UNKNOWN_COMMAND = 10063
ALREADY_ACKNOWLEDGED = 40060
MISSING_ACCESS = 50001
CANNOT_ACT_ON_DM = 50003
CANNOT_EDIT_OTHERS_MESSAGE = 50005
EMPTY_MESSAGE = 50006
MISSING_PERMISSIONS = 50013
INVALID_WEBHOOK_TOKEN = 50027
INVALID_FORM_BODY = 50035

IS_COMPONENTS_V2 = 1 << 15
EPHEMERAL = 1 << 6
LOADING = 1 << 7


class Perm(IntFlag):
    """Discord permission bits the fake reasons about (values match Discord's)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31


ALL_PERMISSIONS = (1 << 53) - 1
EVERYONE_DEFAULT = (
    Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.ADD_REACTIONS
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_INSTANT_INVITE
)
# What anyone (the bot too) may do in a DM: there are no roles or overwrites there.
DM_PERMISSIONS = (
    Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.ADD_REACTIONS
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.USE_APPLICATION_COMMANDS
)


class DiscordError(Exception):
    """Raised by request handlers; becomes a Discord-shaped JSON error response."""

    def __init__(self, status: int, code: int, message: str, errors: dict | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def not_found(code: int, what: str) -> DiscordError:
    return DiscordError(404, code, f"Unknown {what}")


def missing_permissions() -> DiscordError:
    return DiscordError(403, MISSING_PERMISSIONS, "Missing Permissions")


def missing_access() -> DiscordError:
    return DiscordError(403, MISSING_ACCESS, "Missing Access")


@dataclass(frozen=True)
class Finding:
    """One problem with a request body. kind "shape" = not allowed by the spec (a client bug, a
    spec violation); kind "limit" = well-formed but over one of Discord's limits."""

    path: tuple[str, ...]
    code: str
    message: str
    kind: str = "limit"

    def __str__(self) -> str:
        return f"{'.'.join(self.path) or '<body>'}: {self.code} {self.message}"


def invalid_form_body(findings: list[Finding]) -> DiscordError:
    """50035 with Discord's nested `errors` tree: {"a": {"0": {"b": {"_errors": [...]}}}}.
    One error per field: the first finding for a path wins."""
    tree: dict[str, Any] = {}
    seen: set[tuple[str, ...]] = set()
    for f in findings:
        if f.path in seen:
            continue
        seen.add(f.path)
        node = tree
        for part in f.path:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": f.code, "message": f.message})
    return DiscordError(400, INVALID_FORM_BODY, "Invalid Form Body", tree)


def max_length(path: tuple[str, ...], limit: int) -> Finding:
    return Finding(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def bad_length(path: tuple[str, ...], low: int, high: int) -> Finding:
    return Finding(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")


def _too_long(value: Any, limit: int) -> bool:
    return isinstance(value, str) and len(value) > limit


CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TEXT_LIMITS = {"title": 256, "description": 4096}
EMBED_FIELDS_MAX = 25
ROWS_MAX = 5
ROW_WIDTH = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
V2_COMPONENTS_MAX = 40


def check_message(body: dict[str, Any], base: tuple[str, ...] = ()) -> list[Finding]:
    """Limits on a message payload (channel message, interaction reply, webhook/follow-up)."""
    out: list[Finding] = []
    if _too_long(body.get("content"), CONTENT_MAX):
        out.append(max_length((*base, "content"), CONTENT_MAX))
    out += _check_embeds(body.get("embeds"), (*base, "embeds"))
    flags = body.get("flags") or 0
    components = body.get("components")
    if isinstance(components, list):
        if flags & IS_COMPONENTS_V2:
            if body.get("content") or body.get("embeds"):
                out.append(Finding((*base, "content"), "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                                   "The 'content' and 'embeds' fields cannot be used when using "
                                   "MessageFlags.IS_COMPONENTS_V2"))
            if _count_components(components) > V2_COMPONENTS_MAX:
                out.append(max_length((*base, "components"), V2_COMPONENTS_MAX))
        elif len(components) > ROWS_MAX:
            out.append(max_length((*base, "components"), ROWS_MAX))
        out += _check_components(components, (*base, "components"), set())
    return out


def message_is_empty(body: dict[str, Any], has_files: bool) -> bool:
    keys = ("content", "embeds", "components", "sticker_ids", "poll")
    return not has_files and not any(body.get(k) for k in keys)


def _check_embeds(embeds: Any, base: tuple[str, ...]) -> list[Finding]:
    if not isinstance(embeds, list):
        return []
    out: list[Finding] = []
    if len(embeds) > EMBEDS_MAX:
        out.append(max_length(base, EMBEDS_MAX))
    total = 0
    for i, embed in enumerate(e for e in embeds if isinstance(e, dict)):
        path = (*base, str(i))
        for key, limit in EMBED_TEXT_LIMITS.items():
            total += len(embed.get(key) or "")
            if _too_long(embed.get(key), limit):
                out.append(max_length((*path, key), limit))
        for key, sub, limit in (("footer", "text", 2048), ("author", "name", 256)):
            value = (embed.get(key) or {}).get(sub)
            total += len(value or "")
            if _too_long(value, limit):
                out.append(max_length((*path, key, sub), limit))
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            out.append(max_length((*path, "fields"), EMBED_FIELDS_MAX))
        for j, field in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                total += len(field.get(key) or "")
                if _too_long(field.get(key), limit):
                    out.append(max_length((*path, "fields", str(j), key), limit))
    if total > EMBED_TOTAL_MAX:
        out.append(Finding(base, "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"))
    return out


def _count_components(components: list) -> int:
    count = 0
    for c in components:
        if isinstance(c, dict):
            count += 1 + _count_components(c.get("components") or [])
            if isinstance(c.get("accessory"), dict):
                count += 1
    return count


def _check_components(components: list, base: tuple[str, ...], custom_ids: set[str]) -> list[Finding]:
    out: list[Finding] = []
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            continue
        path = (*base, str(i))
        kind = comp.get("type")
        children = comp.get("components")
        if kind == 1 and isinstance(children, list):
            if not 1 <= len(children) <= ROW_WIDTH:
                out.append(bad_length((*path, "components"), 1, ROW_WIDTH))
            elif len(children) > 1 and any(c.get("type") != 2 for c in children if isinstance(c, dict)):
                out.append(Finding((*path, "components"), "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                                   "The specified component exceeds the maximum width"))
        if isinstance(children, list):
            out += _check_components(children, (*path, "components"), custom_ids)
        if isinstance(comp.get("accessory"), dict):
            out += _check_components([comp["accessory"]], (*path, "accessory"), custom_ids)
        custom_id = comp.get("custom_id")
        if _too_long(custom_id, CUSTOM_ID_MAX):
            out.append(max_length((*path, "custom_id"), CUSTOM_ID_MAX))
        if isinstance(custom_id, str):
            if custom_id in custom_ids:
                out.append(Finding((*path, "custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED",
                                   "Component custom id cannot be duplicated"))
            custom_ids.add(custom_id)
        if kind == 2:
            out += _check_button(comp, path)
        if kind == 3 and len(comp.get("options") or []) > SELECT_OPTIONS_MAX:
            out.append(bad_length((*path, "options"), 1, SELECT_OPTIONS_MAX))
    return out


def _check_button(button: dict, path: tuple[str, ...]) -> list[Finding]:
    out: list[Finding] = []
    if _too_long(button.get("label"), BUTTON_LABEL_MAX):
        out.append(max_length((*path, "label"), BUTTON_LABEL_MAX))
    style = button.get("style")
    if style == 5 and not button.get("url"):
        out.append(Finding((*path, "url"), "BASE_TYPE_REQUIRED", "This field is required"))
    if style in (1, 2, 3, 4) and not button.get("custom_id"):
        out.append(Finding((*path, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required"))
    if style in (1, 2, 3, 4, 5) and not (button.get("label") or button.get("emoji")):
        out.append(Finding((*path, "label"), "BUTTON_COMPONENT_INVALID_LABEL",
                           "A button must have a label or an emoji"))
    return out


MODAL_TITLE_MAX = 45
MODAL_ROWS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_VALUE_MAX = 4000


def check_modal(data: dict[str, Any], base: tuple[str, ...] = ("data",)) -> list[Finding]:
    out: list[Finding] = []
    if _too_long(data.get("title"), MODAL_TITLE_MAX):
        out.append(max_length((*base, "title"), MODAL_TITLE_MAX))
    if _too_long(data.get("custom_id"), CUSTOM_ID_MAX):
        out.append(max_length((*base, "custom_id"), CUSTOM_ID_MAX))
    rows = data.get("components") or []
    if not 1 <= len(rows) <= MODAL_ROWS_MAX:
        out.append(bad_length((*base, "components"), 1, MODAL_ROWS_MAX))
    for i, row in enumerate(rows):
        path = (*base, "components", str(i))
        if _too_long(row.get("label"), TEXT_INPUT_LABEL_MAX):
            out.append(max_length((*path, "label"), TEXT_INPUT_LABEL_MAX))
        labelled = [row["component"]] if isinstance(row.get("component"), dict) else []
        inner = row.get("components") or labelled
        for j, item in enumerate(inner):
            ipath = (*path, "components", str(j)) if "components" in row else (*path, "component")
            if _too_long(item.get("custom_id"), CUSTOM_ID_MAX):
                out.append(max_length((*ipath, "custom_id"), CUSTOM_ID_MAX))
            if _too_long(item.get("label"), TEXT_INPUT_LABEL_MAX):
                out.append(max_length((*ipath, "label"), TEXT_INPUT_LABEL_MAX))
            if _too_long(item.get("value"), TEXT_INPUT_VALUE_MAX):
                out.append(max_length((*ipath, "value"), TEXT_INPUT_VALUE_MAX))
    return out


def base_permissions(everyone: int, role_perms: list[int], is_owner: bool) -> int:
    if is_owner:
        return ALL_PERMISSIONS
    perms = everyone
    for p in role_perms:
        perms |= p
    return ALL_PERMISSIONS if perms & Perm.ADMINISTRATOR else perms


def channel_permissions(
    base: int, overwrites: list[dict], guild_id: int, role_ids: list[int], member_id: int
) -> int:
    """Discord's overwrite order: @everyone, then all of the member's roles together, then the member."""
    if base & Perm.ADMINISTRATOR:
        return ALL_PERMISSIONS
    by_id = {int(o["id"]): o for o in overwrites}
    perms = base
    everyone = by_id.get(guild_id)
    if everyone:
        perms = (perms & ~int(everyone["deny"])) | int(everyone["allow"])
    allow = deny = 0
    for rid in role_ids:
        o = by_id.get(rid)
        if o and o.get("type", 0) == 0:
            allow, deny = allow | int(o["allow"]), deny | int(o["deny"])
    perms = (perms & ~deny) | allow
    member = by_id.get(member_id)
    if member and member.get("type") == 1:
        perms = (perms & ~int(member["deny"])) | int(member["allow"])
    if not perms & Perm.VIEW_CHANNEL:
        return 0
    return perms
