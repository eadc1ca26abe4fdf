"""Discord's passing troubles — a 5xx answer (after discord.py's own retries), a dropped or refused
connection, a timeout, a gateway reconnect — are logged as one warning line each, saying what
happens next; tracebacks are kept for our own bugs.

Only Discord's own failures count: an HTTP 5xx, the network between us (a refused or reset
connection, an unreachable host, a failed name lookup, a TLS error), a timeout of its API, the
gateway closing. Any other exception, an `OSError` of our own included (a file that is a
directory, a name too long, a full disk), is a bug: logged once with its traceback.

Our handlers ask `transient(exc)` before logging; discord.py's own loggers get `OneLine`, which
turns such a record (e.g. "Attempting a reconnect in 3.2s" with the exception's traceback) into
a warning that names the error in a few words. Nothing here names a URL: interaction URLs carry
a token.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import re
import socket
import ssl

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
    aiohttp.ClientError,  # aiohttp's connection errors (ClientOSError, ServerDisconnectedError, …)
    asyncio.TimeoutError,  # TimeoutError: a request or the gateway's heartbeat ran out of time
    ConnectionError,  # refused, reset, aborted, broken pipe
    socket.gaierror,  # the name lookup failed
    ssl.SSLError,
)
# An OSError of the network that is no ConnectionError: the route to Discord is gone for a while.
_NETWORK_ERRNOS = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN,
                             errno.ETIMEDOUT, errno.ENETRESET})  # fmt: skip


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
    if isinstance(exc, _TRANSIENT_TYPES):
        return True
    return isinstance(exc, OSError) and exc.errno in _NETWORK_ERRNOS


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
