"""Uploading a bank through the console, as a process: `/bank import PATH` reads a file of this
machine with the same readers as Telegram's upload; a broken file is refused with its problems
and changes nothing; a good one, confirmed, becomes the console's bank and serves the next /quiz,
and is still there in the next run. Over the size limit: refused."""

from __future__ import annotations

from pathlib import Path

from tests.test_console import run_console
from tests.test_console_process import sample_config

UPLOADS = Path(__file__).parent / "banks" / "upload"


def test_a_bank_imported_on_the_console_serves_the_next_quiz(tmp_path: Path) -> None:
    config = str(sample_config(tmp_path))
    script = (f"/bank import {UPLOADS / 'broken.gift'}\n/bank confirm\n/bank list\n"
              f"/bank import {UPLOADS / 'physics.csv'}\n/bank confirm\n/quiz units\nA\n/quit\n")  # fmt: skip
    result = run_console(tmp_path, script, "--config", config)
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "broken.gift was not imported, and nothing changed. The problems:" in out
    assert "[gift]" in out
    assert "No imported bank is waiting here" in out
    assert "Read physics.csv as csv: 2 questions for the bank “physics”." in out
    assert "is now this chat's bank; /bank use physics chooses it again." in out
    assert "Which unit measures force?" in out and "✅ Correct!" in out

    again = run_console(tmp_path, "/bank list\n/quit\n", "--config", config)
    assert "Bank: physics (2 questions)" in again.stdout
    assert "physics — physics (2 questions)" in again.stdout


def test_a_missing_file_and_one_over_the_limit_are_refused(tmp_path: Path) -> None:
    config = str(sample_config(tmp_path, "upload_max_mb: 0.0002\n"))
    script = (f"/bank import {tmp_path / 'nope.csv'}\n/bank import {UPLOADS / 'physics.csv'}\n"
              "/bank list\n/quit\n")
    out = run_console(tmp_path, script, "--config", config).stdout
    assert "Cannot read nope.csv: No such file or directory. Nothing changed." in out
    assert "physics.csv is 0.00023 MB, over the 0.0002 MB limit for an uploaded bank." in out
    assert "physics —" not in out


def test_an_upload_waiting_for_confirm_survives_a_restart(tmp_path: Path) -> None:
    """The upload waiting for `/bank confirm` is in the database, not in the memory of the
    process that read it: the next run (or another process) confirms it."""
    config = str(sample_config(tmp_path))
    first = run_console(tmp_path, f"/bank import {UPLOADS / 'physics.csv'}\n/quit\n", "--config", config)
    assert "Read physics.csv as csv: 2 questions for the bank “physics”." in first.stdout
    again = run_console(tmp_path, "/bank confirm\n/bank confirm\n/quiz units\nA\n/quit\n", "--config", config)
    assert again.returncode == 0, again.stderr
    assert "is now this chat's bank; /bank use physics chooses it again." in again.stdout
    assert again.stdout.count("No imported bank is waiting here") == 1  # confirmed once
    assert "Which unit measures force?" in again.stdout
