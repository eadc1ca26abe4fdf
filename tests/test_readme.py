"""The README's commands, run as a newcomer copies them: the piped console example prints what the
README shows, and CI still finds the test command between its markers."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

from adapters.console.adapter import console_user

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def between_markers(name: str) -> str:
    """The text between `<!-- name -->` and `<!-- /name -->`."""
    match = re.search(rf"<!-- {name} -->\n(.*?)<!-- /{name} -->", README, re.S)
    assert match, f"README.md has no {name} markers"
    return match.group(1)


def fenced_lines(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.startswith("```")]


def shown_output() -> list[str]:
    """The ```text block right after the piped example: what the README says it prints."""
    after = README.split("<!-- /piped-example -->", 1)[1]
    match = re.match(r"\s*```text\n(.*?)```", after, re.S)
    assert match, "the piped example is not followed by its output in a ```text block"
    return [line for line in match.group(1).splitlines() if line.strip() and line.strip() != "…"]


def test_the_piped_example_prints_what_the_readme_shows(tmp_path):
    (command,) = fenced_lines(between_markers("piped-example"))
    assert command.endswith("| studybot")
    # `studybot` on PATH is this interpreter's studybot, whether or not a console script exists.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "studybot"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m studybot "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", STUDYBOT_DATA_DIR=str(tmp_path / "data"),
               PYTHONPATH=str(ROOT))  # fmt: skip
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60,
                            env=env, cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    printed = {line.rstrip() for line in result.stdout.splitlines()}
    name = console_user().display_name
    for line in shown_output():
        line = line.replace("<your login name>", name)
        assert line in printed, f"README shows {line!r}, the example printed:\n{result.stdout}"


def test_ci_reads_the_test_command_from_the_readme():
    # The same extraction as .ci/run, so a README edit cannot silently break CI.
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extraction = re.search(r"test_command=\$\((.*)\)\n", script).group(1)
    result = subprocess.run(["bash", "-c", extraction], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == "pip install '.[test]' && python -m pytest -q"


def test_the_set_up_starts_with_a_virtual_environment():
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = [line for block in re.findall(r"```sh\n(.*?)```", setup, re.S) for line in fenced_lines(block)]
    assert commands[:2] == ["python3 -m venv .venv && . .venv/bin/activate", "pip install . && studybot"]
