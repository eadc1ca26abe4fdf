"""Configuration: a documented YAML file (see studybot.example.yaml) plus secrets from the environment.

Unknown keys and bad values are refused with a message naming the key and what is allowed.
Tokens are read from the environment only and never appear in reprs or logs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from bot.clock import zone
from bot.i18n import LANGUAGES
from bot.records import AnswerPolicy, RevealPolicy


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Secret:
    """A token: usable, but never shown."""

    value: str = field(default="", repr=False)

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self.value)


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "studybot"


@dataclass(frozen=True)
class DailyConfig:
    time: str = "09:00"
    deadline_hours: float = 12.0
    grace_minutes: float = 60.0


@dataclass(frozen=True)
class ContestConfig:
    questions: int = 10
    seconds: int = 30
    pause_seconds: float = 5.0


@dataclass(frozen=True)
class QuizRateConfig:
    private: int = 60
    group: int = 6


@dataclass(frozen=True)
class Config:
    data_dir: Path = field(default_factory=default_data_dir)
    database: Path | None = None
    default_bank: str = "ai-trainer-2025"
    bank_paths: tuple[Path, ...] = ()
    language: str = "zh-CN"
    timezone: str = "Asia/Shanghai"
    reveal_policy: RevealPolicy = RevealPolicy.PRACTICE
    answer_policy: AnswerPolicy = AnswerPolicy.FIRST
    partial_credit: bool = False
    practice_minutes: float = 60.0
    quiz_per_minute: QuizRateConfig = field(default_factory=QuizRateConfig)
    log_level: str = "INFO"
    sqlite_synchronous: str = "FULL"
    daily: DailyConfig = field(default_factory=DailyConfig)
    contest: ContestConfig = field(default_factory=ContestConfig)
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = 8443
    # secrets and endpoints, from the environment only
    discord_token: Secret = field(default_factory=Secret)
    telegram_token: Secret = field(default_factory=Secret)
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    discord_dev_guild: str | None = None
    telegram_api_base: str | None = None
    telegram_webhook_url: str | None = None

    @property
    def database_path(self) -> Path:
        return self.database or self.data_dir / "studybot.db"


_ENV_ONLY = {
    "discord_token",
    "telegram_token",
    "discord_api_base",
    "discord_gateway_url",
    "discord_dev_guild",
    "telegram_api_base",
    "telegram_webhook_url",
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "language": LANGUAGES,
    "reveal_policy": tuple(p.value for p in RevealPolicy),
    "answer_policy": tuple(p.value for p in AnswerPolicy),
    "log_level": ("DEBUG", "INFO", "WARNING", "ERROR"),
    "sqlite_synchronous": ("FULL", "NORMAL"),
}


def load_config(path: str | Path | None = None, env: dict[str, str] | None = None) -> Config:
    env = dict(os.environ if env is None else env)
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
        try:
            raw = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of settings")
    values = _parse(raw, str(path or "config"))
    if "data_dir" not in values and env.get("STUDYBOT_DATA_DIR"):
        values["data_dir"] = Path(env["STUDYBOT_DATA_DIR"])
    secrets = {
        "discord_token": Secret(env.get("DISCORD_TOKEN", "").strip()),
        "telegram_token": Secret(env.get("TELEGRAM_TOKEN", "").strip()),
        "discord_api_base": env.get("DISCORD_API_BASE") or None,
        "discord_gateway_url": env.get("DISCORD_GATEWAY_URL") or None,
        "discord_dev_guild": env.get("DISCORD_DEV_GUILD") or None,
        "telegram_api_base": env.get("TELEGRAM_API_BASE") or None,
        "telegram_webhook_url": env.get("TELEGRAM_WEBHOOK_URL") or None,
    }
    return Config(**values, **secrets)


def _parse(raw: dict[str, Any], where: str) -> dict[str, Any]:
    allowed = {f.name: f for f in fields(Config) if f.name not in _ENV_ONLY}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _ENV_ONLY or key.endswith("_token"):
            raise ConfigError(
                f"{where}: {key!r} is a secret or endpoint; set it in the environment "
                f"({key.upper()}), not in the file"
            )
        if key not in allowed:
            raise ConfigError(f"{where}: unknown key {key!r}; allowed keys: {', '.join(sorted(allowed))}")
        out[key] = _value(key, value, where)
    return out


def _value(key: str, value: Any, where: str) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{where}: {key} = {value!r} is not allowed; expected {expected}")

    if key in _CHOICES:
        choices = _CHOICES[key]
        text = str(value).upper() if key in ("log_level", "sqlite_synchronous") else str(value)
        if text not in choices:
            raise bad("one of " + ", ".join(choices))
        if key == "reveal_policy":
            return RevealPolicy(text)
        if key == "answer_policy":
            return AnswerPolicy(text)
        return text
    if key in ("data_dir", "database"):
        if not isinstance(value, str) or not value:
            raise bad("a path")
        return Path(value).expanduser()
    if key == "bank_paths":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of paths to bank files or folders")
        return tuple(Path(v).expanduser() for v in value)
    if key == "default_bank":
        if not isinstance(value, str) or not value:
            raise bad("a bank id such as ai-trainer-2025")
        return value
    if key == "timezone":
        try:
            zone(str(value))
        except ValueError:
            raise bad("an IANA timezone such as Asia/Shanghai or America/New_York") from None
        return str(value)
    if key == "partial_credit":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if key == "practice_minutes":
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise bad("a positive number of minutes")
        return float(value)
    if key == "telegram_webhook_listen":
        return str(value)
    if key == "telegram_webhook_port":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
            raise bad("a port number 1-65535")
        return value
    if key == "daily":
        return _section(DailyConfig, value, f"{where}: daily")
    if key == "contest":
        return _section(ContestConfig, value, f"{where}: contest")
    if key == "quiz_per_minute":
        return _section(QuizRateConfig, value, f"{where}: quiz_per_minute")
    raise bad("a known value")  # pragma: no cover - every field is handled above


def _section(cls: type, value: Any, where: str) -> Any:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a mapping")
    known = {f.name: f for f in fields(cls)}
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r}; allowed keys: {', '.join(known)}")
        default = getattr(cls(), key)
        if key == "time":
            if isinstance(item, int):
                raise ConfigError(
                    f'{where}.time: write the time in quotes, e.g. "09:00" '
                    "(unquoted, YAML reads 9:30 as the number 570)"
                )
            if not isinstance(item, str) or not _is_hhmm(item):
                raise ConfigError(f"{where}.time = {item!r} is not allowed; expected HH:MM (24-hour)")
            out[key] = item
        elif isinstance(item, bool) or not isinstance(item, int | float) or item <= 0:
            raise ConfigError(f"{where}.{key} = {item!r} is not allowed; expected a positive number")
        else:
            out[key] = type(default)(item)
    return cls(**out)


def _is_hhmm(text: str) -> bool:
    parts = text.split(":")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return False
    return 0 <= int(parts[0]) < 24 and 0 <= int(parts[1]) < 60
