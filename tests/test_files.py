"""Files a first-time user names: `bank import -o` into a folder that does not exist yet, and
relative `bank_paths` in a config file, read from the file's folder whatever the current one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from bank.loader import load_bank

TESTS = Path(__file__).resolve().parent
SEED = TESTS / "papers" / "seed_000_8cd945649fa5e6b6.txt"


def studybot(*args: str, cwd: Path, data: Path, text_in: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "TOKEN" not in k.upper()}
    env["STUDYBOT_DATA_DIR"] = str(data)
    env.pop("LC_ALL", None)
    env["LANG"] = "en_US.UTF-8"  # these tests read the CLI's English lines
    return subprocess.run([sys.executable, "-m", "studybot", *args], input=text_in, capture_output=True,
                          text=True, timeout=120, env=env, cwd=cwd)  # fmt: skip


def test_import_into_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    result = studybot("bank", "import", str(SEED), "-o", "missing/dir/x.yaml", cwd=tmp_path,
                      data=tmp_path / "d")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert len(load_bank(tmp_path / "missing" / "dir" / "x.yaml").questions) == 62


def test_import_to_a_place_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    result = studybot("bank", "import", str(SEED), "-o", "a-file/x.yaml", cwd=tmp_path, data=tmp_path / "d")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "studybot bank import: cannot write a-file/x.yaml" in result.stderr


def test_relative_bank_paths_are_read_from_the_config_files_folder(tmp_path: Path) -> None:
    setup = tmp_path / "setup"
    (setup / "banks").mkdir(parents=True)
    shutil.copy(TESTS / "banks" / "sample.yaml", setup / "banks" / "sample.yaml")
    bank_id = load_bank(setup / "banks" / "sample.yaml").id
    (setup / "studybot.yaml").write_text(f"language: en\ndefault_bank: {bank_id}\nbank_paths: [banks]\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = studybot("--config", "../setup/studybot.yaml", cwd=elsewhere, data=tmp_path / "d",
                      text_in="/quit\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "studybot console" in result.stdout
