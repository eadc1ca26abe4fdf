"""Configuration: defaults, the example file, refusals that name the key, secrets kept out of sight."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from studybot.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent


def test_the_example_file_loads():
    config = load_config(ROOT / "studybot.example.yaml", env={})
    assert config.default_bank == "ai-trainer-2025"
    assert config.timezone == "Asia/Shanghai"


def test_defaults_without_a_file(tmp_path):
    config = load_config(None, env={"STUDYBOT_DATA_DIR": str(tmp_path)})
    assert config.database_path == tmp_path / "studybot.db"
    assert not config.discord_token and not config.telegram_token


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("colour: blue\n", "unknown key 'colour'"),
        ("language: fr\n", "zh-CN, zh-TW, en"),
        ("timezone: Mars/Olympus\n", "IANA timezone"),
        ("answer_policy: whenever\n", "first, changeable"),
        ("partial_credit: maybe\n", "true or false"),
        ("practice_minutes: -5\n", "positive number"),
        ("daily: {time: 25:00}\n", "daily"),
        ("daily: {time: 9:30}\n", "quotes"),
        ("daily: {deadline_hours: 0}\n", "deadline_hours"),
        ("contest: {rounds: 3}\n", "unknown key 'rounds'"),
        ("discord_token: abc\n", "environment"),
        ("- a list\n", "mapping"),
        ("key: [unclosed\n", "not valid YAML"),
    ],
)
def test_bad_values_are_refused_naming_the_key(tmp_path, text, named):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=None) as err:
        load_config(path, env={})
    assert named in str(err.value)


def test_tokens_never_show(caplog):
    config = load_config(None, env={"DISCORD_TOKEN": "sekrit-discord", "TELEGRAM_TOKEN": "123:sekrit"})
    assert config.discord_token.value == "sekrit-discord"
    with caplog.at_level(logging.INFO):
        logging.getLogger("test").info("config: %s %r", config, config)
    assert "sekrit" not in repr(config) and "sekrit" not in str(config) and "sekrit" not in caplog.text
