"""Whole console sessions per language: a zh-TW chat reads traditional characters everywhere
(the catalog and the bank's text through OpenCC) and its traditional answers are graded as their
simplified form; an English session counts things with correct plurals."""

from __future__ import annotations

from pathlib import Path

from bot.locales.i18n import bank_text
from tests.test_console import run_console

BANK = """\
id: tw
title: 繁体测试题库
language: zh-CN
source: written for the studybot test suite
questions:
  - id: tw-1
    number: 1
    type: fill
    points: 1
    tags: [mammal]
    stem: 鲸鱼____哺乳动物。
    answer: [属于]
    explanation: 鲸鱼用肺呼吸，属于哺乳纲。

  - id: tw-2
    number: 2
    type: single
    points: 1
    tags: [optimizer]
    stem: 以下哪个是常用的优化器
    options: {A: 层归一化, B: 随机梯度下降, C: 残差连接, D: 位置编码}
    answer: B
    explanation: 随机梯度下降是优化器，其余是网络结构。
"""


def session(tmp_path: Path, script: str, language: str) -> str:
    (tmp_path / "tw.yaml").write_text(BANK, encoding="utf-8")
    config = tmp_path / "studybot.yaml"
    config.write_text(f"default_bank: tw\nbank_paths: [{tmp_path / 'tw.yaml'}]\nlanguage: {language}\n")
    result = run_console(tmp_path, script, "run", "--config", str(config))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_zh_tw_chat_reads_traditional_characters_and_traditional_answers_count(tmp_path):
    lines = ["/lang zh-TW", "/quiz mammal", "屬於", "/quiz optimizer", "B", "/stats", "/leaderboard",
             "/contest status", "/help", "/quit"]  # fmt: skip
    script = "\n".join(lines) + "\n"
    out = session(tmp_path, script, "zh-CN")
    assert "語言已設為繁體中文。" in out
    assert "鯨魚____哺乳動物。" in out  # the question
    assert "✅ 正確！+1分" in out  # 屬於 graded as 属于
    assert "解析：鯨魚用肺呼吸，屬於哺乳綱。" in out  # the explanation
    assert "B. 隨機梯度下降" in out and "A. 層歸一化" in out  # the options
    assert "排行榜（總榜）" in out and "目前沒有進行中的競賽。" in out
    after = out[out.index("語言已設為繁體中文。"):]
    for line in after.splitlines():
        # Every line is already traditional: converting it again changes nothing.
        assert bank_text("zh-TW", line) == line, line


def test_a_zh_tw_default_welcomes_in_traditional_characters(tmp_path):
    out = session(tmp_path, "/quit\n", "zh-TW")
    assert out.startswith("studybot 控制台 · 題庫：繁體測試題庫（2 題）")
    assert out.rstrip().endswith("再見！")


def test_an_english_session_counts_with_plurals(tmp_path):
    out = session(tmp_path, "/contest start 1 5\nB\n/quit\n", "en")
    assert "(2 questions)" in out  # the welcome
    assert "Contest started: 1 question, 5 s each." in out
    assert "5 seconds" in out
    assert "1 questions" not in out


def test_a_chinese_session_counts_without_plural_words(tmp_path):
    out = session(tmp_path, "/contest start 1 5\nB\n/quit\n", "zh-CN")
    assert "竞赛开始：共 1 题，每题 5 秒。" in out
    assert "限时 5 秒" in out
