"""Discord's passing troubles — a 5xx answer (after discord.py's own retries), a dropped or refused
connection, a timeout, a gateway reconnect — are logged as one warning line each, saying what
happens next; tracebacks are kept for our own bugs.

Our handlers ask `transient(exc)` before logging; discord.py's own loggers get `OneLine`, which
turns such a record (e.g. "Attempting a reconnect in 3.2s" with the exception's traceback) into
a warning that names the error in a few words. Nothing here names a URL: interaction URLs carry
a token.
"""

from __future__ import annotations

import asyncio
import logging
import re

import aiohttp
import discord
from discord import app_commands

# discord.py's loggers that log a caught exception with its traceback and carry on.
LIBRARY_LOGGERS = ("discord.client", "discord.gateway", "discord.ui.view", "discord.app_commands.tree")
_URL = re.compile(r"\b(?:https?|wss?)://\S+")
_TRANSIENT_TYPES = (
    discord.DiscordServerError,
    discord.GatewayNotFound,
    discord.ConnectionClosed,
    aiohttp.ClientError,
    OSError,
    asyncio.TimeoutError,
)


def cause(exc: BaseException) -> BaseException:
    """The error itself, out of discord.py's wrapper for a failed command."""
    while isinstance(exc, app_commands.CommandInvokeError):
        exc = exc.original
    return exc


def transient(exc: BaseException) -> bool:
    """Whether the error is Discord's or the network's and passes by itself."""
    exc = cause(exc)
    if isinstance(exc, discord.HTTPException):
        return exc.status >= 500
    return isinstance(exc, _TRANSIENT_TYPES)


def describe(exc: BaseException) -> str:
    """A few words for a log line: no response body (an HTML error page), no URL."""
    exc = cause(exc)
    if isinstance(exc, discord.HTTPException):
        return f"Discord answered HTTP {exc.status}"
    if isinstance(exc, discord.ConnectionClosed):
        return f"the gateway closed the connection (code {exc.code})"
    words = _URL.sub("<url>", str(exc).splitlines()[0] if str(exc) else "")[:200]
    return f"{type(exc).__name__}: {words}" if words else type(exc).__name__


class OneLine(logging.Filter):
    """A record carrying a transient error becomes one warning line naming it, with no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and transient(error):
            record.msg = f"{record.getMessage()} ({describe(error)})"
            record.args = None
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return True


_FILTER = OneLine()


def install() -> None:
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).addFilter(_FILTER)


def uninstall() -> None:
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).removeFilter(_FILTER)
