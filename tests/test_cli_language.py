"""The `studybot` command speaks the configured language: zh-CN by default, `--lang` and the
locale (LC_ALL, LC_MESSAGES, LANG) honoured; argparse's own words ("usage:", "options:",
"error:") included, and the sub-commands by their names in that language (题库 检查, 題庫 檢查;
the English names work in every language). Run as a real process; a Chinese run is checked with
the shared english_in_zh tool (the words a person types — format names, file names — are its
input; sub-commands are not: a Chinese run never names an English one), an English run for
Chinese characters."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bank.check_text import check_text
from bank.loader import load_bank_report
from studybot.cli_language import cli_language, split_lang_option

HERE = Path(__file__).parent
ROOT = HERE.parent
BROKEN = HERE / "banks" / "broken"
# shared/ lies beside the checkout (CI's clone too); /work/shared on a developer's machine
_BESIDE_TOOL = Path(__file__).resolve().parents[2] / "shared" / "tools" / "english_in_zh.py"
TOOL = _BESIDE_TOOL if _BESIDE_TOOL.exists() else Path("/work/shared/tools/english_in_zh.py")
# What a person types at this command: its name, format names (values of --format), and the pip
# command the help names for an extra. Not the sub-commands: Chinese output names them in Chinese.
TYPED = "studybot paper aiken gift csv xlsx docx apkg pdf anki pip install\n"
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")


def studybot(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE") and "TOKEN" not in k}  # fmt: skip
    base.update(env, STUDYBOT_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "studybot", *args], capture_output=True, text=True,
                          timeout=120, env=base, cwd=tmp_path)  # fmt: skip


def no_english(text: str, tmp_path: Path, bank_dir: Path = ROOT / "bank") -> None:
    """The shared tool finds no English word of the bot's own in `text` (`bank_dir`: the banks
    whose own text the output may quote)."""
    out, typed = tmp_path / "out.txt", tmp_path / "typed.txt"
    out.write_text(text, encoding="utf-8")
    typed.write_text(TYPED, encoding="utf-8")
    found = subprocess.run([sys.executable, str(TOOL), str(out), str(bank_dir), str(typed)],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert found.returncode == 0, found.stdout + "\n---\n" + text


needs_tool = pytest.mark.skipif(not TOOL.exists(), reason="the shared english_in_zh tool is not here")


@needs_tool
@pytest.mark.parametrize("args", [
    ("--help",), ("bank", "--help"), ("bank", "check", "--help"), ("bank", "import", "--help"),
    ("bank", "export", "--help"), ("run", "--help"),
])  # fmt: skip
def test_help_is_chinese_by_default(args: tuple[str, ...], tmp_path: Path) -> None:
    result = studybot(*args, tmp_path=tmp_path, LANG="C.UTF-8")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("用法：studybot")
    assert "选项：" in result.stdout and "显示此帮助信息并退出" in result.stdout
    no_english(result.stdout + result.stderr, tmp_path)


@needs_tool
def test_bank_check_of_a_bad_file_is_chinese(tmp_path: Path) -> None:
    result = studybot(
        "bank", "check", "--no-cache", *map(str, sorted(BROKEN.glob("*.yaml"))), tmp_path=tmp_path
    )
    assert result.returncode == 1
    assert "many_errors.yaml：第 15 行：[m1] 答案 F 不在选项 A, B, C 之中" in result.stdout
    assert "未通过，8 个错误" in result.stdout
    no_english(result.stdout + result.stderr, tmp_path, BROKEN)  # the files' own words may be quoted


@needs_tool
def test_argparse_errors_and_a_missing_file_are_chinese(tmp_path: Path) -> None:
    wrong = studybot("bank", "frob", tmp_path=tmp_path)
    assert wrong.returncode == 2 and "studybot 题库：错误：" in wrong.stderr, wrong.stderr
    missing_arg = studybot("bank", "import", tmp_path=tmp_path)
    assert "缺少以下参数：源文件" in missing_arg.stderr
    missing = studybot("bank", "import", str(tmp_path / "nope.txt"), tmp_path=tmp_path)
    assert missing.returncode == 2 and "文件或目录不存在" in missing.stderr, missing.stderr
    checked = studybot("bank", "check", str(tmp_path / "nope.yaml"), tmp_path=tmp_path)
    assert "文件或目录不存在" in checked.stdout
    typed = "\n".join(r.stdout + r.stderr for r in (wrong, missing_arg, missing, checked))
    no_english(typed.replace("'frob'", "''"), tmp_path)  # the word typed, echoed back


@needs_tool
def test_bank_import_output_is_chinese(tmp_path: Path) -> None:
    src = tmp_path / "cut.txt"
    paper = "一、单选题\n1. 以下哪个是优化器（ ）\nA. 甲  B. 乙\n答案：A\n2. 以下哪个对（ ）\nA. 甲  B. 乙\n"
    src.write_text(paper, encoding="utf-8")
    result = studybot("bank", "import", str(src), "-o", str(tmp_path / "cut.yaml"), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "试卷在这道题中间结束了（没有答案）" in result.stdout
    assert "已写入" in result.stdout
    damaged = tmp_path / "deck.apkg"
    damaged.write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    refused = studybot("bank", "import", str(damaged), tmp_path=tmp_path)
    assert refused.returncode == 1 and "压缩文件已损坏" in refused.stderr, refused.stderr
    no_english(
        (result.stdout + refused.stdout + refused.stderr).replace("'cut'", "''"), tmp_path
    )  # file name


def test_english_on_request_has_no_chinese(tmp_path: Path) -> None:
    runs = [
        studybot("--lang", "en", "--help", tmp_path=tmp_path),
        studybot("bank", "check", "--help", tmp_path=tmp_path, LANG="en_US.UTF-8"),
        studybot(
            "bank",
            "check",
            "--no-cache",
            str(BROKEN / "many_errors.yaml"),
            tmp_path=tmp_path,
            LC_ALL="en_GB.UTF-8",
            LANG="zh_CN.UTF-8",
        ),
        studybot("bank", "frob", "--lang=en", tmp_path=tmp_path),
        studybot("bank", "import", str(tmp_path / "nope.txt"), tmp_path=tmp_path, LANG="en_US.UTF-8"),
    ]
    text = "\n".join(r.stdout + r.stderr for r in runs)
    assert runs[0].stdout.startswith("usage: studybot") and "show this help message and exit" in text
    assert "many_errors.yaml:15: [m1] answer F is not among the options A, B, C" in text
    assert "No such file or directory" in text and "error: argument" in text
    assert not CJK.search(text), CJK.findall(text)[:10]


def test_traditional_chinese_from_the_locale(tmp_path: Path) -> None:
    result = studybot("bank", "check", "--help", tmp_path=tmp_path, LC_ALL="zh_TW.UTF-8", LANG="en_US.UTF-8")
    assert result.stdout.startswith("用法：") and "顯示" in result.stdout


def test_the_language_is_chosen_in_gettext_order() -> None:
    assert cli_language(None, {}) == "zh-CN"
    assert cli_language(None, {"LANG": "C.UTF-8"}) == "zh-CN"
    assert cli_language(None, {"LANG": "en_US.UTF-8"}) == "en"
    assert cli_language(None, {"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}) == "zh-TW"
    assert cli_language(None, {"LANG": "en_US.UTF-8", "LC_ALL": "POSIX"}) == "en"  # C/POSIX name none of ours
    assert cli_language("en", {"LC_ALL": "zh_CN.UTF-8"}) == "en"
    assert split_lang_option(["bank", "check", "--lang", "en", "x.yaml"]) == (
        "en",
        ["bank", "check", "x.yaml"],
    )
    assert split_lang_option(["--lang=zh-TW", "--", "--lang"]) == ("zh-TW", ["--", "--lang"])


@pytest.mark.parametrize("path", sorted(BROKEN.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_checker_sentence_has_its_chinese(path: Path) -> None:
    """A checker sentence without its pattern in bank/check_text.py would be shown as the generic
    `check.other`: none of the broken fixtures' problems is."""
    _, errors, warnings = load_bank_report(path)
    for problem in errors + warnings:
        for language in ("zh-CN", "zh-TW"):
            text = check_text(language, problem.message)
            assert "docs/bank-format.md" not in text, problem.message
            assert not re.search(r"[A-Za-z]{3,} [A-Za-z]{3,}", re.sub(r"'[^']*'|\^\S+", "", text)), (
                problem.message,
                text,
            )


@needs_tool
def test_a_chinese_session_names_the_chinese_commands(tmp_path: Path) -> None:
    """Help, usage lines, errors and hints name 题库 检查 / 导入 / 导出, never an English
    sub-command; the English names (as the docs use them) and the Chinese ones both run."""
    paper = tmp_path / "paper.txt"
    paper.write_text("一、单选题\n1. 哪个是优化器（ ）\nA. 甲  B. 乙\n2. 哪个对（ ）\nA. 甲  B. 乙\n"
                     "参考答案\n题号\t1\t2\n答案\tA\t\n", encoding="utf-8")  # fmt: skip
    (tmp_path / "notes.odt").write_bytes(b"x")
    runs = {
        "help": studybot("--help", tmp_path=tmp_path),
        "bank help": studybot("bank", "--help", tmp_path=tmp_path),
        "import help": studybot("题库", "导入", "--help", tmp_path=tmp_path),
        "import": studybot("bank", "import", str(paper), "-o", "paper.yaml", tmp_path=tmp_path),
        "import zh": studybot("题库", "导入", str(paper), "-o", "again.yaml", tmp_path=tmp_path),
        "check": studybot("bank", "check", "paper.yaml", tmp_path=tmp_path),
        "export": studybot("题库", "导出", "paper.yaml", "--format", "csv", "-o", "o.csv", tmp_path=tmp_path),
        "stats help": studybot("题库", "统计", "--help", tmp_path=tmp_path),
        "outbox help": studybot("发件箱", "--help", tmp_path=tmp_path),
        "run help": studybot("运行", "--help", tmp_path=tmp_path),
        "missing": studybot("bank", "import", "nope.txt", tmp_path=tmp_path),
        "bad format": studybot("bank", "import", str(paper), "--format", "frob", tmp_path=tmp_path),
        "unreadable": studybot("bank", "import", "notes.odt", tmp_path=tmp_path),
        "wrong command": studybot("题库", "frob", tmp_path=tmp_path),
    }
    codes = {name: r.returncode for name, r in runs.items()}
    assert codes == {**dict.fromkeys(runs, 0), "missing": 2, "bad format": 2, "unreadable": 1,
                     "wrong command": 2}, {n: runs[n].stderr for n in runs}  # fmt: skip
    assert "    题库 " in runs["help"].stdout and "    检查 " in runs["bank help"].stdout
    assert runs["import help"].stdout.startswith("用法：studybot 题库 导入 ")
    assert "第 2 题没有答案（答案表这一格是空的）" in runs["import"].stdout
    assert "然后运行 `studybot 题库 检查 paper.yaml`" in runs["import"].stdout
    assert "（可选：'检查', '导入', '导出', '统计'）" in runs["wrong command"].stderr
    assert "共 0 道题 -> 题库 " in runs["unreadable"].stderr
    text = "\n".join(r.stdout + r.stderr for r in runs.values())
    no_english(text.replace("'frob'", "''").replace("'notes'", "''"), tmp_path)  # typed, echoed back
    taiwan = studybot("--lang", "zh-TW", "題庫", "匯入", str(paper), "-o", "tw.yaml", tmp_path=tmp_path)
    assert taiwan.returncode == 0 and "然後執行 `studybot 題庫 檢查 tw.yaml`" in taiwan.stdout
    assert studybot("--lang", "zh-TW", "題庫", "--help", tmp_path=tmp_path).stdout.startswith(
        "用法：studybot 題庫 "
    )


def test_english_output_names_the_english_commands(tmp_path: Path) -> None:
    paper = tmp_path / "paper.txt"
    paper.write_text("1. Which is an optimizer?\nA. Adam\nB. ReLU\nAnswer: A\n", encoding="utf-8")
    done = studybot("--lang", "en", "题库", "导入", str(paper), "-o", "p.yaml", tmp_path=tmp_path)
    assert done.returncode == 0 and "then run `studybot bank check p.yaml`" in done.stdout, done.stdout
    helped = studybot("--lang", "en", "bank", "--help", tmp_path=tmp_path)
    assert "    check " in helped.stdout and not CJK.search(helped.stdout), helped.stdout
    wrong = studybot("--lang", "en", "bank", "frob", tmp_path=tmp_path)
    assert "(choose from 'check', 'import', 'export', 'stats')" in wrong.stderr, wrong.stderr
