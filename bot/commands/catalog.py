"""The command catalog: every user command declared once — name, arguments, who may run it,
where, and the use case it calls. Discord's slash commands, Telegram's menus and text parsing,
and the console's parsing and /help are all built from this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.commands.arguments import Arg, ArgKind, Choice
from bot.kinds import AnswerMode
from bot.model import QuestionType
from bot.windows import Window


class Permission(StrEnum):
    ANYONE = "anyone"
    CHAT_ADMIN = "chat_admin"  # a group's admins; in a private chat, its one person


class Scope(StrEnum):
    PRIVATE = "private"
    GROUP = "group"
    ANY = "any"

    def allows(self, private: bool) -> bool:
        return self is Scope.ANY or (self is Scope.PRIVATE) == private


@dataclass(frozen=True, slots=True)
class Command:
    """One command (or subcommand: path ("daily", "set")) and the use case it calls."""

    path: tuple[str, ...]
    use_case: str  # the Application method that carries it out
    args: tuple[Arg, ...] = ()
    permission: Permission = Permission.ANYONE
    scope: Scope = Scope.ANY
    aliases: tuple[str, ...] = ()  # other words for the last part of the path (e.g. 练习)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def key(self) -> str:
        """The catalog prefix of its wording: cmd.<path>.name / cmd.<path>.desc."""
        return "cmd." + ".".join(self.path)

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)


def _choices(prefix: str, values: list[str]) -> tuple[Choice, ...]:
    return tuple(Choice(v, f"{prefix}.{v}") for v in values)


TAG = Arg("tag", ArgKind.WORD)
QTYPE = Arg("type", ArgKind.QTYPE, choices=_choices("type", [str(q) for q in QuestionType]))
WINDOW = Arg("window", ArgKind.CHOICE, choices=(
    Choice(str(Window.ALL), "cmd.choice.all", ("总榜", "總榜")),
    Choice(str(Window.WEEK), "cmd.choice.week", ("本周", "本週", "周", "週")),
    Choice(str(Window.MONTH), "cmd.choice.month", ("本月", "月")),
    Choice("contest", "cmd.choice.contest", ("竞赛", "競賽")),
))  # fmt: skip
LEADERBOARD_SCOPE = Arg("scope", ArgKind.CHOICE, choices=(
    Choice("channel", "cmd.choice.channel", ("频道", "頻道", "群")),
    Choice("server", "cmd.choice.server", ("全服", "服务器", "伺服器")),
))  # fmt: skip
MODE = Arg("mode", ArgKind.CHOICE, choices=_choices("cmd.choice", [str(m) for m in AnswerMode]))
QUESTIONS = Arg("questions", ArgKind.INT, minimum=1, maximum=100)
SECONDS = Arg("seconds", ArgKind.INT, minimum=1, maximum=600)

ADMIN = Permission.CHAT_ADMIN

# fmt: off
CATALOG: tuple[Command, ...] = (
    Command(("start",), "start", scope=Scope.PRIVATE),
    Command(("help",), "help"),
    Command(("quiz",), "quiz", (QTYPE, TAG)),
    Command(("review",), "review"),
    Command(("leaderboard",), "leaderboard", (WINDOW, LEADERBOARD_SCOPE)),
    Command(("stats",), "stats", (Arg("user", ArgKind.USER),)),
    Command(("streak",), "streak"),
    Command(("tags",), "tags"),
    Command(("lang",), "language", (Arg("language", ArgKind.LANGUAGE, required=True),),
            permission=Permission.CHAT_ADMIN),
    Command(("tz",), "timezone", (Arg("timezone", ArgKind.TIMEZONE, required=True),),
            permission=Permission.CHAT_ADMIN),
    Command(("daily", "set"), "daily_set", (
        Arg("time", ArgKind.TIME, required=True),
        Arg("deadline", ArgKind.DURATION),
        TAG,
        Arg("timezone", ArgKind.TIMEZONE),
        MODE,
    ), permission=Permission.CHAT_ADMIN),
    Command(("daily", "off"), "daily_off", permission=Permission.CHAT_ADMIN),
    Command(("daily", "show"), "daily_show"),
    Command(("contest", "start"), "contest_start", (QUESTIONS, SECONDS, TAG),
            permission=Permission.CHAT_ADMIN),
    Command(("contest", "stop"), "contest_stop", permission=Permission.CHAT_ADMIN),
    Command(("contest", "status"), "contest_status"),
    Command(("bank", "list"), "bank_list"),
    Command(("bank", "use"), "bank_use", (Arg("bank", ArgKind.WORD, required=True),),
            permission=Permission.CHAT_ADMIN),
)
# fmt: on

# What a group command with subcommands does when given none (e.g. "/daily" shows the daily).
DEFAULT_SUBCOMMAND = {"daily": "show", "contest": "status", "bank": "list"}
# ... and given arguments without a subcommand: "/daily 08:30" sets the daily.
IMPLIED_SUBCOMMAND = {"daily": "set"}


def command(name: str) -> Command:
    """The catalog entry by its space-separated path ("contest start")."""
    return next(c for c in CATALOG if c.name == name)


def groups() -> dict[str, list[Command]]:
    """Top-level names and their subcommands, in catalog order ([] for a plain command)."""
    out: dict[str, list[Command]] = {}
    for entry in CATALOG:
        out.setdefault(entry.path[0], [])
        if len(entry.path) > 1:
            out[entry.path[0]].append(entry)
    return out
