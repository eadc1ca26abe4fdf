"""Start-up failures as one sentence for the operator: the cause and what to do.

The database could not be opened (folder not writable, disk full, file damaged or newer; the
PostgreSQL server unreachable or refusing the login), or a
platform refused the token or could not be reached. Anything else is a bug of ours and keeps its
traceback (redacted like every output).
"""

from __future__ import annotations

import sys

from adapters.redaction import redact
from adapters.storage.open_errors import OpenProblem, StoreOpenError
from bot.locales.i18n import t
from studybot.config import Config

_STORE_KEYS = {
    OpenProblem.UNWRITABLE: "startup.data_unwritable",
    OpenProblem.FULL: "startup.disk_full",
    OpenProblem.DAMAGED: "startup.db_damaged",
    OpenProblem.NEWER: "startup.db_newer",
    OpenProblem.UNREACHABLE: "startup.db_unreachable",
    OpenProblem.REFUSED: "startup.db_refused",
}
_PLATFORMS = {
    # platform: (its name, token variable, API variable, default address)
    "discord": ("Discord", "DISCORD_TOKEN", "DISCORD_API_BASE", "https://discord.com/api"),
    "telegram": ("Telegram", "TELEGRAM_TOKEN", "TELEGRAM_API_BASE", "https://api.telegram.org"),
}


class AdapterStartError(Exception):
    """A chat adapter failed to start; `cause` is why."""

    def __init__(self, platform: str, cause: BaseException) -> None:
        super().__init__(f"{platform} adapter did not start: {cause!r}")
        self.platform = platform
        self.cause = cause


def say(language: str, key: str, **params: object) -> None:
    """Print one catalog sentence to stderr, prefixed and with every secret redacted."""
    print("studybot: " + redact(t(language, key, **params)), file=sys.stderr, flush=True)


def store_failure(exc: StoreOpenError, language: str) -> None:
    detail = redact(exc.detail)
    if exc.problem is OpenProblem.UNWRITABLE:
        # the folder is what the operator fixes, not the file inside it
        from pathlib import Path

        path = str(Path(exc.path).parent)
    else:
        path = exc.path
    say(language, _STORE_KEYS[exc.problem], path=path, detail=detail)


def platform_failure(exc: AdapterStartError, config: Config) -> bool:
    """Say why a platform did not start, if it is a cause the operator can fix; else False."""
    platform = str(getattr(exc.platform, "value", exc.platform)).lower()
    if platform not in _PLATFORMS:
        return False
    name, token_variable, api_variable, default_address = _PLATFORMS[platform]
    cause = exc.cause
    detail = redact(str(cause) or type(cause).__name__)
    language = config.language
    if _token_rejected(platform, cause):
        where = t(language, f"startup.token_where.{platform}")
        say(language, "startup.token_rejected", platform=name, variable=token_variable, detail=detail,
            where=where)  # fmt: skip
        return True
    if _unreachable(platform, cause):
        address = getattr(config, f"{platform}_api_base") or default_address
        say(language, "startup.unreachable", platform=name, address=address, detail=detail,
            variable=api_variable)  # fmt: skip
        return True
    return False


def _token_rejected(platform: str, cause: BaseException) -> bool:
    if platform == "discord":
        import discord

        return isinstance(cause, discord.LoginFailure)
    from telegram.error import InvalidToken

    return isinstance(cause, InvalidToken)


def _unreachable(platform: str, cause: BaseException) -> bool:
    if platform == "discord":
        import aiohttp
        import discord

        unreachable = OSError | TimeoutError | aiohttp.ClientConnectionError | discord.GatewayNotFound
        return isinstance(cause, unreachable)
    from telegram.error import BadRequest, NetworkError

    return isinstance(cause, NetworkError) and not isinstance(cause, BadRequest)
