"""The help text, built from the command catalog: `/help` lists every command the chat allows
and what each argument takes; `/help quiz` (or `/help 练习`, `/help daily set`) shows one command
or one command group, each argument with its description and the values it accepts — the same
words the parser accepts in the chat's language (bot/application/commands/arguments.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.application.commands.arguments import Arg, ArgKind
from bot.application.commands.catalog import CATALOG, GROUP_ALIASES, Command, Permission, groups
from bot.application.commands.parsing import invocation, usage
from bot.application.quiz_settings import QuizError
from bot.domain.reading.day_values import MINUTES_HIGH, MINUTES_LOW
from bot.locales.i18n import LANGUAGES, t

# Kinds whose values a person must know to type them: the full /help explains them once each.
_EXPLAINED = (ArgKind.CHOICE, ArgKind.QTYPE, ArgKind.LANGUAGE, ArgKind.TIME, ArgKind.DURATION,
              ArgKind.TIMEZONE)  # fmt: skip


@dataclass(frozen=True, slots=True)
class HelpRow:
    usage: str
    description: str
    admin: bool
    details: tuple[str, ...] = ()  # one line per argument (a single command's help)


@dataclass(frozen=True, slots=True)
class HelpView:
    rows: tuple[HelpRow, ...]
    language: str
    notes: tuple[str, ...] = ()  # lines after the commands: what the arguments take, a hint
    topic: str | None = None  # the command asked about (/help quiz), None for the full list


def takes(arg: Arg, language: str) -> str:
    """What `arg` accepts, in `language`: its choice words, its range, its form."""
    if arg.kind in (ArgKind.CHOICE, ArgKind.QTYPE, ArgKind.LANGUAGE):
        return " | ".join(arg.choice_words(language))
    if arg.kind is ArgKind.INT and arg.item:
        return t(language, "help.takes_item")
    if arg.kind is ArgKind.INT:
        return t(language, "help.takes_int", low=arg.low, high=arg.high)
    if arg.kind is ArgKind.MINUTES:
        return t(language, "help.takes_minutes", low=MINUTES_LOW, high=MINUTES_HIGH // 60)
    if arg.kind in (ArgKind.TIME, ArgKind.DURATION, ArgKind.TIMEZONE, ArgKind.FILE, ArgKind.DATE):
        return t(language, f"help.takes_{arg.kind}")
    return t(language, f"help.takes_{arg.kind}", length=arg.longest)  # WORD, TEXT


def argument_line(arg: Arg, language: str) -> str:
    name = t(language, arg.name_key)
    shown = f"<{name}>" if arg.required else f"[{name}]"
    return t(language, "help.arg", name=shown, desc=t(language, arg.desc_key), takes=takes(arg, language))


def full_help(language: str, private: bool) -> HelpView:
    """Every command the chat allows (admin commands apart), then each argument that needs
    explaining, once, and how to ask about one command."""
    shown = [c for c in CATALOG if c.scope.allows(private)]
    rows = tuple(_row(c, language) for c in shown)
    explained: dict[str, tuple[Command, Arg]] = {}
    for command in shown:
        for arg in command.args:
            if arg.kind in _EXPLAINED:
                explained.setdefault(arg.name, (command, arg))
    names = [t(language, arg.name_key) for _, arg in explained.values()]
    lines = []
    for command, arg in explained.values():
        name = t(language, arg.name_key)
        where = f"{invocation(command, language)} " if names.count(name) > 1 else ""  # two called 范围
        lines.append(f"{where}[{name}] {takes(arg, language)}")
    notes = (t(language, "help.arguments"), *lines, "", t(language, "help.one_command"))
    return HelpView(rows, language, notes)


def command_help(topic: str, language: str, private: bool) -> HelpView:
    """One command, or every subcommand of a group, with its arguments; QuizError naming the
    topic when no command is called so."""
    found = find(topic)
    if not found:
        raise QuizError("help.unknown_topic", topic=topic[:64])
    rows = tuple(_row(c, language, details=True) for c in found)
    elsewhere = "error.group_only" if private else "error.private_only"  # where it does work
    notes = () if any(c.scope.allows(private) for c in found) else (t(language, elsewhere),)
    return HelpView(rows, language, notes, topic=found[0].name if len(found) == 1 else found[0].path[0])


def find(topic: str) -> list[Command]:
    """The commands a topic names: "quiz", "/daily", "daily set", "练习", "每日一题 设置", "交卷"."""
    words = topic.strip().lstrip("/").casefold().split()
    if not words:
        return []
    head = words[0].split("@")[0]
    group = _group(head)
    if group is None:  # a subcommand's own word (交卷, 练错题) names it alone
        return [c for c in CATALOG if len(c.path) > 1 and head in _names(c)][:1] if len(words) == 1 else []
    subcommands = groups()[group]
    if not subcommands:
        return [c for c in CATALOG if c.path == (group,)]
    if len(words) == 1:
        return list(subcommands)
    return [c for c in subcommands if words[1] in _names(c)][:1]


def _group(word: str) -> str | None:
    word = GROUP_ALIASES.get(word, word)
    for name, subcommands in groups().items():
        if word == name or any(word == t(lang, f"cmd.{name}.name").casefold() for lang in LANGUAGES):
            return name
        if not subcommands and any(word == alias.casefold() for alias in _entry(name).aliases):
            return name
    return None


def _entry(name: str) -> Command:
    return next(c for c in CATALOG if c.path == (name,))


def _names(command: Command) -> set[str]:
    """The words naming a subcommand: its own, its aliases, its menu name in every language."""
    names = {command.path[-1], *(a.casefold() for a in command.aliases)}
    return names | {t(lang, f"{command.key}.name").casefold() for lang in LANGUAGES}


def _row(command: Command, language: str, *, details: bool = False) -> HelpRow:
    shown = [a for a in command.args if a.kind is not ArgKind.USER] if details else []
    lines = tuple(argument_line(a, language) for a in shown)
    return HelpRow(usage(command, language), t(language, f"{command.key}.desc"),
                   command.permission is Permission.CHAT_ADMIN, lines)  # fmt: skip
