"""The console as a real process with piped input: signals, Ctrl-D, multi-line and oversized
answers, the log kept out of the conversation, and a timed mock handing in by itself."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.locales.i18n import t
from tests.process import BotProcess
from tests.short_mock import ITEMS, REMIND_MINUTES, TIMEOUT, TOTAL, short_paper_file
from tests.test_console import run_console
from tests.waits import HANG

SAMPLE_BANK = Path(__file__).resolve().parent / "banks" / "sample.yaml"
READY = "studybot console"
ZH = "zh-CN"


def sample_config(tmp_path: Path, extra: str = "") -> Path:
    config = tmp_path / "c.yaml"
    config.write_text(f"language: en\ndefault_bank: sample\nbank_paths: [{SAMPLE_BANK}]\n{extra}")
    return config


def stored_responses(tmp_path: Path) -> list[str]:
    with sqlite3.connect(tmp_path / "data" / "studybot.db") as db:
        return [row[0] for row in db.execute("SELECT response FROM answers ORDER BY id")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_a_signal_stops_the_console_at_once_while_it_waits_for_input(tmp_path, sig):
    bot = await BotProcess.start(tmp_path / "data", sample_config(tmp_path))
    await bot.wait_for(READY)
    bot.send("/quiz loss")
    await bot.wait_for("Practice · Q")
    bot.proc.send_signal(sig)  # stdin stays open: the console is blocked reading it
    await bot.wait_for("Bye!", timeout=HANG)
    async with asyncio.timeout(10):
        code = await bot.proc.wait()
    assert code == 0
    assert bot.output.rstrip().endswith("Bye!")
    assert "Traceback" not in bot.output


async def test_sigint_in_the_middle_of_a_scripted_contest_stops_it_too(tmp_path):
    bot = await BotProcess.start(tmp_path / "data", sample_config(tmp_path))
    await bot.wait_for(READY)
    bot.send("/contest start 3 60")
    bot.send("/quit")  # a script's /quit waits for the contest to finish...
    await bot.wait_for("Question 1 of 3")
    bot.proc.send_signal(signal.SIGINT)  # ...but Ctrl-C does not
    await bot.wait_for("Bye!", timeout=HANG)
    async with asyncio.timeout(10):
        assert await bot.proc.wait() == 0


def test_end_of_input_says_goodbye(tmp_path):
    result = run_console(tmp_path, "/lang en\n/quiz\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("Bye!")
    assert result.stdout.count("Bye!") == 1


def test_a_trailing_backslash_continues_an_answer_on_the_next_line(tmp_path):
    config = sample_config(tmp_path)
    # fill-in: the two halves of 交叉熵 on two lines; then a short answer over three lines
    script = "/quiz loss\n交叉\\\n熵\n/quiz data\n去重\\\n缺失值\\\n异常值\nfull\n/quit\n"
    result = run_console(tmp_path, script, "--config", str(config))
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "✅ Correct!" in out
    assert "Couldn't read" not in out and "No open question" not in out
    assert "Answer recorded. Compare with the reference" in out and "Self-graded:" in out
    assert stored_responses(tmp_path) == ["交叉\n熵", "去重\n缺失值\n异常值"]


def test_without_a_backslash_each_line_is_its_own_input(tmp_path):
    config = sample_config(tmp_path)
    result = run_console(tmp_path, "/quiz loss\n交叉\n熵\n/quit\n", "--config", str(config))
    assert "❌ Wrong." in result.stdout  # 交叉 is graded alone...
    assert stored_responses(tmp_path) == ["交叉"]  # ...and 熵 is refused as a second answer


def test_a_huge_answer_is_refused_not_stored_or_echoed(tmp_path):
    config = sample_config(tmp_path)
    huge = "交叉熵" * 400_000  # 1.2 million characters on one line
    result = run_console(tmp_path, f"/quiz loss\n{huge}\n/stats\n/quit\n", "--config", str(config))
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "the answer is too long; at most 2000 characters." in out
    assert len(out) < 5000 and "交叉熵交叉熵" not in out
    assert stored_responses(tmp_path) == []
    assert "0 answered" in out


def test_log_lines_go_to_a_file_not_into_the_conversation(tmp_path):
    config = sample_config(tmp_path, "log_level: INFO\n")
    result = run_console(tmp_path, "/daily 07:30\n/quit\n", "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert "Daily question set" in result.stdout
    assert "INFO" not in result.stdout + result.stderr
    log = (tmp_path / "data" / "studybot.log").read_text()
    assert "INFO studybot.daily: daily for chat" in log


def test_private_practice_allows_more_than_six_questions_a_minute(tmp_path):
    config = sample_config(tmp_path)
    result = run_console(tmp_path, "/quiz\n" * 20 + "/quit\n", "--config", str(config))
    assert result.stdout.count("Practice · Q") == 20
    assert "Too fast" not in result.stdout


def test_the_private_limit_is_a_setting(tmp_path):
    config = sample_config(tmp_path, "quiz_per_minute: {private: 3}\n")
    result = run_console(tmp_path, "/quiz\n" * 4 + "/quit\n", "--config", str(config))
    assert result.stdout.count("Practice · Q") == 3
    assert "Too fast; try again in" in result.stdout


def test_a_bad_limit_is_refused_with_the_key(tmp_path):
    config = sample_config(tmp_path, "quiz_per_minute: {private: 0}\n")
    result = subprocess.run(
        [sys.executable, "-m", "studybot", "--config", str(config)],
        input="", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "quiz_per_minute.private" in result.stderr


async def test_a_timed_mock_reminds_and_hands_in_by_itself_with_nothing_typed(tmp_path):
    """The real scheduler and clock: after `/mock` nothing more is typed; the reminder and then, at
    the deadline, the hand-in notice with the score are printed all the same."""
    config = tmp_path / "c.yaml"
    bank = short_paper_file(tmp_path)
    config.write_text(
        f"language: zh-CN\ndefault_bank: sample\nbank_paths: [{bank}]\n"
        f"study: {{mock_reminder_minutes: {REMIND_MINUTES}}}\n"
    )
    bot = await BotProcess.start(tmp_path / "data", config)
    try:
        bot.send("/mock")
        await bot.wait_for(t(ZH, "mock.started", title="示例题库 Sample bank"))
        bot.send("/mock 1 A")  # one answer (a blank paper is no result), then nothing more is typed
        await bot.wait_for(t(ZH, "mock.kept", number=1))
        await bot.wait_for(t(ZH, "mock.reminder", count=1, unanswered=ITEMS - 1), timeout=TIMEOUT)
        # A scores 0 or 1 point: the paper's options are shuffled; the notice up to the score
        await bot.wait_for(t(ZH, "mock.timed_out", score="§", total=TOTAL).split("§")[0], timeout=TIMEOUT)
        assert any(t(ZH, "mock.timed_out", score=s, total=TOTAL) in bot.output for s in ("0", "1"))
        arrived = datetime.now(UTC)
        with sqlite3.connect(tmp_path / "data" / "studybot.db") as db:
            ((ends_at, submitted_at, state),) = db.execute("SELECT ends_at, submitted_at, state FROM mocks")
        assert state == "done" and submitted_at == ends_at  # handed in as of the deadline...
        assert arrived >= datetime.fromisoformat(ends_at)  # ...and told then, not before
        bot.send("/quit")
        assert await bot.quit() == 0
    finally:
        if bot.proc.returncode is None:
            await bot.kill()
    assert "RuntimeWarning" not in bot.output and "never awaited" not in bot.output
