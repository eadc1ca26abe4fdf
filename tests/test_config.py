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
        ("web_url: study.example.org\n", "web_url"),
        ("web_url: https://study.example.org/app/\n", "with no path"),  # the web app is the host's /app/
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


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("langauge: en\n", "unknown key 'langauge' (did you mean 'language'?)"),
        ("daily: {deadline_hour: 3}\n", "daily: unknown key 'deadline_hour' (did you mean 'deadline_hours'"),
        ("log_level: loud\n", "DEBUG, INFO, WARNING, ERROR"),
        ("telegram_webhook_port: 99999\n", "a port number 1-65535"),
        ("contest: {questions: 2.5}\n", "contest.questions = 2.5"),
        ("bank_paths: banks\n", "a list of paths"),
        ("TELEGRAM_TOKEN: abc\n", "environment"),
    ],
)
def test_typos_get_the_closest_key_and_values_what_is_allowed(tmp_path, text, named):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    assert named in str(err.value)
    assert "abc" not in str(err.value)


def test_relative_paths_in_the_file_are_read_from_its_folder(tmp_path, monkeypatch):
    folder = tmp_path / "conf"
    folder.mkdir()
    path = folder / "c.yaml"
    path.write_text("data_dir: data\nbank_paths: [banks, /abs/bank.yaml, ~/mine]\nlog_level: debug\n")
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("conf/c.yaml"), env={})
    assert config.data_dir == folder / "data"
    assert config.bank_paths == (folder / "banks", Path("/abs/bank.yaml"), Path("~/mine").expanduser())
    assert config.log_level == "DEBUG"


def test_the_environment_and_its_precedence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = {"STUDYBOT_DATA_DIR": "rel", "TELEGRAM_TOKEN": "  123:tok  ", "DISCORD_TOKEN": "", "LANGUAGE": "fr"}
    config = load_config(None, env=env)
    assert config.data_dir == tmp_path / "rel"  # relative to where studybot runs
    assert config.telegram_token.value == "123:tok" and not config.discord_token
    assert config.language == "zh-CN"  # only studybot's own variables are read
    path = tmp_path / "c.yaml"
    path.write_text("data_dir: /from/file\n")
    assert load_config(path, env=env).data_dir == Path("/from/file")  # the file wins, as before


def test_the_process_environment_is_read_through_pydantic_settings(monkeypatch):
    monkeypatch.setenv("TELEGRAM_TOKEN", "from-the-process")
    monkeypatch.setenv("TELEGRAM_API_BASE", "http://127.0.0.1:1/bot")
    config = load_config(None)
    assert config.telegram_token.value == "from-the-process"
    assert config.telegram_api_base == "http://127.0.0.1:1/bot"
    assert "from-the-process" not in repr(config)


def test_the_health_port_from_the_environment_wins_over_the_shared_file(tmp_path):
    shared = tmp_path / "c.yaml"
    shared.write_text("http_port: 8080\nhttp_listen: 127.0.0.1\n")
    assert load_config(shared, env={}).http_port == 8080
    mine = load_config(shared, env={"STUDYBOT_HTTP_PORT": "8082"})  # one process of several on a host
    assert (mine.http_port, mine.http_listen) == (8082, "127.0.0.1")
    assert load_config(None, env={}).http_port is None  # off unless asked for
    with pytest.raises(ConfigError, match="http_port = 'x' is not allowed; expected a port number"):
        load_config(None, env={"STUDYBOT_HTTP_PORT": "x"})


def test_admins_name_the_operators_per_platform(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text('admins:\n  telegram: [123456789, "987"]\n  discord: ["80351110224678912"]\n')
    config = load_config(path, env={})
    assert config.admins == (("telegram", "123456789"), ("telegram", "987"), ("discord", "80351110224678912"))
    assert load_config(None, env={}).admins == ()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("admins: [123]\n", "admins = [123]"),
        ("admins: {telegarm: [1]}\n", "'telegarm'"),
        ("admins: {telegram: [alice]}\n", "'alice'"),
        ("admins: {discord: [12.5]}\n", "12.5"),
    ],
)
def test_bad_admins_are_one_clear_line(tmp_path, text, named):
    path = tmp_path / "c.yaml"
    path.write_text("language: en\n" + text)
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    message = str(err.value)
    assert named in message and "admins" in message and "\n" not in message, message
