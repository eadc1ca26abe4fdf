"""The command catalog: every user command declared once — name, arguments, who may run it,
where, and the use case it calls. Discord's slash commands, Telegram's menus and text parsing,
and the console's parsing and /help are all built from this table.

An entry names its use case by a member of one of the enums below, one enum per object that
carries them out; each of those objects maps every member of its enum to its handler in one
`match` that mypy checks for exhaustiveness, and the application layer resolves every entry's
handler at start-up (bot/application/app.py). No use case is found by its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum, auto

from bot.application.commands.arguments import Arg, ArgKind, Choice
from bot.domain.kinds import SELF_GRADE_WORDS, AnswerMode
from bot.domain.questions import QuestionType
from bot.domain.windows import Window


class Permission(StrEnum):
    ANYONE = "anyone"
    CHAT_ADMIN = "chat_admin"  # a group's admins; in a private chat, its one person


class Scope(StrEnum):
    PRIVATE = "private"
    GROUP = "group"
    ANY = "any"

    def allows(self, private: bool) -> bool:
        return self is Scope.ANY or (self is Scope.PRIVATE) == private


class AppUseCase(Enum):
    """The use cases the application layer carries out itself (bot/application/app.Application)."""

    START = auto()
    HELP = auto()
    LEADERBOARD = auto()
    STREAK = auto()
    TAGS = auto()
    LANGUAGE = auto()
    TIMEZONE = auto()
    DAILY_SET = auto()
    DAILY_OFF = auto()
    DAILY_SHOW = auto()
    CONTEST_START = auto()
    CONTEST_STOP = auto()
    CONTEST_STATUS = auto()
    WEB = auto()  # a one-time link to the web app (bot/application/web_access.py)


class StudyUseCase(Enum):
    """The study tools' (bot/application/study/use_cases.StudyUseCases). Without them /quiz, /review and
    /stats fall back to the application layer's plain forms and the rest say so."""

    PRACTISE = auto()
    MEMORISE = auto()
    REVIEW = auto()
    REVIEW_REMIND = auto()
    REVIEW_RETENTION = auto()
    STATS = auto()
    MOCK_START = auto()
    MOCK_ANSWER = auto()
    MOCK_GO = auto()
    MOCK_FLAG = auto()
    MOCK_SHEET = auto()
    MOCK_SUBMIT = auto()
    MOCK_QUIT = auto()
    MOCK_GRADE = auto()
    MOCK_REPORT = auto()
    MOCK_REVIEW = auto()
    MISTAKES = auto()
    MISTAKES_PRACTICE = auto()
    MISTAKES_EXPORT = auto()
    FAVORITES = auto()
    FAVORITES_PRACTICE = auto()
    FAVORITES_ADD = auto()
    FAVORITES_REMOVE = auto()
    REPORT = auto()
    REPORTS_LIST = auto()
    REPORTS_RESOLVE = auto()
    REPORTS_DISMISS = auto()
    MISTAKES_CAUSE = auto()
    WEAK = auto()
    READY = auto()
    EXAM_SHOW = auto()
    EXAM_SET = auto()
    EXAM_OFF = auto()
    SETTINGS_SHOW = auto()
    SETTINGS_QUIET = auto()
    SETTINGS_DAY_START = auto()
    BANK_STATS = auto()


class UploadUseCase(Enum):
    """Bank uploads' (bot/application/bank_uploads.BankUploads). Without them /bank list and /bank use fall
    back to the configured banks."""

    BANK_LIST = auto()
    BANK_USE = auto()
    BANK_IMPORT = auto()
    BANK_CONFIRM = auto()


UseCase = AppUseCase | StudyUseCase | UploadUseCase


@dataclass(frozen=True, slots=True)
class Command:
    """One command (or subcommand: path ("daily", "set")) and the use case it calls."""

    path: tuple[str, ...]
    use_case: UseCase  # what carries it out (its handler: see the enums above)
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


TAG = Arg("tag", ArgKind.WORD, max_length=64)
# Several tags, the rest of the line: `/quiz ml cv`, or `tag=ml,cv` (the use case splits them).
TAGS = Arg("tag", ArgKind.TEXT, max_length=200)
PRACTICE = Arg("practice", ArgKind.CHOICE, choices=(
    Choice("next", "cmd.choice.next", ("顺序", "順序", "下一题", "下一題")),
    Choice("memorise", "cmd.choice.memorise", ("memorize", "背题", "背題")),
    # end the practice run with its summary (bot/application/study/drill.py)
    Choice("stop", "cmd.choice.stop", ("结束", "結束", "停止", "结束练习", "結束練習")),
    # the weakest points' items (bot/domain/mastery.py)
    Choice("weak", "cmd.choice.weak", ("薄弱", "弱项", "弱項", "薄弱点", "薄弱點")),
))  # fmt: skip
# A mistake's cause (bot/domain/mastery.py CAUSES), by its key or its name.
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
    Choice("contest", "cmd.choice.contest", ("竞赛", "競賽", "比赛", "比賽")),
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
# A share or a percentage (0.85, 85%): read by bot/application/study/memory_fit.parse_retention, whose refusal
# names the range.
RETENTION = Arg("retention", ArgKind.WORD, max_length=32)
SECONDS = Arg("seconds", ArgKind.INT, minimum=1, maximum=600)

ADMIN = Permission.CHAT_ADMIN
# A question's number: any whole number a store holds; the use case names the bank's or paper's range.
NUMBER = Arg("number", ArgKind.INT, minimum=-(2**31 - 1), maximum=2**31 - 1, item=True)
ITEM = Arg("number", ArgKind.INT, required=True, minimum=-(2**31 - 1), maximum=2**31 - 1, item=True)
STATS_OF = Arg("of", ArgKind.CHOICE, choices=(Choice("group", "cmd.choice.group", ("群", "本群")),))
LEVEL = Arg("level", ArgKind.CHOICE, required=True, choices=tuple(
    Choice(level.value, f"cmd.choice.{level.value}", words) for level, words in SELF_GRADE_WORDS.items()
))  # fmt: skip
# /mock start ordered: the same paper in bank order, options as written (shuffled by default).
MOCK_ORDER = Arg("order", ArgKind.CHOICE, choices=(
    Choice("ordered", "cmd.choice.ordered", ("顺序", "順序", "原序")),
))  # fmt: skip
# /mock submit confirm: hand in although items are unanswered (a bare /mock submit asks first).
MOCK_CONFIRM = Arg("confirm", ArgKind.CHOICE, choices=(
    Choice("confirm", "cmd.choice.confirm", ("确认", "確認", "yes")),
))  # fmt: skip
REPORT_ID = Arg("id", ArgKind.INT, required=True, minimum=1, maximum=2**31 - 1)
NOTE = Arg("note", ArgKind.TEXT, max_length=500)
# /help quiz, /help daily set, /help 练习: one command (or group) by its name in any language.
TOPIC = Arg("command", ArgKind.TEXT, max_length=64)
# /settings quiet off: no quiet hours (else two times, from and until).
QUIET_OFF = Arg("quiet", ArgKind.CHOICE, choices=(Choice("off", "cmd.choice.off", ("关", "關")),))

# fmt: off
CATALOG: tuple[Command, ...] = (
    Command(("start",), AppUseCase.START, scope=Scope.PRIVATE),
    Command(("help",), AppUseCase.HELP, (TOPIC,)),
    # /web: a one-time sign-in link to the web app, only in a private chat (the link is the person's)
    Command(("web",), AppUseCase.WEB, scope=Scope.PRIVATE, aliases=("网页", "網頁", "网页版", "網頁版")),
    Command(("quiz",), StudyUseCase.PRACTISE, (PRACTICE, NUMBER, QTYPE, TAGS), aliases=("练习", "練習")),
    Command(("memorise",), StudyUseCase.MEMORISE, (NUMBER, QTYPE, TAGS),
            aliases=("memorize", "背题", "背題")),
    Command(("review", "due"), StudyUseCase.REVIEW),
    Command(("review", "remind"), StudyUseCase.REVIEW_REMIND, (ON_OFF, Arg("time", ArgKind.TIME)),
            scope=Scope.PRIVATE),
    # the learner's desired retention and memory model (bot/application/study/retention.py): "/review
    # retention 0.85" (or 85%) sets it; bare, it says what their reviews are scheduled with
    Command(("review", "retention"), StudyUseCase.REVIEW_RETENTION, (RETENTION,),
            aliases=("保持率", "记忆保持率", "記憶保持率")),
    Command(("leaderboard",), AppUseCase.LEADERBOARD, (WINDOW, LEADERBOARD_SCOPE)),
    Command(("stats",), StudyUseCase.STATS, (Arg("user", ArgKind.USER), STATS_OF),
            aliases=("进度", "進度")),
    Command(("streak",), AppUseCase.STREAK),
    Command(("tags",), AppUseCase.TAGS),
    Command(("lang",), AppUseCase.LANGUAGE, (Arg("language", ArgKind.LANGUAGE, required=True),),
            permission=Permission.CHAT_ADMIN),
    Command(("tz",), AppUseCase.TIMEZONE, (Arg("timezone", ArgKind.TIMEZONE, required=True),),
            permission=Permission.CHAT_ADMIN),
    Command(("daily", "set"), AppUseCase.DAILY_SET, (
        Arg("time", ArgKind.TIME, required=True),
        Arg("deadline", ArgKind.DURATION),
        TAG,
        Arg("timezone", ArgKind.TIMEZONE),
        MODE,
    ), permission=Permission.CHAT_ADMIN),
    Command(("daily", "off"), AppUseCase.DAILY_OFF, permission=Permission.CHAT_ADMIN),
    Command(("daily", "show"), AppUseCase.DAILY_SHOW),
    Command(("contest", "start"), AppUseCase.CONTEST_START, (QUESTIONS, SECONDS, TAG),
            permission=Permission.CHAT_ADMIN),
    Command(("contest", "stop"), AppUseCase.CONTEST_STOP, permission=Permission.CHAT_ADMIN),
    Command(("contest", "status"), AppUseCase.CONTEST_STATUS),
    Command(("bank", "list"), UploadUseCase.BANK_LIST),
    Command(("bank", "use"), UploadUseCase.BANK_USE,
            (Arg("bank", ArgKind.WORD, required=True, max_length=64),), permission=Permission.CHAT_ADMIN),
    # uploads (bot/application/bank_uploads.py): a file read into a pending bank, then confirmed
    Command(("bank", "import"), UploadUseCase.BANK_IMPORT, (Arg("file", ArgKind.FILE),), permission=ADMIN,
            aliases=("导入", "匯入")),
    Command(("bank", "confirm"), UploadUseCase.BANK_CONFIRM, permission=ADMIN, aliases=("确认", "確認")),
    # question statistics for the bank's owners (bot/application/study/bank_stats.py; it checks the owner)
    Command(("bank", "stats"), StudyUseCase.BANK_STATS, (Arg("bank", ArgKind.WORD, max_length=64),),
            permission=ADMIN, aliases=("统计", "統計")),
    # study tools (bot/application/study/use_cases.py)
    Command(("mock", "start"), StudyUseCase.MOCK_START,
            (MOCK_ORDER, Arg("bank", ArgKind.WORD, max_length=64)), aliases=("开始", "開始")),
    # "/mock 6" shows item 6; "/mock 6 B" answers it.
    Command(("mock", "answer"), StudyUseCase.MOCK_ANSWER,
            (ITEM, Arg("response", ArgKind.TEXT, max_length=2000)), aliases=("答", "a")),
    Command(("mock", "go"), StudyUseCase.MOCK_GO, (NUMBER,), aliases=("看", "第")),
    Command(("mock", "flag"), StudyUseCase.MOCK_FLAG, (NUMBER,), aliases=("标记", "標記")),
    Command(("mock", "sheet"), StudyUseCase.MOCK_SHEET, aliases=("答题卡", "答題卡")),
    Command(("mock", "submit"), StudyUseCase.MOCK_SUBMIT, (MOCK_CONFIRM,), aliases=("交卷",)),
    Command(("mock", "quit"), StudyUseCase.MOCK_QUIT, aliases=("放弃", "放棄")),
    Command(("mock", "grade"), StudyUseCase.MOCK_GRADE, (ITEM, LEVEL), aliases=("自评", "自評")),
    Command(("mock", "report"), StudyUseCase.MOCK_REPORT, aliases=("成绩", "成績")),
    Command(("mock", "review"), StudyUseCase.MOCK_REVIEW, (NUMBER,),
            aliases=("订正", "訂正", "错题", "錯題")),
    Command(("mistakes", "list"), StudyUseCase.MISTAKES, (TAG,)),
    Command(("mistakes", "practice"), StudyUseCase.MISTAKES_PRACTICE, (TAG,), aliases=("练习", "練習")),
    Command(("mistakes", "export"), StudyUseCase.MISTAKES_EXPORT, aliases=("导出", "匯出")),
    # "/mistakes cause 粗心": the question last shown; "/mistakes cause 12 粗心": question 12
    Command(("mistakes", "cause"), StudyUseCase.MISTAKES_CAUSE, (NUMBER, CAUSE), aliases=("原因",)),
    Command(("favorites", "list"), StudyUseCase.FAVORITES),
    Command(("favorites", "practice"), StudyUseCase.FAVORITES_PRACTICE, aliases=("练习", "練習")),
    Command(("favorites", "add"), StudyUseCase.FAVORITES_ADD, (ITEM,), aliases=("加", "收藏")),
    Command(("favorites", "remove"), StudyUseCase.FAVORITES_REMOVE, (ITEM,), aliases=("删", "刪")),
    # The report's own limit (500) is the use case's, told with the length; this one only keeps
    # out what no message of any platform carries.
    Command(("report",), StudyUseCase.REPORT,
            (NUMBER, Arg("text", ArgKind.TEXT, required=True, max_length=6000)),
            aliases=("纠错", "糾錯")),
    # mastery and readiness (bot/domain/mastery.py, bot/domain/readiness.py)
    Command(("weak",), StudyUseCase.WEAK, aliases=("薄弱", "弱项", "弱項")),
    Command(("ready",), StudyUseCase.READY, aliases=("估分", "备考", "備考")),
    # the plan to the exam date and the learner's own settings (bot/application/study/exam.py)
    Command(("exam", "show"), StudyUseCase.EXAM_SHOW, aliases=("查看", "计划", "計劃")),
    Command(("exam", "set"), StudyUseCase.EXAM_SET,
            (Arg("date", ArgKind.DATE, required=True), Arg("budget", ArgKind.MINUTES)),
            aliases=("设置", "設定")),
    Command(("exam", "off"), StudyUseCase.EXAM_OFF, aliases=("关", "關", "取消")),
    Command(("settings", "show"), StudyUseCase.SETTINGS_SHOW, aliases=("查看",)),
    Command(("settings", "quiet"), StudyUseCase.SETTINGS_QUIET,
            (QUIET_OFF, Arg("quiet_from", ArgKind.TIME), Arg("quiet_until", ArgKind.TIME)),
            aliases=("免打扰", "免打擾", "勿扰", "勿擾")),
    Command(("settings", "daystart"), StudyUseCase.SETTINGS_DAY_START,
            (Arg("day_start", ArgKind.TIME, required=True),), aliases=("日界", "换日", "換日")),
    Command(("reports", "list"), StudyUseCase.REPORTS_LIST, permission=ADMIN),
    Command(("reports", "resolve"), StudyUseCase.REPORTS_RESOLVE, (REPORT_ID, NOTE), permission=ADMIN),
    Command(("reports", "dismiss"), StudyUseCase.REPORTS_DISMISS, (REPORT_ID, NOTE), permission=ADMIN),
)
# fmt: on

# What a group command with subcommands does when given none (e.g. "/daily" shows the daily).
DEFAULT_SUBCOMMAND = {"review": "due", "daily": "show", "contest": "status", "bank": "list", "mock": "start",
                      "mistakes": "list", "favorites": "list", "reports": "list", "exam": "show",
                      "settings": "show"}
# ... and given arguments without a subcommand: "/daily 08:30" sets the daily, "/mock 12 B"
# answers item 12 of the mock in progress, "/mistakes ml" lists one tag.
IMPLIED_SUBCOMMAND = {"daily": "set", "mock": "answer", "mistakes": "list", "exam": "set"}
# Other words for a command group on text platforms (Telegram's menu names stay ASCII).
GROUP_ALIASES = {"复习": "review", "複習": "review",
                 "模拟考试": "mock", "模擬考試": "mock", "模考": "mock", "错题本": "mistakes",
                 "錯題本": "mistakes", "收藏": "favorites", "favourites": "favorites",
                 "考试": "exam", "考試": "exam", "设置": "settings", "設定": "settings"}


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
