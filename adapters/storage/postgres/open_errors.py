"""Why a PostgreSQL database could not be opened, as a StoreOpenError (adapters/storage/open_errors.py):
the server cannot be reached, or it refuses the login. The URL shown keeps everything but the
password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import asyncpg

from adapters.storage.open_errors import OpenProblem, SchemaTooNew, StoreOpenError

# The server answered, and said no: fixed in the URL (or by creating the role or database).
_REFUSALS = (
    asyncpg.InvalidPasswordError,
    asyncpg.InvalidAuthorizationSpecificationError,  # no such role, or pg_hba.conf rejects it
    asyncpg.InvalidCatalogNameError,  # no such database
)
# Nothing usable answered: the server is down, starting, or full.
_UNREACHABLE = (OSError, TimeoutError, asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError)


def shown_url(dsn: str) -> str:
    """The URL without its password (user, host, port, database and options kept)."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.netloc.rsplit("@", 1)[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc}"))


def classify(exc: BaseException, dsn: str) -> StoreOpenError | None:
    """The StoreOpenError for `exc`, or None when it is not about reaching the database (a bug of ours)."""
    url = shown_url(dsn)
    password = urlsplit(dsn).password
    detail = str(exc) or type(exc).__name__
    if password:
        detail = detail.replace(password, "***")
    if isinstance(exc, StoreOpenError):
        return exc
    if isinstance(exc, SchemaTooNew):
        return StoreOpenError(OpenProblem.NEWER, url, detail)
    if isinstance(exc, _REFUSALS):
        return StoreOpenError(OpenProblem.REFUSED, url, detail)
    if isinstance(exc, _UNREACHABLE):
        return StoreOpenError(OpenProblem.UNREACHABLE, url, detail)
    return None
