"""Every argument kind reads totally: any string is either a valid value of its kind or refused
with a catalog sentence (an ArgumentError that renders in every language) — never another
exception. And the reproductions of issue 20, each a refusal in the chat's language now."""

from __future__ import annotations

import unicodedata
import zoneinfo
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.application.commands.arguments import ZONE_WORDS, Arg, ArgKind, ArgumentError
from bot.application.commands.catalog import CATALOG
from bot.application.commands.catalog import command as entry
from bot.application.commands.parsing import parse
from bot.application.quiz_settings import QuizError
from bot.domain.daily_times import parse_duration, parse_local_time
from bot.domain.questions import QuestionType
from bot.domain.reading.day_values import MINUTES_HIGH, MINUTES_LOW, parse_date
from bot.locales.i18n import LANGUAGES

ARGS = {f"{arg.name}:{arg.kind}": arg for command in CATALOG for arg in command.args
        if arg.kind is not ArgKind.USER}  # fmt: skip
ZONES = zoneinfo.available_timezones()
# Strings shaped like what each kind takes, near misses included, beside any text at all
# (control characters and lone surrogates too: a platform's JSON can carry "\ud800").
ANY_TEXT = st.text(alphabet=st.characters(codec=None, categories=None), max_size=80)
SHAPED = st.one_of(
    st.from_regex(r"[+-]?[0-9]{1,400}(\.[0-9]*)?", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}[:：][0-9]{1,3}(:[0-9]{1,2})?", fullmatch=True),
    st.from_regex(r"[0-9]{1,320}(\.[0-9]{1,9})? ?[smhdxSMHD]?", fullmatch=True),
    st.sampled_from(sorted(ZONES)).map(lambda z: z.rsplit("/", 1)[0]),  # a folder: America/Argentina
    st.sampled_from(sorted(ZONES)).flatmap(lambda z: st.sampled_from([z, z.lower(), z + "/x", z[:-1]])),
    st.text(alphabet="AZaz_/+-09.", min_size=200, max_size=300),  # longer than a file name may be
    st.sampled_from(["Etc", "US", "America/Argentina", "..", "../etc/passwd", "/", "", " ", "\x00"]),
    st.from_regex(r"[0-9]{1,5}[-/.年][0-9]{1,3}[-/.月][0-9]{1,3}日?", fullmatch=True),  # dates, near misses
    st.from_regex(r"[0-9]{1,6}(\.[0-9]{1,4})? ?(min|m|h|hours|分钟|小时|x)?", fullmatch=True),  # times a day
    st.sampled_from(["总榜", "本周", "開", "關", "全对", "不會", "单选", "多選", "zh-hant", "EN", "背题"]),
)
STRINGS = st.one_of(ANY_TEXT, SHAPED)


def valid(arg: Arg, value: object) -> bool:
    kind = arg.kind
    if kind is ArgKind.INT:
        return type(value) is int and arg.low <= value <= arg.high
    if kind is ArgKind.CHOICE:
        return value in {c.value for c in arg.choices}
    if kind is ArgKind.TIME:
        return isinstance(value, str) and parse_local_time(value) is not None
    if kind is ArgKind.DURATION:
        return type(value) is int and 1 <= value <= 7 * 86400 and parse_duration(f"{value}s") == value
    if kind is ArgKind.DATE:
        return isinstance(value, date) and parse_date(value.isoformat()) == value
    if kind is ArgKind.MINUTES:
        return type(value) is int and MINUTES_LOW <= value <= MINUTES_HIGH
    if kind is ArgKind.TIMEZONE:
        return value in ZONES and zoneinfo.ZoneInfo(str(value)) is not None
    if kind is ArgKind.LANGUAGE:
        return value in LANGUAGES
    if kind is ArgKind.QTYPE:
        return isinstance(value, QuestionType)
    assert isinstance(value, str)
    allowed = "\n\t" if kind is ArgKind.TEXT else ""
    storable = all(unicodedata.category(c) not in ("Cc", "Cs") or c in allowed for c in value)
    return 1 <= len(value) <= arg.longest and storable and value == value.strip()


def refused_in_every_language(error: QuizError) -> None:
    for language in LANGUAGES:
        assert error.render(language).strip()


@pytest.mark.parametrize("key", sorted(ARGS))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=STRINGS)
def test_any_string_is_a_valid_value_or_a_catalog_refusal(key, text):
    arg = ARGS[key]
    try:
        value = arg.read(text)
    except ArgumentError as error:
        refused_in_every_language(error)
        return
    assert valid(arg, value), (text, value)


@settings(max_examples=250, deadline=None)
@given(command=st.sampled_from(CATALOG), words=st.lists(STRINGS, max_size=4))
def test_any_command_line_parses_or_is_refused_with_a_sentence(command, words):
    line = " ".join([f"/{command.name}", *words])
    try:
        parsed = parse(line, bot_name="studybot")
    except QuizError as error:
        refused_in_every_language(error)
        return
    for name, value in parsed.args.items():
        arg = parsed.command.arg(name)
        if arg.kind is not ArgKind.FILE:
            assert valid(arg, value), (line, name, value)


@settings(max_examples=200, deadline=None)
@given(line=ANY_TEXT)
def test_any_line_at_all_parses_or_is_refused(line):
    try:
        parse("/" + line)
    except QuizError as error:
        refused_in_every_language(error)


def test_every_whole_number_argument_has_both_bounds_within_what_stores_and_discord_take():
    for command in CATALOG:
        for arg in command.args:
            if arg.kind is ArgKind.INT:
                assert arg.minimum is not None and arg.maximum is not None, (command.name, arg.name)
                assert -(2**53) < arg.minimum <= arg.maximum < 2**53, (command.name, arg.name)


def test_every_free_text_argument_declares_its_length():
    for command in CATALOG:
        for arg in command.args:
            if arg.kind in (ArgKind.WORD, ArgKind.TEXT) and command.name != "bank import":
                assert arg.max_length is not None, (command.name, arg.name)


# ---------------------------------------------------------------- issue 20's reproductions

REPRODUCTIONS = [
    # a tzdata folder, or a name longer than a file name may be: IsADirectoryError / OSError before
    ("/tz Etc", "时区", "Etc/GMT"),
    ("/tz US", "时区", "US/"),
    ("/daily set 09:30 12h ml America/Argentina", "时区", "America/Argentina/Buenos_Aires"),
    ("/tz " + "Europe/" * 40 + "Paris", "时区", "Asia/Shanghai"),
    # a 309-digit duration: OverflowError (float infinity) before
    ("/daily set 09:30 " + "9" * 309, "截止", "12h"),
    ("/daily set 09:30 " + "9" * 400 + "m", "截止", "12h"),
    # a number with a minimum only: OverflowError out of SQLite before
    ("/reports resolve 18446744073709551616", "编号", "2147483647"),
    ("/reports dismiss " + "9" * 5000, "编号", "2147483647"),
]


@pytest.mark.parametrize(("line", "arg", "hint"), REPRODUCTIONS)
def test_issue_20_reproductions_are_refusals_naming_the_argument(line, arg, hint):
    with pytest.raises(ArgumentError) as caught:
        parse(line)
    zh = caught.value.render("zh-CN")
    assert f"参数“{arg}”有误" in zh and hint in zh and "用法：" in zh, zh
    assert "Bad " in caught.value.render("en")


@pytest.mark.parametrize(("typed", "zone"), [
    ("asia/shanghai", "Asia/Shanghai"), ("Europe/Paris", "Europe/Paris"), ("utc", "UTC"),
    ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
])  # fmt: skip
def test_zone_names_are_taken_in_any_case_and_stored_as_the_database_spells_them(typed, zone):
    assert parse(f"/tz {typed}").args == {"timezone": zone}


def test_a_near_miss_zone_gets_a_suggestion_in_the_chat_language():
    with pytest.raises(ArgumentError) as caught:
        parse("/tz Asia/Shangai")
    assert "是不是 Asia/Shanghai？" in caught.value.render("zh-CN")
    assert "did you mean Asia/Shanghai?" in caught.value.render("en")


def test_the_host_zone_alias_is_not_a_zone_a_chat_can_choose():
    with pytest.raises(ArgumentError):
        parse("/tz localtime")


# ---------------------------------------------------------------- a zone by its everyday name


@pytest.mark.parametrize(
    ("word", "zone"),
    [("上海", "Asia/Shanghai"), ("北京时间", "Asia/Shanghai"), ("北京時間", "Asia/Shanghai"),
     ("北京", "Asia/Shanghai"), ("中国", "Asia/Shanghai"), ("台北", "Asia/Taipei"), ("臺灣", "Asia/Taipei"),
     ("香港", "Asia/Hong_Kong"), ("東京", "Asia/Tokyo"), ("新加坡", "Asia/Singapore"),
     ("倫敦", "Europe/London"),
     ("纽约", "America/New_York"), ("洛杉矶", "America/Los_Angeles"), ("Beijing", "Asia/Shanghai"),
     ("asia/shanghai", "Asia/Shanghai")],
)  # fmt: skip
def test_a_common_zone_is_taken_by_its_chinese_or_english_name(word, zone):
    assert parse(f"/tz {word}").args["timezone"] == zone
    assert entry("daily set").arg("timezone").read(word) == zone


def test_every_zone_word_names_a_zone_of_the_database():
    assert set(ZONE_WORDS.values()) <= ZONES


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh-CN", "参数“时区”有误：不是已知的时区：请用常用城市名（如 北京、台北、香港、东京、伦敦、纽约）"
               "或 IANA 名称，例如 Asia/Shanghai。\n用法：/tz <时区>"),
     ("zh-TW", "參數「時區」有誤：不是已知的時區：請用常用城市名（如 臺北、北京、香港、東京、倫敦、紐約）"
               "或 IANA 名稱，例如 Asia/Taipei。\n用法：/tz <時區>"),
     ("en", "Bad timezone: not a known timezone; use an IANA name, e.g. Asia/Shanghai (a few common names "
            "such as Beijing or Tokyo work too).\nUsage: /tz <timezone>")],
)  # fmt: skip
def test_another_name_is_refused_with_the_names_that_work(language, expected):
    with pytest.raises(QuizError) as refused:
        parse("/tz 火星")
    assert refused.value.render(language) == expected
