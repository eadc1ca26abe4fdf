"""Interaction callbacks (POST /interactions/{id}/{token}/callback) and the interaction webhook
(follow-ups, @original) of the fake Discord, with Discord's 3-second and 15-minute windows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.fakes.discord_models import Callback, InteractionRecord, MessageRecord
from tests.fakes.discord_rest import ApiRequest, ApiResponse, route
from tests.fakes.discord_rules import (
    ALREADY_ACKNOWLEDGED,
    EMPTY_MESSAGE,
    EPHEMERAL,
    INVALID_WEBHOOK_TOKEN,
    LOADING,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    UNKNOWN_WEBHOOK,
    DiscordError,
    Finding,
    invalid_form_body,
    message_is_empty,
    not_found,
)

if TYPE_CHECKING:
    from tests.fakes.discord_server import FakeDiscord

APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
ALLOWED_CALLBACKS = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, MODAL},
    MESSAGE_COMPONENT: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
}
# Flags an interaction reply may set: SUPPRESS_EMBEDS, EPHEMERAL, SUPPRESS_NOTIFICATIONS, IS_COMPONENTS_V2.
REPLY_FLAGS = 4 | EPHEMERAL | 4096 | 32768


def unknown_interaction() -> DiscordError:
    return DiscordError(404, UNKNOWN_INTERACTION, "Unknown interaction")


@route("POST", "/interactions/{interaction_id}/{interaction_token}/callback")
async def interaction_callback(server: FakeDiscord, req: ApiRequest) -> Any:
    record = server.interactions.get(int(req.params["interaction_id"]))
    if record is None or record.token != req.params["interaction_token"]:
        raise unknown_interaction()
    attempt = Callback(req.body or {}, 0, server.clock())
    record.callbacks.append(attempt)
    try:
        return await _accept_callback(server, req, record, attempt)
    except DiscordError as exc:
        attempt.status = exc.status
        raise


async def _accept_callback(
    server: FakeDiscord, req: ApiRequest, record: InteractionRecord, attempt: Callback
) -> Any:
    body = attempt.body
    if record.acknowledged:
        raise DiscordError(400, ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged.")
    if attempt.at - record.dispatched_at > server.interaction_deadline:
        raise unknown_interaction()
    kind = body.get("type")
    if kind not in ALLOWED_CALLBACKS.get(record.type, set()):
        problem = f"Callback type {kind} is not valid for interaction type {record.type}"
        raise invalid_form_body([Finding(("type",), "INTERACTION_CALLBACK_TYPE_INVALID", problem)])
    data = body.get("data") or {}
    message: MessageRecord | None = None
    if kind == CHANNEL_MESSAGE:
        if message_is_empty(data, bool(req.files)):
            raise DiscordError(400, EMPTY_MESSAGE, "Cannot send an empty message")
        message = await _reply(server, record, {**data, "flags": (data.get("flags") or 0) & REPLY_FLAGS})
    elif kind == DEFERRED_MESSAGE:
        flags = LOADING | ((data.get("flags") or 0) & EPHEMERAL)
        message = await _reply(server, record, {"content": "", "flags": flags})
    elif kind in (DEFERRED_UPDATE, UPDATE_MESSAGE):
        source = record.payload.get("message")
        if source is None:  # a modal submitted from a slash command has no message to update
            raise invalid_form_body([Finding(("type",), "INTERACTION_CALLBACK_TYPE_INVALID",
                                             "This interaction has no message to update")])
        message = server.messages[int(source["id"])]
        record.original_message_id = message.id
        if kind == UPDATE_MESSAGE:
            await server.edit_message(message, data)
    elif kind == MODAL:
        server.open_modals[(record.member.user.id, data["custom_id"])] = (data, record)
    record.response = body
    attempt.status = 200 if _truthy(req.query.get("with_response")) else 204
    server.notify()
    if attempt.status == 204:
        return None
    return _callback_response(record, kind, message)


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("true", "1")


async def _reply(server: FakeDiscord, record: InteractionRecord, body: dict[str, Any], *,
                 original: bool = True) -> MessageRecord:
    metadata: dict[str, Any] = {
        "id": str(record.id), "type": record.type, "user": record.member.user.payload(),
        "authorizing_integration_owners": record.payload["authorizing_integration_owners"],
    }
    if record.type == APPLICATION_COMMAND:
        metadata.update(name=record.payload["data"]["name"], command_type=1)
    elif "message" in record.payload:
        metadata["interacted_message_id"] = record.payload["message"]["id"]
    message = await server.create_message(
        record.channel, body, message_type=20 if record.type == APPLICATION_COMMAND else 0,
        extra={"webhook_id": str(server.application_id), "application_id": str(server.application_id),
               "interaction_metadata": metadata},
        ephemeral_for=record.member.user.id, interaction_token=record.token,
    )
    if original:
        record.original_message_id = message.id
    else:
        record.followup_ids.append(message.id)
    return message


def _callback_response(record: InteractionRecord, kind: int, message: MessageRecord | None) -> dict[str, Any]:
    """The InteractionCallbackResponse object that `?with_response=true` asks for."""
    interaction: dict[str, Any] = {"id": str(record.id), "type": record.type}
    interaction["channel_id"] = str(record.channel.id)
    if "guild_id" in record.payload:
        interaction["guild_id"] = record.payload["guild_id"]
    if message is not None and kind != DEFERRED_UPDATE:
        interaction.update(response_message_id=str(message.id),
                           response_message_loading=kind == DEFERRED_MESSAGE,
                           response_message_ephemeral=bool(message.flags & EPHEMERAL))
    response: dict[str, Any] = {"interaction": interaction}
    if message is not None and kind in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
        response["resource"] = {"type": kind, "message": message.data}
    return response


def _webhook_interaction(server: FakeDiscord, req: ApiRequest) -> InteractionRecord:
    token = req.params["webhook_token"]
    record = next((i for i in server.interactions.values() if i.token == token), None)
    if int(req.params["webhook_id"]) != server.application_id or record is None:
        raise not_found(UNKNOWN_WEBHOOK, "Webhook")
    if server.clock() - record.dispatched_at > server.followup_ttl:
        raise DiscordError(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
    if not record.acknowledged:
        # The webhook only exists once the interaction has been answered.
        raise not_found(UNKNOWN_WEBHOOK, "Webhook")
    return record


def _webhook_message(server: FakeDiscord, req: ApiRequest) -> MessageRecord:
    record = _webhook_interaction(server, req)
    wanted = req.params.get("message_id")
    if wanted is None:  # the @original route
        message_id = record.original_message_id
    else:
        ours = [*record.followup_ids, record.original_message_id]
        message_id = int(wanted) if int(wanted) in ours else None
    message = server.messages.get(message_id) if message_id is not None else None
    if message is None or message.deleted:
        raise not_found(UNKNOWN_MESSAGE, "Message")
    return message


@route("POST", "/webhooks/{webhook_id}/{webhook_token}")
async def execute_followup(server: FakeDiscord, req: ApiRequest) -> Any:
    record = _webhook_interaction(server, req)
    body = req.body or {}
    if message_is_empty(body, bool(req.files)):
        raise DiscordError(400, EMPTY_MESSAGE, "Cannot send an empty message")
    original = server.messages.get(record.original_message_id or 0)
    if original is not None and original.flags & LOADING and not original.deleted:
        # After a deferred reply, the first follow-up fills in the "thinking..." message.
        message = await server.edit_message(original, {**body, "flags": original.flags & EPHEMERAL})
        original.data["flags"] &= ~LOADING
    else:
        flags = (body.get("flags") or 0) & REPLY_FLAGS
        message = await _reply(server, record, {**body, "flags": flags}, original=False)
    server.notify()
    return message.data if _truthy(req.query.get("wait")) else None


@route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/@original")
@route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}")
async def get_webhook_message(server: FakeDiscord, req: ApiRequest) -> Any:
    return _webhook_message(server, req).data


@route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original")
@route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}")
async def edit_webhook_message(server: FakeDiscord, req: ApiRequest) -> Any:
    message = _webhook_message(server, req)
    await server.edit_message(message, req.body or {})
    message.data["flags"] &= ~LOADING
    server.notify()
    return message.data


@route("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/@original")
@route("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}")
async def delete_webhook_message(server: FakeDiscord, req: ApiRequest) -> Any:
    await server.delete_message(_webhook_message(server, req))
    return ApiResponse(204)
