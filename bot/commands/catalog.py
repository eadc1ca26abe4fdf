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
# Several tags, the rest of the line: `/quiz ml cv`, or `tag=ml,cv` (the use case splits them).
TAGS = Arg("tag", ArgKind.TEXT)
PRACTICE = Arg("practice", ArgKind.CHOICE, choices=(
    Choice("next", "cmd.choice.next", ("顺序", "順序", "下一题", "下一題")),
    Choice("memorise", "cmd.choice.memorise", ("memorize", "背题", "背題")),
    # end the practice run with its summary (bot/study/drill.py)
    Choice("stop", "cmd.choice.stop", ("结束", "結束", "停止", "结束练习", "結束練習")),
    # the weakest points' items (bot/study/mastery.py)
    Choice("weak", "cmd.choice.weak", ("薄弱", "弱项", "弱項", "薄弱点", "薄弱點")),
))  # fmt: skip
# A mistake's cause (bot/study/mastery.py CAUSES), by its key or its name.
CAUSE = Arg("cause", ArgKind.CHOICE, required=True, choices=(
    Choice("concept", "cause.concept", ("概念不清",)),
    Choice("careless", "cause.careless", ("粗心",)),
    Choice("unseen", "cause.unseen", ("没见过", "沒見過")),
    Choice("misremembered", "cause.misremembered", ("记错", "記錯")),
))  # fmt: skip
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
ON_OFF = Arg("switch", ArgKind.CHOICE, required=True, choices=(
    Choice("on", "cmd.choice.on", ("开", "開")),
    Choice("off", "cmd.choice.off", ("关", "關")),
))  # fmt: skip
QUESTIONS = Arg("questions", ArgKind.INT, minimum=1, maximum=100)
SECONDS = Arg("seconds", ArgKind.INT, minimum=1, maximum=600)

ADMIN = Permission.CHAT_ADMIN
NUMBER = Arg("number", ArgKind.INT, minimum=1, maximum=9999)
ITEM = Arg("number", ArgKind.INT, required=True, minimum=1, maximum=9999)
STATS_OF = Arg("of", ArgKind.CHOICE, choices=(Choice("group", "cmd.choice.group", ("群", "本群")),))
LEVEL = Arg("level", ArgKind.CHOICE, required=True, choices=(
    Choice("full", "cmd.choice.full", ("全对", "全對", "1")),
    Choice("half", "cmd.choice.half", ("部分", "2")),
    Choice("zero", "cmd.choice.zero", ("不会", "不會", "3")),
))  # fmt: skip
# /mock start ordered: the same paper in bank order, options as written (shuffled by default).
MOCK_ORDER = Arg("order", ArgKind.CHOICE, choices=(
    Choice("ordered", "cmd.choice.ordered", ("顺序", "順序", "原序")),
))  # fmt: skip
# /mock submit confirm: hand in although items are unanswered (a bare /mock submit asks first).
MOCK_CONFIRM = Arg("confirm", ArgKind.CHOICE, choices=(
    Choice("confirm", "cmd.choice.confirm", ("确认", "確認", "yes")),
))  # fmt: skip
REPORT_ID = Arg("id", ArgKind.INT, required=True, minimum=1)
NOTE = Arg("note", ArgKind.TEXT)

# fmt: off
CATALOG: tuple[Command, ...] = (
    Command(("start",), "start", scope=Scope.PRIVATE),
    Command(("help",), "help"),
    Command(("quiz",), "practise", (PRACTICE, NUMBER, QTYPE, TAGS)),
    Command(("memorise",), "memorise", (NUMBER, QTYPE, TAGS), aliases=("memorize", "背题", "背題")),
    Command(("review", "due"), "review"),
    Command(("review", "remind"), "review_remind", (ON_OFF, Arg("time", ArgKind.TIME)), scope=Scope.PRIVATE),
    Command(("leaderboard",), "leaderboard", (WINDOW, LEADERBOARD_SCOPE)),
    Command(("stats",), "stats", (Arg("user", ArgKind.USER), STATS_OF), aliases=("进度", "進度")),
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
    # uploads (bot/bank_uploads.py): a file read into a pending bank, then confirmed
    Command(("bank", "import"), "bank_import", (Arg("file", ArgKind.FILE),), permission=ADMIN,
            aliases=("导入", "匯入")),
    Command(("bank", "confirm"), "bank_confirm", permission=ADMIN, aliases=("确认", "確認")),
    # study tools (bot/study/use_cases.py)
    Command(("mock", "start"), "mock_start", (MOCK_ORDER, Arg("bank", ArgKind.WORD)),
            aliases=("开始", "開始")),
    # "/mock 6" shows item 6; "/mock 6 B" answers it.
    Command(("mock", "answer"), "mock_answer", (ITEM, Arg("response", ArgKind.TEXT)),
            aliases=("答", "a")),
    Command(("mock", "go"), "mock_go", (NUMBER,), aliases=("看", "第")),
    Command(("mock", "flag"), "mock_flag", (NUMBER,), aliases=("标记", "標記")),
    Command(("mock", "sheet"), "mock_sheet", aliases=("答题卡", "答題卡")),
    Command(("mock", "submit"), "mock_submit", (MOCK_CONFIRM,), aliases=("交卷",)),
    Command(("mock", "quit"), "mock_quit", aliases=("放弃", "放棄")),
    Command(("mock", "grade"), "mock_grade", (ITEM, LEVEL), aliases=("自评", "自評")),
    Command(("mock", "report"), "mock_report", aliases=("成绩", "成績")),
    Command(("mock", "review"), "mock_review", (NUMBER,), aliases=("订正", "訂正", "错题", "錯題")),
    Command(("mistakes", "list"), "mistakes", (TAG,)),
    Command(("mistakes", "practice"), "mistakes_practice", (TAG,), aliases=("练习", "練習")),
    Command(("mistakes", "export"), "mistakes_export", aliases=("导出", "匯出")),
    # "/mistakes cause 粗心": the question last shown; "/mistakes cause 12 粗心": question 12
    Command(("mistakes", "cause"), "mistakes_cause", (NUMBER, CAUSE), aliases=("原因",)),
    Command(("favorites", "list"), "favorites"),
    Command(("favorites", "practice"), "favorites_practice", aliases=("练习", "練習")),
    Command(("favorites", "add"), "favorites_add", (ITEM,), aliases=("加", "收藏")),
    Command(("favorites", "remove"), "favorites_remove", (ITEM,), aliases=("删", "刪")),
    Command(("report",), "report", (NUMBER, Arg("text", ArgKind.TEXT, required=True)),
            aliases=("纠错", "糾錯")),
    # mastery and readiness (bot/study/mastery.py, bot/study/readiness.py)
    Command(("weak",), "weak", aliases=("薄弱", "弱项", "弱項")),
    Command(("ready",), "ready", aliases=("估分", "备考", "備考")),
    Command(("reports", "list"), "reports_list", permission=ADMIN),
    Command(("reports", "resolve"), "reports_resolve", (REPORT_ID, NOTE), permission=ADMIN),
    Command(("reports", "dismiss"), "reports_dismiss", (REPORT_ID, NOTE), permission=ADMIN),
)
# fmt: on

# What a group command with subcommands does when given none (e.g. "/daily" shows the daily).
DEFAULT_SUBCOMMAND = {"review": "due", "daily": "show", "contest": "status", "bank": "list", "mock": "start",
                      "mistakes": "list", "favorites": "list", "reports": "list"}
# ... and given arguments without a subcommand: "/daily 08:30" sets the daily, "/mock 12 B"
# answers item 12 of the mock in progress, "/mistakes ml" lists one tag.
IMPLIED_SUBCOMMAND = {"daily": "set", "mock": "answer", "mistakes": "list"}
# Other words for a command group on text platforms (Telegram's menu names stay ASCII).
GROUP_ALIASES = {"复习": "review", "複習": "review",
                 "模拟考试": "mock", "模擬考試": "mock", "模考": "mock", "错题本": "mistakes",
                 "錯題本": "mistakes", "收藏": "favorites", "favourites": "favorites"}


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
