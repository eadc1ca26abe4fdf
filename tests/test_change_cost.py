"""What a change costs, measured: in a copy of the tree, add a throw-away command and a
throw-away question type the way docs/architecture.md says, count the files each touched, use
them for real (the command in the console, the type through every shared check of
tests/test_question_types.py), and hold the table in docs/architecture.md to those counts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CATALOGS = [f"bot/locales/{code}/LC_MESSAGES/studybot.po" for code in ("zh_CN", "en", "zh_TW")]
COPIED = ("bot", "adapters", "bank", "studybot", "tests", "docs", "pyproject.toml", "README.md")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sources, without caches, to change."""
    copy = tmp_path_factory.mktemp("tree")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", "*.png", "*.db*")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=ignore)
        else:
            shutil.copy2(source, copy / name)
    return copy


def snapshot(tree: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(tree)): path.read_bytes()
        for path in tree.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def touched(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def edit(tree: Path, name: str, old: str, new: str) -> None:
    path = tree / name
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{name}: the anchor {old!r} moved; update this test's recipe"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def add_entries(tree: Path, entries: dict[str, dict[str, str]]) -> None:
    """msgid → {catalog path → msgstr}, appended to each catalog."""
    for catalog in CATALOGS:
        with (tree / catalog).open("a", encoding="utf-8") as out:
            for msgid, texts in entries.items():
                out.write(f'\nmsgid "{msgid}"\nmsgstr "{texts[catalog]}"\n')


def run(
    tree: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "PYTHONPATH")
    }
    environment.update({"PYTHONPATH": str(tree), "STUDYBOT_DATA_DIR": str(tree / "data"), **(env or {})})
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tree,
        env=environment,
    )


def documented(change: str) -> int:
    """The count docs/architecture.md's table gives for a change."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith(f"| {change} |"))
    return int(re.search(r"(\d+) files", row).group(1))  # type: ignore[union-attr]


def test_a_new_command_touches_five_files_and_answers_in_the_console(tree: Path) -> None:
    before = snapshot(tree)
    edit(
        tree,
        "bot/application/commands/catalog.py",
        "    CONTEST_STATUS = auto()\n",
        "    CONTEST_STATUS = auto()\n    ALIVE = auto()\n",
    )
    edit(
        tree,
        "bot/application/commands/catalog.py",
        '    Command(("tags",), AppUseCase.TAGS),\n',
        '    Command(("tags",), AppUseCase.TAGS),\n'
        '    Command(("alive",), AppUseCase.ALIVE, aliases=("在吗", "在嗎")),\n',
    )
    edit(
        tree,
        "bot/application/app.py",
        "    async def _tags(",
        "    async def _alive(self, parsed: Parsed, caller: Caller, language: str) -> Reply:\n"
        '        return Reply(TextView(t(language, "alive.reply")), language)\n\n'
        "    async def _tags(",
    )
    edit(
        tree,
        "bot/application/app.py",
        "            case AppUseCase.TAGS:\n",
        "            case AppUseCase.ALIVE:\n"
        "                return self._alive\n"
        "            case AppUseCase.TAGS:\n",
    )
    zh, en, tw = CATALOGS
    add_entries(
        tree,
        {
            "cmd.alive.name": {zh: "在吗", en: "alive", tw: "在嗎"},
            "cmd.alive.desc": {zh: "看看机器人是否在线", en: "check the bot is up", tw: "看看機器人是否在線"},
            "alive.reply": {
                zh: "我在，随时可以开始练习。",
                en: "I am here, ready when you are.",
                tw: "我在，隨時可以開始練習。",
            },
        },
    )
    changed = touched(before, snapshot(tree))
    assert changed == {"bot/application/commands/catalog.py", "bot/application/app.py", *CATALOGS}
    assert len(changed) == documented("a new command") == 5

    assert run(tree, "-m", "bot.locales.check").returncode == 0
    console = run(tree, "-m", "studybot", stdin="/在吗\n/alive\n/help 在吗\n/quit\n")
    assert console.returncode == 0, console.stderr
    assert console.stdout.count("我在，随时可以开始练习。") == 2  # by its Chinese name and its id
    assert "看看机器人是否在线" in console.stdout  # /help names it
    (tree / "data").exists() and shutil.rmtree(tree / "data")


def test_a_new_question_type_touches_its_module_its_id_and_its_wording(tree: Path) -> None:
    """A single-choice twin ("pick"): its module, its QuestionType member and its wording are all
    the code; tests/test_question_types.py then runs every shared check on its examples
    unchanged. The README's count adds its own test file and its row in docs/bank-format.md."""
    before = snapshot(tree)
    module = (tree / "bot/domain/question_types/single.py").read_text(encoding="utf-8")
    module = module.replace('"""Single choice (单选题)', '"""A throw-away twin of single choice (择一题)')
    module = module.replace("class Single(", "class Pick(").replace(
        '__all__ = ["Single"]', '__all__ = ["Pick"]'
    )
    module = module.replace("qtype = QuestionType.SINGLE", "qtype = QuestionType.PICK")
    module = re.sub(r"    words = \([^)]*\)", '    words = ("择一", "择一题", "擇一題", "pick")', module)
    (tree / "bot/domain/question_types/pick.py").write_text(module, encoding="utf-8")
    edit(
        tree,
        "bot/domain/questions.py",
        '    ORDERING = "ordering"\n',
        '    ORDERING = "ordering"\n    PICK = "pick"\n',
    )
    zh, en, tw = CATALOGS
    add_entries(
        tree,
        {
            "type.pick": {zh: "择一题", en: "pick one", tw: "擇一題"},
            "question.how_pick": {zh: "选一个选项作答。", en: "Pick one option.", tw: "選一個選項作答。"},
            "import.type.pick": {zh: "择一题", en: "pick", tw: "擇一題"},
            "cmd.word.pick": {zh: "择一", en: "pick", tw: "擇一"},
        },
    )
    changed = touched(before, snapshot(tree))
    assert changed == {"bot/domain/question_types/pick.py", "bot/domain/questions.py", *CATALOGS}
    # and, by the README's count, its own test file and its row in docs/bank-format.md
    assert len(changed) + 2 == documented("a new question type") == 7

    assert run(tree, "-m", "bot.locales.check").returncode == 0
    shared = run(
        tree, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_question_types.py", "-k", "pick"
    )
    assert shared.returncode == 0, shared.stdout[-3000:]
    assert re.search(r"\d+ passed", shared.stdout)
