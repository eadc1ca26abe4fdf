"""Text commands (`/contest start 5 30`, `/daily set 08:30 deadline=12h`) read against the
catalog: which command, and its typed arguments. Telegram and the console share this grammar.

Arguments are positional in their declared order; any optional one may also be given as
`name=value` (its id or its localized name), so later ones can be set without the earlier.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.application.commands.arguments import Arg, ArgKind, ArgumentError
from bot.application.commands.catalog import (
    CATALOG,
    DEFAULT_SUBCOMMAND,
    GROUP_ALIASES,
    IMPLIED_SUBCOMMAND,
    Command,
    groups,
)
from bot.application.quiz_settings import QuizError
from bot.locales.i18n import LANGUAGES, t


@dataclass(frozen=True, slots=True)
class Parsed:
    command: Command
    args: dict[str, object] = field(default_factory=dict)


class UsageError(QuizError):
    """A line that does not fit its command: the sentence, then the command's usage."""

    def __init__(self, command: Command, key: str, **params: object) -> None:
        super().__init__(key, **params)
        self.command = command

    def render(self, language: str) -> str:
        shown = usage(self.command, language)
        return super().render(language) + "\n" + t(language, "error.usage", usage=shown)


def usage(command: Command, language: str) -> str:
    """`/contest start [questions] [seconds]`: the subcommand and the argument names in the chat's
    language (`/exam 设置 <日期> [每天时长]`; the subcommand's menu name is read in any language,
    as a choice's word is)."""
    words = [invocation(command, language)]
    for arg in command.args:
        if arg.kind is ArgKind.USER:
            continue
        name = t(language, arg.name_key)
        words.append(f"<{name}>" if arg.required else f"[{name}]")
    return " ".join(words)


def invocation(command: Command, language: str) -> str:
    """`/review 提醒`: the command and its subcommand's menu name in the chat's language."""
    if len(command.path) > 1:
        return f"/{command.path[0]} {t(language, f'{command.key}.name')}"
    return f"/{command.path[0]}"


def parse(line: str, *, bot_name: str | None = None) -> Parsed:
    """The command and arguments of a line starting with "/", or QuizError (unknown command,
    bad argument with the command's usage)."""
    words = line.split()
    head = words[0][1:] if words and words[0].startswith("/") else ""
    name, _, addressed = head.partition("@")
    if addressed and bot_name is not None and addressed.casefold() != bot_name.casefold():
        raise QuizError("error.unknown_command", command=words[0])
    command, rest = _find(name.casefold(), words[1:])
    if command is None:
        raise QuizError("error.unknown_command", command=words[0] if words else line)
    try:
        return Parsed(command, _arguments(command, rest))
    except ArgumentError as exc:
        exc.usage = lambda language: usage(command, language)
        raise


def _find(name: str, rest: list[str]) -> tuple[Command | None, list[str]]:
    name = GROUP_ALIASES.get(name, name)
    subcommands = groups().get(name)
    if subcommands is None:
        alias = next((c for c in CATALOG if name in c.aliases and len(c.path) == 1), None)
        return alias, rest
    if not subcommands:
        return next(c for c in CATALOG if c.path == (name,)), rest
    wanted = rest[0].casefold() if rest else DEFAULT_SUBCOMMAND.get(name, "")
    for sub in subcommands:
        if wanted == sub.path[1] or wanted in sub.aliases:
            return sub, rest[1:]
    for sub in subcommands:  # its menu name in any language (/review 提醒, /daily 设置)
        if any(wanted == t(lang, f"{sub.key}.name").casefold() for lang in LANGUAGES):
            return sub, rest[1:]
    implied = IMPLIED_SUBCOMMAND.get(name)
    if implied is not None:
        return next(s for s in subcommands if s.path[1] == implied), rest
    def choices(language: str) -> str:  # the subcommands by their names in the chat's language
        return " | ".join(t(language, f"{s.key}.name") for s in subcommands)

    raise QuizError("error.unknown_subcommand", command=f"/{name}", choices=choices)


def _arguments(command: Command, words: list[str]) -> dict[str, object]:
    typed = [a for a in command.args if a.kind is not ArgKind.USER]
    values: dict[str, object] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        named = _by_name(typed, key) if sep else None
        if named is not None:
            values[named.name] = named.read(value)
        else:
            positional.append(word)
    free = [a for a in typed if a.name not in values]
    for index, word in enumerate(positional):
        if not free:
            raise UsageError(command, "error.extra_args", word=word)
        if free[0].kind in (ArgKind.TEXT, ArgKind.FILE):  # the rest of the line (a path may hold spaces)
            values[free[0].name] = free[0].read(" ".join(positional[index:]))
            break
        arg = _first_accepting(free, word)
        if arg.kind is ArgKind.TEXT:  # reached past optional ones (`/quiz ml cv`): the rest
            values[arg.name] = arg.read(" ".join(positional[index:]))
            break
        values[arg.name] = arg.read(word)
        free = free[free.index(arg) + 1 :]
    for arg in typed:
        if arg.required and arg.name not in values:
            raise ArgumentError(arg, "arg.missing")
    return values


def _first_accepting(free: list[Arg], word: str) -> Arg:
    """The first argument still free that reads `word`: an optional one that does not is
    skipped (so `/quiz 多选` is a type and `/quiz ml` a tag), unless the word is plainly meant
    for it (`-1` for a count) or it is required: then its error names it."""
    catch_all: Arg | None = None
    for arg in free:
        try:
            arg.read(word)
        except ArgumentError:
            if arg.required or arg.claims(word):
                return arg  # its read raises the error that names it
            if catch_all is None and arg.kind in (ArgKind.WORD, ArgKind.TEXT):
                catch_all = arg  # takes any word but this one (too long, control characters)
            continue
        return arg
    return catch_all or free[0]


def _by_name(args: list[Arg], key: str) -> Arg | None:
    folded = key.casefold()
    for arg in args:
        if folded == arg.name or any(folded == t(lang, arg.name_key).casefold() for lang in LANGUAGES):
            return arg
    return None
