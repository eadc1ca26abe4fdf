"""An extra that is not installed (genanki for Anki decks, asyncpg for PostgreSQL) is one
catalog sentence naming the command that installs it from the clone, and exit 1; never a
ModuleNotFoundError traceback. The module is blocked in a real subprocess
(`sys.modules[name] = None` makes its import fail as if it were not installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "bank" / "ai_trainer_2025.yaml"


def _studybot(blocked: str, argv: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    code = (f"import sys; sys.modules[{blocked!r}] = None\n"
            f"from studybot.cli import main; sys.exit(main({argv!r}))")
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "STUDYBOT_DATA_DIR": str(tmp_path / "data"),
                   **env}  # fmt: skip
    environment.pop("STUDYBOT_LANGUAGE", None)
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize(("language", "sentence"), [
    ("en", "this needs the optional part “anki” (genanki), which is not installed; "
           "in the studybot clone run: pip install '.[anki]'"),
    ("zh-CN", "这需要未安装的可选组件“anki”（genanki）；请在 studybot 源码目录中运行：pip install '.[anki]'"),
])
def test_anki_export_without_genanki_names_the_command(tmp_path: Path, language: str, sentence: str) -> None:
    argv = ["--lang", language, "bank", "export", str(BANK), "--format", "anki"]
    done = _studybot("genanki", argv, tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == sentence
    assert "Traceback" not in done.stderr and "studybot[" not in done.stderr
    assert not list(tmp_path.glob("*.apkg"))


def test_postgres_url_without_asyncpg_is_one_line(tmp_path: Path) -> None:
    done = _studybot("asyncpg", ["--lang", "en", "run", "--console"], tmp_path,
                     STUDYBOT_DATABASE_URL="postgresql://user:secret@127.0.0.1:1/db")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "studybot: this needs the optional part “postgres” (asyncpg), which is not installed; "
        "in the studybot clone run: pip install '.[postgres]'")
    assert "secret" not in done.stderr


def test_no_doc_names_the_package_on_the_index() -> None:
    """`pip install 'studybot[EXTRA]'` fails (studybot is not on the index): the docs and
    messages give `pip install '.[EXTRA]'`, run in the clone."""
    places = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *ROOT.glob("adapters/**/*.py"),
              *ROOT.glob("studybot/*.py"), *ROOT.glob("bank/*.py"),
              *ROOT.glob("bot/locales/*/LC_MESSAGES/*.po")]
    wrong = [f"{path.relative_to(ROOT)}:{n}" for path in places
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "studybot[" in line]
    assert not wrong
