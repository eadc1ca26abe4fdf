"""What the console says to bad input, in the chat's language only — the console as a real
process, given the inputs issue 9 names — and its /help, which is the catalog's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.application.commands.arguments import ArgKind
from bot.application.commands.catalog import CATALOG
from bot.application.commands.parsing import usage
from bot.locales.check import english_runs
from bot.locales.i18n import t
from tests.test_console import run_console
from tests.test_console_process import SAMPLE_BANK

ANSWERS = "/quiz transformer\n2\nZZZ\n"  # a single-choice question, then two answers it cannot read
BAD_INPUTS = ANSWERS + "/daily 25:99\n/contest start -1 x\n/lang xx\n/quiz nosuchtag\n/nosuchcommand\n"
CONTEST = "/contest start 1 1 evaluation\n"  # one (true/false) question: a singular
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def bank_texts() -> list[str]:
    """What the sample bank's author wrote in Chinese (shown as written, in any chat's language)."""
    bank = yaml.safe_load(SAMPLE_BANK.read_text(encoding="utf-8"))
    texts = [bank["title"]]
    for question in bank["questions"]:
        texts += [
            question["stem"],
            question.get("explanation") or "",
            *(question.get("options") or {}).values(),
        ]
        answers = question.get("answer")
        texts += [str(a) for a in answers] if isinstance(answers, list) else [str(answers)]
    return sorted((text for text in texts if CJK.search(text)), key=len, reverse=True)


def console(tmp_path: Path, language: str, script: str) -> str:
    config = tmp_path / "c.yaml"
    config.write_text(f"language: {language}\ndefault_bank: sample\nbank_paths: [{SAMPLE_BANK}]\n"
                      "contest: {pause_seconds: 0.2}\n")  # fmt: skip
    result = run_console(tmp_path, script + "/quit\n", "--config", str(config))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for text in bank_texts():
        out = out.replace(text, " ")
    return out


def test_a_chinese_console_answers_bad_input_in_chinese_only(tmp_path):
    out = console(tmp_path, "zh-CN", BAD_INPUTS + CONTEST)
    for reply in (
        "无法识别的答案：无法把“2”读作选项字母",
        "无法识别的答案：“ZZZ”像是一个词，不是选项字母",
        "参数“时间”有误",
        "参数“题数”有误",
        "参数“语言”有误",
        "题库中没有符合条件的题目（nosuchtag）",
        "未知命令：/nosuchcommand",
        "竞赛开始：共 1 题，每题 1 秒",
    ):
        assert reply in out
    assert english_runs(out) == []
    blocks = [block for block in out.split("\n\n") if block.strip()]
    assert all(CJK.search(block) for block in blocks), [b for b in blocks if not CJK.search(b)]


def test_an_english_console_answers_bad_input_in_english_only_with_plurals(tmp_path):
    out = console(tmp_path, "en", BAD_INPUTS + CONTEST)
    for reply in (
        "(5 questions)",
        "Couldn't read that answer: Can't read \"2\" as option letters",
        'Couldn\'t read that answer: "ZZZ" looks like a word, not option letters',
        "Bad time: expected a time of day",
        "Bad questions: expected a whole number from 1 to 100.",
        "Bad language: expected one of: zh-CN | zh-TW | en.",
        "No questions in the bank match nosuchtag.",
        "Unknown command: /nosuchcommand.",
        "Contest started: 1 question, 1 s each.",
        "0 players",
    ):
        assert reply in out
    # the true/false hint names the Chinese words it also accepts: "Reply True or False (对/错)"
    assert not CJK.search(out.replace("(对/错)", "")), CJK.findall(out)
    assert not re.search(r"\b1 (questions|players|seconds)\b", out)


@pytest.mark.parametrize("language", ["en", "zh-CN", "zh-TW"])
def test_help_lists_exactly_the_catalogs_commands_for_a_private_chat(tmp_path, language):
    out = console(tmp_path, language, "/help\n")
    rows = [line for line in out.splitlines() if " — " in line]
    assert rows == [
        f"{usage(c, language)} — {t(language, f'{c.key}.desc')}"
        for mine in (False, True)  # everyone's commands, then the admins'
        for c in CATALOG
        if c.scope.allows(True) and (c.permission == "chat_admin") == mine
    ]
    assert t(language, "console.quit_hint") in out


# Choice lists and /help in the chat's language (issue 19, items 6 and 7): a Chinese session of
# wrong choices and help shows no English word of the bot's own (the shared checker, as the issue
# ran it), an English one no Chinese; each choice list names the words the parser takes.
CHOICES = ("/leaderboard yearly\n/review remind maybe\n/stats everyone\n/mock grade 1 meh\n"
           "/daily set 08:00 12h ml Europe/Paris sideways\n/quiz 5 nosuchtype_x nosuch\n/tz Etc\n"
           "/tz Asia/Shangai\n/reports resolve 18446744073709551616\n/help\n/help quiz\n/help 练习\n"
           "/help daily\n/help nosuchcommand\n/review xyz\n/daily foo bar\n")  # fmt: skip
# shared/ lies beside the checkout (CI's clone too); /work/shared on a developer's machine
_BESIDE_TOOL = Path(__file__).resolve().parents[2] / "shared" / "tools" / "english_in_zh.py"
CHECKER = _BESIDE_TOOL if _BESIDE_TOOL.exists() else Path("/work/shared/tools/english_in_zh.py")


def test_a_chinese_session_of_wrong_choices_and_help_shows_only_chinese_words(tmp_path):
    out = console(tmp_path, "zh-CN", CHOICES)
    for shown in ("应为以下之一：总榜 | 本周 | 本月 | 竞赛", "应为以下之一：开 | 关", "应为以下之一：本群",
                  "应为以下之一：全对 | 部分 | 不会", "应为以下之一：按钮 | 表情", "是不是 Etc/GMT？",
                  "是不是 Asia/Shanghai？", "应为 1 到 2147483647 之间的整数", "/quiz 的用法",
                  "[练习方式]：", "顺序 | 背题", "[题型] 单选 | 多选 | 判断 | 填空 | 简答", "/daily 的用法",
                  "没有叫“nosuchcommand”的命令", "/review 后面应为：到期 | 提醒"):  # fmt: skip
        assert shown in out, shown
    assert "未知命令" not in out and "多余的参数" not in out  # /help quiz is not an error any more
    assert english_runs(out) == []
    if CHECKER.exists():  # the issue's own check, when the shared tools are there
        (tmp_path / "out.txt").write_text(out, encoding="utf-8")
        (tmp_path / "in.txt").write_text(CHOICES, encoding="utf-8")
        checked = subprocess.run([sys.executable, str(CHECKER), str(tmp_path / "out.txt"),
                                  str(SAMPLE_BANK.parent), str(tmp_path / "in.txt")],
                                 capture_output=True, text=True, check=False)  # fmt: skip
        assert checked.returncode == 0, checked.stdout


def test_an_english_session_of_wrong_choices_and_help_shows_no_chinese(tmp_path):
    out = console(tmp_path, "en", CHOICES.replace("/help 练习\n", ""))
    for shown in ("expected one of: all | week | month | contest", "expected one of: on | off",
                  "expected one of: full | half | zero", "How to use /quiz", "[practice]: ",
                  "next | memorise", "did you mean Etc/GMT?",
                  'There is no command called "nosuchcommand"'):  # fmt: skip
        assert shown in out, shown
    assert not CJK.search(out), CJK.findall(out)


@pytest.mark.parametrize("language", ["zh-CN", "en"])
def test_every_choice_list_a_help_shows_is_taken_by_the_parser(language):
    from bot.application.commands.help import full_help, takes

    view = full_help(language, private=True)
    for command in CATALOG:
        for arg in command.args:
            if arg.kind in (ArgKind.CHOICE, ArgKind.QTYPE, ArgKind.LANGUAGE):
                shown = takes(arg, language)
                assert any(shown in note for note in view.notes), (command.name, arg.name)
                assert [arg.read(word) for word in shown.split(" | ")] == [
                    arg.read(word) for word in arg.choice_words("en")
                ]  # the same choices, in the language's words
