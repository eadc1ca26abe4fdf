"""Configuration: a documented YAML file (see studybot.example.yaml) plus secrets from the environment.

The settings are pydantic models: `Config` (with its `daily` and `contest` sections) declares
every key, its type and what is allowed; pydantic-settings reads the environment variables
(`_Environment`). Unknown keys and bad values are refused with a message naming the key, what
is allowed and, for a typo, the closest known key. Relative paths in the file are read from
the file's folder. Tokens are read from the environment only and never appear in reprs or logs.
"""

from __future__ import annotations

import contextvars
import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    SecretStr,
    StrictBool,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError, core_schema
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from bot.domain.clock import zone
from bot.domain.kinds import AnswerPolicy, Platform, RevealPolicy
from bot.locales.i18n import DEFAULT_LANGUAGE, LANGUAGES, t
from studybot.shards import ShardSpec, parse_shards


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

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(cls._coerce)

    @classmethod
    def _coerce(cls, value: Any) -> Secret:
        if isinstance(value, Secret):
            return value
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if isinstance(value, str):
            return cls(value.strip())
        raise ValueError("a token is text")


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "studybot"


# ------------------------------------------------------------------ value types


def _in_file_folder(value: Path, info: ValidationInfo) -> Path:
    """A relative path in a config file is relative to that file, not to where studybot runs."""
    value = value.expanduser()
    base = (info.context or {}).get("base")
    return value if value.is_absolute() or base is None else base / value


def _nonempty_path(value: Any) -> Any:
    if isinstance(value, Path) or (isinstance(value, str) and value):
        return value
    raise ValueError("not a path")


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _timezone(value: str) -> str:
    zone(value)  # raises ValueError for an unknown name
    return value


def _hhmm(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        raise PydanticCustomError(
            "time_unquoted",
            'write the time in quotes, e.g. "09:00" (unquoted, YAML reads 9:30 as the number 570)',
        )
    if isinstance(value, str):
        parts = value.split(":")
        if len(parts) == 2 and all(p.isdigit() for p in parts) and int(parts[0]) < 24 and int(parts[1]) < 60:
            return value
    raise ValueError("not HH:MM")


def _digits(value: Any) -> Any:
    """A number given as text (an environment variable) is that number."""
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value


def _localized(language: Any, key: str, **params: object) -> PydanticCustomError:
    """An error whose whole sentence comes from the catalog, in the configured language."""
    language = language if language in LANGUAGES else DEFAULT_LANGUAGE
    return PydanticCustomError("localized", "{message}", {"message": t(language, key, **params)})


def _shards(value: Any, info: ValidationInfo) -> ShardSpec | None:
    if value is None or isinstance(value, ShardSpec):
        return value
    try:
        return parse_shards(str(value))
    except ValueError:
        raise _localized(info.data.get("language"), "config.discord_shards", value=str(value)) from None


def _admins(value: Any, info: ValidationInfo) -> tuple[tuple[str, str], ...]:
    """`admins:` — the operators who look after the configured banks (their error reports), as
    a mapping of platform to user ids: `telegram: [123456789]`, `discord: ["80351110224678912"]`.
    Read as (platform, user id) pairs; Telegram and Discord ids are whole numbers."""
    if value is None:
        return ()
    if isinstance(value, tuple) and all(isinstance(p, tuple) for p in value):
        return value  # already read (a Config built from another)
    language = info.data.get("language")
    if not isinstance(value, Mapping):
        raise _localized(language, "config.admins_bad", value=_short(value))
    pairs: list[tuple[str, str]] = []
    for platform, ids in value.items():
        if platform not in PLATFORMS:
            raise _localized(language, "config.admins_platform", platform=_short(platform),
                             platforms=", ".join(PLATFORMS))  # fmt: skip
        for user in ids if isinstance(ids, list | tuple) else [ids]:
            text = str(user).strip() if isinstance(user, int | str) and not isinstance(user, bool) else ""
            if not text or (platform != "console" and not text.isdigit()):
                raise _localized(language, "config.admins_id", platform=platform, value=_short(user))
            pairs.append((str(platform), text))
    return tuple(dict.fromkeys(pairs))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram's setWebhook accepts


def _webhook_secret(value: Secret, info: ValidationInfo) -> Secret:
    if value and not WEBHOOK_SECRET.match(value.value):
        raise _localized(info.data.get("language"), "config.webhook_secret_bad")  # never the value
    return value


FilePath = Annotated[Path, BeforeValidator(_nonempty_path), AfterValidator(_in_file_folder)]
Positive = Annotated[float, Field(gt=0, strict=True)]
PositiveInt = Annotated[int, Field(gt=0, strict=True)]


def _one_of(choices: Any) -> str:
    return "one of " + ", ".join(getattr(choice, "value", choice) for choice in choices)


POSITIVE = "a positive number"
PLATFORMS = tuple(str(p) for p in (Platform.TELEGRAM, Platform.DISCORD, Platform.CONSOLE))
_SECTION = ConfigDict(frozen=True, extra="forbid")


class DailyConfig(BaseModel):
    model_config = _SECTION

    time: Annotated[str, BeforeValidator(_hhmm)] = Field("09:00", description="HH:MM (24-hour)")
    deadline_hours: Positive = Field(12.0, description=POSITIVE)
    grace_minutes: Positive = Field(60.0, description=POSITIVE)


class ContestConfig(BaseModel):
    model_config = _SECTION

    questions: PositiveInt = Field(10, description="a positive whole number")
    seconds: PositiveInt = Field(30, description="a positive whole number of seconds")
    pause_seconds: Positive = Field(5.0, description=POSITIVE)


class StudyConfig(BaseModel):
    model_config = _SECTION

    graduate_after: PositiveInt = Field(2, description="right answers in a row that leave the notebook")
    slow_seconds: Positive = Field(60.0, description="seconds after which a right answer rates Hard")
    # How long before a mock exam's end the learner is reminded.
    mock_reminder_minutes: Positive = Field(10.0, description="a positive number of minutes")


class QuizRateConfig(BaseModel):
    model_config = _SECTION

    private: PositiveInt = Field(60, description="a positive whole number of questions a minute")
    group: PositiveInt = Field(6, description="a positive whole number of questions a minute")


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
SYNCHRONOUS = ("FULL", "NORMAL")


def _postgres_url(value: SecretStr | None) -> SecretStr | None:
    """A PostgreSQL URL; the password in it stays hidden in reprs and logs (SecretStr)."""
    if value is not None and not value.get_secret_value().startswith(("postgresql://", "postgres://")):
        raise ValueError("not a postgresql:// URL")
    return value


class Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: FilePath = Field(default_factory=default_data_dir, description="a path")
    database: FilePath | None = Field(None, description="a path")
    database_url: Annotated[SecretStr | None, AfterValidator(_postgres_url)] = Field(
        None, description="a postgresql://user:password@host:port/database URL"
    )
    default_bank: str = Field("ai-trainer-2025", min_length=1, strict=True,
                              description="a bank id such as ai-trainer-2025")  # fmt: skip
    bank_paths: tuple[FilePath, ...] = Field((), description="a list of paths to bank files or folders")
    upload_max_mb: Positive = Field(5.0, description="a positive number of megabytes")
    language: Literal[LANGUAGES] = Field("zh-CN", description=_one_of(LANGUAGES))  # type: ignore[valid-type]
    admins: Annotated[tuple[tuple[str, str], ...], PlainValidator(_admins)] = Field(
        (), description="a mapping of platform (telegram, discord, console) to a list of user ids"
    )
    timezone: Annotated[str, AfterValidator(_timezone)] = Field(
        "Asia/Shanghai", description="an IANA timezone such as Asia/Shanghai or America/New_York"
    )
    reveal_policy: RevealPolicy = Field(RevealPolicy.PRACTICE, description=_one_of(RevealPolicy))
    answer_policy: AnswerPolicy = Field(AnswerPolicy.FIRST, description=_one_of(AnswerPolicy))
    partial_credit: StrictBool = Field(False, description="true or false")
    practice_minutes: Positive = Field(60.0, description="a positive number of minutes")
    log_level: Annotated[Literal[LOG_LEVELS], BeforeValidator(_upper)] = Field(  # type: ignore[valid-type]
        "INFO", description=_one_of(LOG_LEVELS)
    )
    sqlite_synchronous: Annotated[Literal[SYNCHRONOUS], BeforeValidator(_upper)] = Field(  # type: ignore[valid-type]
        "FULL", description=_one_of(SYNCHRONOUS)
    )
    daily: DailyConfig = Field(default_factory=DailyConfig, description="a mapping of daily settings")
    contest: ContestConfig = Field(default_factory=ContestConfig, description="a mapping of contest settings")
    study: StudyConfig = Field(default_factory=StudyConfig, description="a mapping of study tool settings")
    quiz_per_minute: QuizRateConfig = Field(
        default_factory=QuizRateConfig, description="a mapping with private and group limits"
    )
    http_port: Annotated[int | None, BeforeValidator(_digits)] = Field(None, ge=0, lt=65536, strict=True,
                                  description="a port number 1-65535 for /healthz, /readyz and /metrics "
                                  "(0: any free port; unset: no HTTP server)")  # fmt: skip
    http_listen: str = Field("0.0.0.0", description="an address to listen on")
    # The web app (docs/web.md): its public address, served by the HTTP server under /app behind
    # the operator's reverse proxy; unset: no web app, no /web link, no "open" buttons.
    web_url: str | None = Field(
        None,
        # No path: the page asks for /app/static/… and /app/api/… from the address's root.
        pattern=r"^https?://[^\s/?#]+/?$",
        description="the public https:// address the HTTP server is reached at, with no path "
        "(https://study.example.org: the web app is its /app/)",
    )
    telegram_webhook_listen: str = Field("0.0.0.0", description="an address to listen on")
    telegram_webhook_port: int = Field(8443, ge=0, lt=65536, strict=True,
                                       description="a port number 1-65535 (0: any free port)")  # fmt: skip
    discord_shards: Annotated[ShardSpec | None, PlainValidator(_shards)] = Field(
        None, description="shards of a total, e.g. 0-3/8"
    )
    # secrets and endpoints, from the environment only
    discord_token: Secret = Field(default_factory=Secret)
    telegram_token: Secret = Field(default_factory=Secret)
    telegram_webhook_secret: Annotated[Secret, AfterValidator(_webhook_secret)] = Field(
        default_factory=Secret
    )
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    discord_dev_guild: str | None = None
    telegram_api_base: str | None = None
    telegram_webhook_url: str | None = None

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Config:
        # Several processes behind one URL must share the secret Telegram sends with each update.
        if self.telegram_webhook_url and not self.telegram_webhook_secret:
            raise _localized(self.language, "config.webhook_secret_missing")
        return self

    @property
    def database_path(self) -> Path:
        return self.database or self.data_dir / "studybot.db"


# ------------------------------------------------------------------ the environment

TOKEN_VARIABLES = ("DISCORD_TOKEN", "TELEGRAM_TOKEN")
_environ: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("environ", default=None)


class _GivenEnvironment(EnvSettingsSource):
    """The process environment, or the mapping `load_config` was given instead."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        given = _environ.get()
        if given is None:
            return super()._load_env_vars()
        return {name: value for name, value in given.items() if value != ""}  # case-sensitive, empty ignored


def _absolute(value: Path | None) -> Path | None:
    return None if value is None else value.expanduser().absolute()


class _Environment(BaseSettings):
    """Every environment variable studybot reads (and only those)."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", env_ignore_empty=True)

    data_dir: Annotated[Path | None, AfterValidator(_absolute)] = Field(None, alias="STUDYBOT_DATA_DIR")
    database_url: SecretStr | None = Field(None, alias="STUDYBOT_DATABASE_URL")
    http_port: str | None = Field(None, alias="STUDYBOT_HTTP_PORT")  # read as a number by Config
    discord_token: SecretStr | None = Field(None, alias="DISCORD_TOKEN")
    telegram_token: SecretStr | None = Field(None, alias="TELEGRAM_TOKEN")
    telegram_webhook_secret: SecretStr | None = Field(None, alias="STUDYBOT_TELEGRAM_WEBHOOK_SECRET")
    discord_shards: str | None = Field(None, alias="STUDYBOT_DISCORD_SHARDS")
    discord_api_base: str | None = Field(None, alias="DISCORD_API_BASE")
    discord_gateway_url: str | None = Field(None, alias="DISCORD_GATEWAY_URL")
    discord_dev_guild: str | None = Field(None, alias="DISCORD_DEV_GUILD")
    telegram_api_base: str | None = Field(None, alias="TELEGRAM_API_BASE")
    telegram_webhook_url: str | None = Field(None, alias="TELEGRAM_WEBHOOK_URL")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (_GivenEnvironment(settings_cls),)


_ENV_ONLY = frozenset(_Environment.model_fields) - {"data_dir", "database_url", "discord_shards", "http_port"}
FILE_KEYS = tuple(name for name in Config.model_fields if name not in _ENV_ONLY)
_ENV_WINS = ("discord_shards", "http_port")


def read_environment(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings given by environment variables (`env`, else the process's)."""
    reset = _environ.set(env)
    try:
        found = _Environment()
        values = {name: getattr(found, name) for name in _Environment.model_fields}
        return {name: value for name, value in values.items() if value is not None}
    finally:
        _environ.reset(reset)


# ------------------------------------------------------------------ loading


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    raw: dict[str, Any] = {}
    where = str(path or "config")
    if path is not None:
        raw = _read_file(Path(path))
        _refuse_secrets(raw, where)
    environment = read_environment(env)
    values = {**environment, **raw}  # a data_dir in the file wins over STUDYBOT_DATA_DIR
    # but each process's own shards and health port win over the file all the processes share
    values.update({key: environment[key] for key in _ENV_WINS if key in environment})
    base = Path(path).absolute().parent if path is not None else None
    try:
        return Config.model_validate(values, context={"base": base})
    except ValidationError as exc:
        raise ConfigError("\n".join(_explain(error, where) for error in exc.errors())) from None


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of settings")
    return raw


def _refuse_secrets(raw: dict[str, Any], where: str) -> None:
    for key in raw:
        if key in _ENV_ONLY or str(key).lower().endswith("_token"):
            known = _Environment.model_fields.get(str(key))
            variable = known.alias if known is not None and known.alias else str(key).upper()
            raise ConfigError(
                f"{where}: {key!r} is a secret or endpoint; set it in the environment "
                f"({variable}), not in the file"
            )


def _explain(error: Any, where: str) -> str:
    """One pydantic error as a sentence naming the key and what is allowed."""
    if error["type"] == "localized":  # the whole sentence, in the configured language
        return f"{where}: {error['msg']}"
    loc = [part for part in error["loc"] if isinstance(part, str)]
    model: type[BaseModel] = Config
    section: list[str] = []
    for part in loc[:-1]:
        annotation = model.model_fields[part].annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model, section = annotation, [*section, part]
    prefix = f"{where}: " + "".join(f"{name}: " for name in section)
    key = loc[-1] if loc else ""
    if error["type"] == "extra_forbidden":
        key = str(error["loc"][-1])  # a YAML key may be a number
        known = FILE_KEYS if model is Config else tuple(model.model_fields)
        close = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"{prefix}unknown key {key!r}{hint}; allowed keys: {', '.join(sorted(known))}"
    if not key:  # about the mapping itself, e.g. a key that is not a name
        return f"{prefix}{error['input']!r} is not allowed: {error['msg'].lower()}"
    dotted = ".".join([*section, key]) if section else key
    if error["type"] == "time_unquoted":
        return f"{prefix.removesuffix(': ')}.{key}: {error['msg']}" if section else f"{prefix}{error['msg']}"
    info = model.model_fields.get(key)
    expected = info.description if info is not None and info.description else error["msg"]
    return f"{where}: {dotted} = {error['input']!r} is not allowed; expected {expected}"
