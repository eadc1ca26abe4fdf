"""The command catalog and the text grammar every text platform shares: commands, typed
arguments, and refusals in the chat's language only."""

from __future__ import annotations

import re

import pytest

from bot.application.commands.arguments import ArgKind
from bot.application.commands.catalog import CATALOG, DEFAULT_SUBCOMMAND, groups
from bot.application.commands.parsing import parse, usage
from bot.application.quiz_settings import QuizError
from bot.domain.questions import QuestionType
from bot.locales.i18n import LANGUAGES, catalog, keys, t

PARSED = [
    ("/quiz", "quiz", {}),
    ("/quiz judge", "quiz", {"type": QuestionType.JUDGE}),
    ("/quiz 多选", "quiz", {"type": QuestionType.MULTI}),
    ("/quiz 判断题 ml", "quiz", {"type": QuestionType.JUDGE, "tag": "ml"}),
    ("/quiz ml", "quiz", {"tag": "ml"}),
    ("/quiz tag=judge", "quiz", {"tag": "judge"}),
    ("/QUIZ", "quiz", {}),
    ("/quiz@studybot", "quiz", {}),
    ("/contest", "contest status", {}),
    ("/contest start", "contest start", {}),
    ("/contest start 5", "contest start", {"questions": 5}),
    ("/contest start 5 30", "contest start", {"questions": 5, "seconds": 30}),
    ("/contest start seconds=30", "contest start", {"seconds": 30}),
    ("/contest start 5 ml", "contest start", {"questions": 5, "tag": "ml"}),
    ("/daily 08:30", "daily set", {"time": "08:30"}),
    ("/contest start 秒数=30", "contest start", {"seconds": 30}),
    ("/daily", "daily show", {}),
    ("/daily set 08:30", "daily set", {"time": "08:30"}),
    ("/daily set 8:05 12h", "daily set", {"time": "08:05", "deadline": 43200}),
    ("/daily set 08:30 ml", "daily set", {"time": "08:30", "tag": "ml"}),
    ("/daily set 08:30 30m ml Asia/Tokyo reactions", "daily set",
     {"time": "08:30", "deadline": 1800, "tag": "ml", "timezone": "Asia/Tokyo", "mode": "reactions"}),
    ("/daily off", "daily off", {}),
    ("/leaderboard week", "leaderboard", {"window": "week"}),
    ("/leaderboard 本月 server", "leaderboard", {"window": "month", "scope": "server"}),
    ("/lang en", "lang", {"language": "en"}),
    ("/lang zh", "lang", {"language": "zh-CN"}),
    ("/lang zh-TW", "lang", {"language": "zh-TW"}),
    ("/lang zh-hant", "lang", {"language": "zh-TW"}),
    ("/tz America/New_York", "tz", {"timezone": "America/New_York"}),
    ("/bank", "bank list", {}),
    ("/bank use ai_trainer_2025", "bank use", {"bank": "ai_trainer_2025"}),
]  # fmt: skip


@pytest.mark.parametrize(("line", "name", "args"), PARSED)
def test_parse(line, name, args):
    parsed = parse(line, bot_name="studybot")
    assert parsed.command.name == name
    assert parsed.args == args


REFUSED = [
    ("/contest start -1 x", "题数", "questions", "1", "100"),
    ("/contest start 0 0", "题数", "questions", "1", "100"),
    ("/contest start 5 601", "秒数", "seconds", "1", "600"),
    ("/contest start 5 2.5", "秒数", "seconds", "1", "600"),
    ("/daily set 08:30 12x", "截止", "deadline", "12h", "12h"),
    ("/daily set 25:99", "时间", "time", "HH:MM", "08:30"),
    ("/daily set", "时间", "time", "/daily 设置", "/daily set"),
    ("/daily set 08:30 12h ml Mars/Base", "时区", "timezone", "Asia/Shanghai", "Asia/Shanghai"),
    ("/lang xx", "语言", "language", "zh-CN", "zh-CN"),
    ("/leaderboard yearly", "时段", "window", "总榜 | 本周 | 本月 | 竞赛", "all | week | month | contest"),
    ("/review remind maybe", "开关", "switch", "开 | 关", "on | off"),
    ("/stats everyone", "范围", "of", "本群", "group"),
    ("/mock grade 3 meh", "自评", "level", "全对 | 部分 | 不会", "full | half | zero"),
    ("/quiz 5 单选 ml x" + "y" * 300, "标签", "tag", "200", "200"),
]


@pytest.mark.parametrize(("line", "zh_arg", "en_arg", "zh_hint", "en_hint"), REFUSED)
def test_refusals_name_the_argument_in_the_chat_language(line, zh_arg, en_arg, zh_hint, en_hint):
    with pytest.raises(QuizError) as caught:
        parse(line)
    zh, en = caught.value.render("zh-CN"), caught.value.render("en")
    assert f"“{zh_arg}”" in zh and zh_hint in zh and "用法：" in zh
    assert f"Bad {en_arg}:" in en and en_hint in en and "Usage:" in en
    assert not _english_words(zh), zh  # a Chinese chat sees no English sentence
    assert not re.search(r"[\u4e00-\u9fff]", en), en


@pytest.mark.parametrize("line", ["/nosuchcommand", "/daily foo", "/streak extra", "/quiz@otherbot"])
def test_unknown_commands_and_extra_words(line):
    with pytest.raises(QuizError) as caught:
        parse(line, bot_name="studybot")
    assert not _english_words(caught.value.render("zh-CN"))
    assert not re.search(r"[\u4e00-\u9fff]", caught.value.render("en"))


def test_every_catalog_wording_exists_in_every_language():
    known = set(keys())
    for command in CATALOG:
        for key in (f"{command.key}.desc",):
            assert key in known, key
        for arg in command.args:
            assert arg.name_key in known and arg.desc_key in known, arg.name
            for choice in arg.choices:
                assert choice.label_key in known, choice.label_key
    for group, subs in groups().items():
        if subs:
            assert f"cmd.{group}.desc" in known
            assert DEFAULT_SUBCOMMAND[group] in {s.path[1] for s in subs}


def test_usage_lists_arguments_in_declared_order():
    assert usage(parse("/contest start").command, "en") == "/contest start [questions] [seconds] [tag]"
    daily_set = parse("/daily set 08:30").command
    assert usage(daily_set, "zh-CN") == "/daily 设置 <时间> [截止] [标签] [时区] [方式]"


def test_usage_names_the_subcommand_as_the_chat_does_and_that_word_is_read():
    """A Chinese chat's usage line has no English word of the bot's own: the subcommand by its
    name in the chat's language, which the parser reads as it reads `set` (in any language)."""
    exam_set = parse("/exam set 2026-12-20").command
    assert usage(exam_set, "zh-CN") == "/exam 设置 <日期> [每天时长]"
    assert usage(exam_set, "zh-TW") == "/exam 設定 <日期> [每天時長]"
    assert usage(exam_set, "en") == "/exam set <date> [time_a_day]"
    for line in ("/exam 设置 2026-12-20", "/exam 設定 2026-12-20", "/exam 2026-12-20"):
        assert parse(line).command is exam_set, line


def test_user_arguments_are_not_typed_on_text_platforms():
    stats = parse("/stats").command
    assert [a.kind for a in stats.args] == [ArgKind.USER, ArgKind.CHOICE]  # the user, then "group"
    assert usage(stats, "en") == "/stats [of]"
    for language in LANGUAGES:
        assert t(language, stats.args[0].name_key)


def _english_words(text: str) -> list[str]:
    """Runs of two or more English words, outside commands, placeholders and examples."""
    cleaned = re.sub(r"/[a-z@_ ]+|[A-Z][a-z]+/[A-Za-z_]+|HH:MM|\d+[hms]\b", "", text)
    return re.findall(r"[A-Za-z]{2,}(?:\s+[A-Za-z]{2,})+", cleaned)


# Every choice list a chat can see (issue 19, item 6): the words it shows in a language are words
# the parser takes, and a Chinese one shows no English word of the bot's own.
CHOICE_ARGS = {f"{c.name}:{a.name}": (c, a) for c in CATALOG for a in c.args
               if a.kind in (ArgKind.CHOICE, ArgKind.QTYPE, ArgKind.LANGUAGE)}  # fmt: skip


@pytest.mark.parametrize("key", sorted(CHOICE_ARGS))
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_choice_list_shows_the_words_the_parser_takes_in_that_language(key, language):
    _, arg = CHOICE_ARGS[key]
    words = arg.choice_words(language)
    assert len(words) == len(set(words)) >= 1
    for word in words:
        assert arg.read(word) is not None
    if language != "en" and arg.kind is not ArgKind.LANGUAGE:
        assert not any(re.search(r"[A-Za-z]{3,}", w) for w in words), words


@pytest.mark.parametrize("key", sorted(CHOICE_ARGS))
def test_a_refused_choice_lists_the_chat_language_words(key):
    _, arg = CHOICE_ARGS[key]
    with pytest.raises(QuizError) as caught:
        arg.read("不是选项zz")
    zh, en = caught.value.render("zh-CN"), caught.value.render("en")
    assert " | ".join(arg.choice_words("zh-CN")) in zh and " | ".join(arg.choice_words("en")) in en
    if arg.kind is not ArgKind.LANGUAGE:
        assert not re.search(r"[A-Za-z]{3,}", zh.replace("不是选项zz", "")), zh


def test_every_choice_has_its_typed_word_in_every_language():
    known = set(keys())
    for _, arg in CHOICE_ARGS.values():
        for choice in arg.choices:
            assert choice.word_key in known, choice.word_key


def test_an_empty_selection_names_the_type_in_the_chat_language():
    """Issue 19: "题库中没有符合条件的题目（多选 / single）" named the type by its English id."""
    from bot.application.quiz_settings import no_questions

    refusal = no_questions("ml", QuestionType.MULTI)
    zh = refusal.render("zh-CN")
    assert zh.startswith("题库中没有符合条件的题目") and "多选题" in zh and "multi" not in zh
    assert "多選題" in refusal.render("zh-TW") and "Multiple choice" in refusal.render("en")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("private", [True, False])
def test_help_for_every_command_renders_in_every_language_and_place(language, private):
    from bot.application.commands.help import command_help, full_help
    from bot.application.reply_text import render_help

    texts = [render_help(full_help(language, private))]
    for command in CATALOG:
        shown = command_help(command.name, language, private)
        assert [row.usage for row in shown.rows] == [usage(command, language)]
        if not command.scope.allows(private):
            assert shown.notes == (t(language, "error.group_only" if private else "error.private_only"),)
        texts.append(render_help(shown))
    for name in groups():
        texts.append(render_help(command_help(name, language, private)))
    if language == "en":
        assert not any(re.search(r"[\u4e00-\u9fff]", text) for text in texts)
    else:
        assert not [w for text in texts for w in re.findall(r"(?<![/\w.\-])[A-Za-z]{3,}(?![\w.\-/])",
                                                            re.sub(r"/[a-z_]+(?: [a-z_]+)*", " ", text))
                    if (w.lower() not in {"csv", "xlsx", "docx", "aiken", "gift", "iana"}
                    and not re.fullmatch(r"[A-Z][a-z]+", w)) or w in ("Excel", "Word")]  # fmt: skip


def test_help_names_a_missing_command():
    from bot.application.commands.help import command_help

    with pytest.raises(QuizError) as caught:
        command_help("nosuch", "zh-CN", True)
    assert caught.value.render("zh-CN") == "没有叫“nosuch”的命令。发送 /help 查看全部命令。"


def test_a_wrong_subcommand_lists_the_subcommands_in_the_chat_language():
    """Issue 19: `/review xyz` showed "due | remind" in a Chinese chat."""
    with pytest.raises(QuizError) as caught:
        parse("/review xyz")
    assert caught.value.render("zh-CN") == "/review 后面应为：到期 | 提醒 | 保持率"
    assert caught.value.render("en") == "/review takes one of: due | remind | retention"
    assert parse("/review 提醒 开 08:00").command.name == "review remind"
    assert parse("/daily 設定 08:30").command.name == "daily set"
    assert parse("/favorites 收藏 3").command.name == "favorites add"  # an alias wins over a menu name


@pytest.mark.parametrize("language", ["zh-CN", "zh-TW"])
def test_a_chinese_chat_names_every_subcommand_in_its_own_words(language):
    """The hints name a subcommand as /help does in that chat (`/mock 交卷`, not `/mock submit`,
    beside `/mock 交卷 确认` on the same screen), and every word they name is one the parser
    reads as that subcommand."""
    from bot.application.commands.help import full_help
    from bot.application.reply_text import render_help

    subcommands = {c.path[0]: {*groups()[c.path[0]]} for c in CATALOG if len(c.path) == 2}
    english = {(group, word) for group, cs in subcommands.items() for c in cs
               for word in (c.path[1], *c.aliases) if word.isascii()}  # fmt: skip
    messages = catalog(language).messages.values()
    templates = [m for ms in messages for m in ((ms,) if isinstance(ms, str) else ms)]
    said = [*templates, render_help(full_help(language, private=True))]
    named = [(m.group(1), m.group(2), text) for text in said for m in re.finditer(r"/([a-z_]+) (\S+)", text)]
    assert not [(g, w, text) for g, w, text in named if (g, w) in english], "an English subcommand"
    hints = {"/mock 交卷": "mock submit", "/mock 答題卡": "mock sheet", "/mock 订正 3": "mock review",
             "/mistakes 原因 12 粗心": "mistakes cause", "/mistakes 練錯題": "mistakes practice",
             "/settings 免打扰 关": "settings quiet", "/settings 勿擾 關": "settings quiet",
             "/bank 确认": "bank confirm", "/contest 結束": "contest stop",
             "/reports 驳回 3": "reports dismiss",
             "/review 保持率 0.85": "review retention", "/favorites 收藏题 3": "favorites add"}
    for line, name in hints.items():
        assert parse(line).command.name == name, line
    assert parse("/quiz 薄弱").args["practice"] == "weak" and parse("/quiz 順序").args["practice"] == "next"
