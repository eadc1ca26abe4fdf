"""Why the database could not be opened, in the operator's terms: the folder is not writable, the
disk is full (or failing), the file is damaged, or it was written by a newer studybot; for
PostgreSQL, the server cannot be reached or refuses the login (user, password, database name).

`SqliteStore.connect` and `PostgresStore.connect` raise `StoreOpenError` with one of these kinds
(`path` is the file, or the server's URL without its password); the runner turns it into one
sentence naming the cause and what to do.
"""

from __future__ import annotations

import errno
import sqlite3
from enum import Enum


class OpenProblem(Enum):
    UNWRITABLE = "unwritable"
    FULL = "full"
    DAMAGED = "damaged"
    NEWER = "newer"
    UNREACHABLE = "unreachable"  # PostgreSQL: nothing listens there, or the name does not resolve
    REFUSED = "refused"  # PostgreSQL: wrong user or password, or no such database


class StoreOpenError(Exception):
    def __init__(self, problem: OpenProblem, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.problem = problem
        self.path = path
        self.detail = detail


class SchemaTooNew(RuntimeError):
    """The file's schema version is newer than this studybot knows."""


_FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def classify(exc: BaseException, path: str) -> StoreOpenError | None:
    """The StoreOpenError for `exc`, or None when it is not about the file (a bug of ours)."""
    if isinstance(exc, StoreOpenError):
        return exc
    if isinstance(exc, SchemaTooNew):
        return StoreOpenError(OpenProblem.NEWER, path, str(exc))
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
            return StoreOpenError(OpenProblem.DAMAGED, path, str(exc))
        if name.startswith(("SQLITE_FULL", "SQLITE_IOERR")):
            return StoreOpenError(OpenProblem.FULL, path, str(exc))
        if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")):
            return StoreOpenError(OpenProblem.UNWRITABLE, path, str(exc))
        return None
    if isinstance(exc, OSError):
        detail = exc.strerror or str(exc)
        kind = OpenProblem.FULL if exc.errno in _FULL_ERRNOS else OpenProblem.UNWRITABLE
        return StoreOpenError(kind, path, detail)
    return None


def quick_check(conn: sqlite3.Connection, path: str) -> None:
    """`PRAGMA quick_check` over the whole file: damage in the middle is found at start-up, not
    on the first question that reads the broken page."""
    rows = [row[0] for row in conn.execute("PRAGMA quick_check(5)").fetchall()]
    if rows != ["ok"]:
        raise StoreOpenError(OpenProblem.DAMAGED, path, "PRAGMA quick_check: " + "; ".join(rows))
