"""The console adapter driven as a subprocess, exactly as a newcomer runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_console(tmp_path: Path, script: str, *args: str, env_extra: dict | None = None):
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN")}
    env["STUDYBOT_DATA_DIR"] = str(tmp_path / "data")
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "studybot", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )


def test_quiz_answer_leaderboard_quit(tmp_path):
    result = run_console(tmp_path, "/quiz\nB\n/leaderboard\n/quit\n")
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "2025年高级人工智能训练师核心备考试题库" in out  # the default bank
    assert "练习 · 第" in out  # a question header
    assert any(mark in out for mark in ("✅ 正确", "❌ 错误", "🟡", "无法识别的答案", "已记录你的回答"))
    assert "排行榜（总榜）" in out
    assert out.rstrip().endswith("再见！")


def test_scripted_practice_in_english_with_stats_and_help(tmp_path):
    script = "/lang en\n/help\n/quiz quantization\nA\n/stats\n/leaderboard week\n/nonsense\n/quit\n"
    result = run_console(tmp_path, script)
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "Language set to English." in out
    assert "Practice · Q" in out
    assert "Explanation:" in out or "Couldn't read that answer" in out or "Reference answer" in out
    assert "Stats for" in out
    assert "Leaderboard (this week)" in out
    assert "Unknown command: /nonsense" in out


def test_answers_persist_between_runs(tmp_path):
    run_console(tmp_path, "/lang en\n/quiz\nA\n对\n/quit\n")  # 对 answers a judge item
    second = run_console(tmp_path, "/stats\n/quit\n")
    assert "1 answered" in second.stdout


def test_end_of_input_exits_cleanly(tmp_path):
    result = run_console(tmp_path, "/quiz\n")
    assert result.returncode == 0, result.stderr


def test_a_bad_config_is_refused_with_the_key(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("reveal_policy: sometimes\n")
    result = run_console(tmp_path, "", "run", "--config", str(config))
    assert result.returncode == 2
    assert "reveal_policy" in result.stderr and "practice, round" in result.stderr


def test_a_broken_extra_bank_stops_start_up_with_its_errors(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: broken\ntitle: x\nlanguage: en\nsource: x\nquestions:\n  - id: q1\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"bank_paths: [{broken}]\n")
    result = run_console(tmp_path, "", "--config", str(config))
    assert result.returncode == 1
    assert "broken.yaml:" in result.stderr


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["run", "--help"], ["bank", "--help"]])
def test_help_and_version(tmp_path, args):
    result = run_console(tmp_path, "", *args)
    assert result.returncode == 0
    assert "studybot" in result.stdout


def test_scripted_contest_shows_start_reveals_and_results(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("language: en\ncontest: {pause_seconds: 0.5}\n")
    # A letter and a true/false answer per question, since either kind may come up: the one that
    # does not fit is refused, the other answers, and the next line waits for the next question.
    script = "/contest start 2 3\nA\n对\nB\n错\n/contest status\n/quit\n"
    result = run_console(tmp_path, script, "--config", str(config))
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "Contest started: 2 questions, 3 s each." in out
    assert "Contest · Q" in out and "Question 1 of 2" in out and "Question 2 of 2" in out
    assert out.count("Answer revealed") == 2
    assert "Standings after 1 of 2" in out
    # The start replies with the status (question 1); /contest status comes after B answered
    # question 2, which closes it at once (every player answered), so it may already be final.
    after = out[out.index("Question 2 of 2") :]
    assert "Contest running: question 2 of 2" in after or "The last contest is over" in after
    assert "🏆 The contest is over" in out and "🥇 1." in out and "Nobody played" not in out


def test_scripted_daily_commands(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("language: en\ntimezone: America/New_York\n")
    result = run_console(tmp_path, "/daily\n/daily 07:30 2h\n/daily\n/daily off\n/daily 25:99\n/quit\n",
                         "--config", str(config))  # fmt: skip
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "No daily question yet" in out
    assert "Daily question set: every day at 07:30 (America/New_York), answer revealed after 2 h" in out
    assert "The daily question is off." in out
    assert "Bad time: expected a time of day, HH:MM, e.g. 08:30." in out
