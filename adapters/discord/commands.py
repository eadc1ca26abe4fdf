"""The slash command tree, built from the command catalog (bot/application/commands/catalog.py): one
`app_commands.Command` per catalog entry, inside an `app_commands.Group` when the entry is a
subcommand (/daily set). Nothing here is written per command; a new catalog entry appears on
Discord with no change to this module.

How the commands are built. discord.py reads a command's options from its callback: the
parameters of `inspect.signature(callback)` (which honours a `__signature__` attribute) with
their annotations, and the attributes that the public decorators `describe`, `rename` and
`choices` set on the callback. So each entry gets one generic callback, `invoke(interaction,
**values)`, whose `__signature__` lists one keyword parameter per catalog `Arg`, annotated with
the type that gives the Discord option — `Range[int, min, max]` for INT, `discord.User` for USER,
`discord.Attachment` for FILE, `str` for the rest — and defaulting to None when optional; the
decorators are then applied to it as functions, and the callback is handed to
`app_commands.Command(...)`. No private attribute (`Command._params`) is touched, and discord.py
checks names, descriptions, choices and ranges as it would for a hand-written command.
`default_permissions`, `guild_only` and `allowed_contexts` are the public attributes of
`Command` and `Group`, set from the entry's permission and scope.

Names and descriptions are `locale_str`s naming the catalog keys (`cmd.<path>.name`,
`cmd.opt.<arg>.name`, ...), translated to zh-CN and zh-TW by `CatalogTranslator`; Discord shows
the English one elsewhere, so the option names are the catalog's arg names in English.

Every invocation becomes `Parsed(command, {name: arg.read(value)})` — the same typed values and
the same error sentences as a text platform — and runs through `Application.run`; the reply is
rendered by the kind of its view (adapters/discord/render.py).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import aiohttp
import discord
from discord import app_commands

from adapters.discord.host import DiscordHost
from adapters.discord.mock_views import mock_buttons
from adapters.discord.render import attachment, reply_content, reply_embed
from adapters.discord.replies import Reply, caller, chat_language, respond, send, user_language, user_ref
from adapters.discord.transient import describe, transient
from adapters.discord.translator import text
from adapters.discord.views import question_buttons, weak_buttons
from bot.application.app import Application
from bot.application.attachments import Attachment
from bot.application.commands.arguments import Arg, ArgKind, ArgumentError
from bot.application.commands.catalog import Command, Permission, Scope, command, groups
from bot.application.commands.parsing import Parsed
from bot.application.replies import Reply as AppReply
from bot.locales.i18n import LANGUAGES, t
from bot.views.quiz import QuestionView

log = logging.getLogger("studybot.discord")
MANAGE_SERVER = discord.Permissions(manage_guild=True)
Callback = Callable[..., Coroutine[Any, Any, None]]


# What a stale client (or a schema that drifted from the synced one) sends: a command, subcommand
# or option the tree does not have. Told "this command changed: try again", one warning line.
STALE = (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch)


class StudyTree(app_commands.CommandTree):
    """Answers any failure of a command ephemerally (never a stack trace) and logs the unexpected."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Autocomplete for an option that declares none (every option here: they take typed
        values and fixed choices) is answered with no suggestions, not left to time out; a user
        or attachment option whose id is no snowflake (discord.py would fail reading it, and
        leave the interaction unanswered) is told "this command changed"."""
        if not _snowflakes_read(interaction):
            log.warning("discord: /%s carries an option id that is no snowflake; told to try again",
                        _name(interaction))  # fmt: skip
            lang = user_language(interaction) or await chat_language(interaction)
            if interaction.type is discord.InteractionType.autocomplete:
                await _answer_autocomplete(interaction)
            else:
                await _tell(interaction, t(lang, "error.command_changed"))
            return False
        if interaction.type is not discord.InteractionType.autocomplete or _autocompletes(self, interaction):
            return True
        log.warning("discord: autocomplete for /%s, which offers none (a stale client?); answered empty",
                    _name(interaction))  # fmt: skip
        await _answer_autocomplete(interaction)
        return False

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        lang = user_language(interaction) or await chat_language(interaction)
        name = interaction.command.qualified_name if interaction.command else _name(interaction)
        if isinstance(error, app_commands.TransformerError):
            message = t(lang, "error.bad_args", detail=str(error.value)[:200])
        elif isinstance(error, STALE):
            log.warning("discord: /%s does not match the commands here (%s); the member is told to try again",
                        name, type(error).__name__)  # fmt: skip
            message = t(lang, "error.command_changed")
        elif transient(error):  # Discord's trouble, not ours: no traceback
            log.warning("discord: /%s not answered: %s; the member may run it again", name, describe(error))
            message = t(lang, "error.internal")
        else:
            log.error("command /%s failed", name, exc_info=error)
            message = t(lang, "error.internal")
        await _tell(interaction, message)


async def _tell(interaction: discord.Interaction, message: str) -> None:
    try:
        await send(interaction, Reply(message))
    except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
        log.warning("discord: could not report a failed command: %s", describe(exc))


async def _answer_autocomplete(interaction: discord.Interaction) -> None:
    try:
        await interaction.response.autocomplete([])
    except (discord.HTTPException, aiohttp.ClientError) as exc:
        log.warning("discord: could not answer an autocomplete: %s", describe(exc))


SNOWFLAKE_OPTIONS = (6, 7, 8, 9, 11)  # user, channel, role, mentionable, attachment


def _snowflakes_read(interaction: discord.Interaction) -> bool:
    """Whether every id-valued option of the interaction is a number, as discord.py needs."""
    if interaction.type not in (
        discord.InteractionType.application_command,
        discord.InteractionType.autocomplete,
    ):
        return True
    data: Any = interaction.data or {}
    stack = list(data.get("options") or [])
    while stack:
        option = stack.pop()
        if not isinstance(option, dict):
            return False
        stack += option.get("options") or []
        if option.get("type") in SNOWFLAKE_OPTIONS and not str(option.get("value", "")).isdigit():
            return False
    return True


def _name(interaction: discord.Interaction) -> str:
    """The command path an interaction names (`daily set`), from its raw data."""
    data: Any = interaction.data or {}
    words = [str(data.get("name", "?"))[:32]]
    options = data.get("options") or []
    while options and isinstance(options[0], dict) and options[0].get("type") in (1, 2):
        words.append(str(options[0].get("name", "?"))[:32])
        options = options[0].get("options") or []
    return " ".join(words)


def _autocompletes(tree: app_commands.CommandTree, interaction: discord.Interaction) -> bool:
    """Whether the focused option of an autocomplete interaction is one that declares it."""
    data: Any = interaction.data or {}
    found: Any = tree.get_command(str(data.get("name", "")), guild=interaction.guild)
    if found is None:
        found = tree.get_command(str(data.get("name", "")))
    options = data.get("options") or []
    while isinstance(found, app_commands.Group):
        sub = next((o for o in options if isinstance(o, dict) and o.get("type") in (1, 2)), None)
        found = found.get_command(str(sub.get("name", ""))) if sub is not None else None
        options = (sub or {}).get("options") or []
    if not isinstance(found, app_commands.Command):
        return False
    focused = next((o for o in options if isinstance(o, dict) and o.get("focused")), None)
    if focused is None:
        return False
    return any(p.display_name == focused.get("name") and p.autocomplete for p in found.parameters)


# ---------------------------------------------------------------- building the tree


def install(tree: app_commands.CommandTree, adapter: DiscordHost) -> None:
    """Every catalog command on `tree`, top-level names in catalog order."""
    for name, subcommands in groups().items():
        if not subcommands:
            entry = command(name)
            slash = _command(entry, adapter)
            _restrict(slash, [entry])
            tree.add_command(slash)
            continue
        group = app_commands.Group(name=text(f"cmd.{name}.name"), description=text(f"cmd.{name}.desc"))
        for entry in subcommands:
            group.add_command(_command(entry, adapter, group))
        _restrict(group, subcommands)
        tree.add_command(group)


def _command(entry: Command, adapter: DiscordHost,
             parent: app_commands.Group | None = None) -> app_commands.Command[Any, ..., None]:  # fmt: skip
    return app_commands.Command(name=text(f"{entry.key}.name"), description=text(f"{entry.key}.desc"),
                                callback=_callback(entry, adapter), parent=parent)  # fmt: skip


def _restrict(
    slash: app_commands.Command[Any, ..., None] | app_commands.Group, entries: list[Command]
) -> None:
    """Who Discord offers a top-level command to, and where. Discord sets both per top-level
    command only: a group is offered to Manage Server alone when most of its subcommands need an
    admin (/daily, /contest: members keep /bank list), and is allowed wherever one of its
    subcommands is. The application still checks each subcommand when it runs, so a server that
    grants a group to everyone gets the catalog's rule for each."""
    admin = sum(e.permission is Permission.CHAT_ADMIN for e in entries)
    if admin * 2 > len(entries):
        slash.default_permissions = MANAGE_SERVER
    scopes = {e.scope for e in entries}
    guilds = bool(scopes & {Scope.GROUP, Scope.ANY})
    dms = bool(scopes & {Scope.PRIVATE, Scope.ANY})
    slash.guild_only = not dms
    contexts = app_commands.AppCommandContext(guild=guilds, dm_channel=dms, private_channel=False)
    slash.allowed_contexts = contexts


def _annotation(arg: Arg) -> Any:
    if arg.kind is ArgKind.INT:
        if arg.minimum is None and arg.maximum is None:
            return int
        return app_commands.Range[int, arg.minimum, arg.maximum]
    if arg.kind is ArgKind.USER:
        return discord.User
    if arg.kind is ArgKind.FILE:
        return discord.Attachment
    return str  # TIME, DURATION, TIMEZONE, WORD, TEXT; CHOICE, QTYPE, LANGUAGE with choices


def _choices(arg: Arg) -> list[app_commands.Choice[str]] | None:
    if arg.kind is ArgKind.LANGUAGE:  # each language in its own words, the same in every locale
        return [app_commands.Choice(name=t(lang, "tg.lang_name"), value=lang) for lang in LANGUAGES]
    if arg.choices:
        return [app_commands.Choice(name=text(c.label_key), value=c.value) for c in arg.choices]
    return None


def _callback(entry: Command, adapter: DiscordHost) -> Callback:
    """A callback whose signature discord.py reads the entry's options from."""

    async def invoke(interaction: discord.Interaction, **values: Any) -> None:
        await run(adapter, interaction, entry, values)

    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=discord.Interaction)]  # fmt: skip
    for arg in entry.args:
        default = inspect.Parameter.empty if arg.required else None
        params.append(inspect.Parameter(arg.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=_annotation(arg)))  # fmt: skip
    invoke.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    invoke.__qualname__ = invoke.__name__ = "_".join(entry.path)
    if entry.args:
        renamed = {a.name: text(a.name_key) for a in entry.args}
        callback: Callback = app_commands.rename(**renamed)(invoke)
        callback = app_commands.describe(**{a.name: text(a.desc_key) for a in entry.args})(callback)
        choices = {a.name: c for a in entry.args if (c := _choices(a)) is not None}
        if choices:
            callback = app_commands.choices(**choices)(callback)
        return callback
    return invoke


# ---------------------------------------------------------------- running a command


def parsed(entry: Command, values: dict[str, Any]) -> Parsed:
    """The typed arguments, each through `Arg.read` (ArgumentError: the catalog's sentence)."""
    args: dict[str, object] = {}
    for arg in entry.args:
        value = values.get(arg.name)
        if value is None or (isinstance(value, str) and not value.strip() and not arg.required):
            continue
        if arg.kind is ArgKind.USER:  # Discord sends the user it names; a forged one may not
            if not isinstance(value, discord.abc.User):
                raise ArgumentError(arg, "arg.user_unresolved")
            args[arg.name] = user_ref(value)
        elif isinstance(value, discord.Attachment):
            args[arg.name] = file_of(value)
        elif arg.kind is ArgKind.FILE:  # an attachment option without its attachment
            raise ArgumentError(arg, "arg.missing")
        else:
            args[arg.name] = arg.read(value)
    return Parsed(entry, args)


def file_of(attachment: discord.Attachment) -> Attachment:
    """The core's view of an attached file: its name and size as Discord reports them, its bytes
    fetched from the CDN only when the use case asks (after the permission and size checks). A
    failed download is an OSError, which the use case tells as "cannot read" (nothing changes)."""

    async def fetch() -> bytes:
        try:
            return await attachment.read()
        except discord.HTTPException as exc:  # e.g. the attachment's URL expired: 404
            raise OSError(f"HTTP {exc.status}") from exc
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise OSError(type(exc).__name__) from exc

    return Attachment(attachment.filename, attachment.size, fetch)


async def run(adapter: DiscordHost, interaction: discord.Interaction, entry: Command,
              values: dict[str, Any]) -> None:  # fmt: skip
    """Run the entry through the application and answer with its reply (in time: deferred when
    slow); a question posted this way is told to the application with its message."""
    application = adapter.application
    who = caller(interaction)
    posted: list[QuestionView] = []

    async def work() -> Reply:
        try:
            reply = await application.run(parsed(entry, values), who)
        except ArgumentError as exc:
            language = who.language or await application.language(who.chat)
            return Reply(exc.render(language))
        if isinstance(reply.view, QuestionView):
            posted.append(reply.view)
            adapter.counts.remember(reply.view)
        return rendered(reply, application)

    async with adapter.inflight.busy() as running:
        if not running:
            return
        message_id = await respond(interaction, work())
        if posted and message_id is not None:
            await application.question_posted(posted[0].round_id, f"{interaction.channel_id}:{message_id}")


def rendered(reply: AppReply, application: Application | None = None) -> Reply:
    """A reply by the kind of its view: embeds for boards, stats, standings and questions (a
    question with its buttons), text for the rest; files as attachments, a question's pictures
    (from `application`) first."""
    view = reply.view
    pictures = application.pictures(view) if application is not None else ()
    files = tuple(attachment(f) for f in pictures + reply.files)
    buttons: discord.ui.View | None
    if isinstance(view, QuestionView):
        buttons = question_buttons(view)
    else:
        buttons = weak_buttons(view) or mock_buttons(view)
    embed = reply_embed(reply)
    content = reply_content(reply) or None  # besides an embed: the progress under its stats
    if embed is None and not content and not files:
        content = "✓"  # a view with nothing to say: Discord takes no empty message
    return Reply(content, embed=embed, view=buttons, ephemeral=not reply.public, files=files)
