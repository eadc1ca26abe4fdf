"""A database fault as one episode in the log: one warning when the database starts refusing
work (a full disk, a lost PostgreSQL server), one line when a write commits again.

While the fault lasts every command, click, heartbeat and timer that touches the database fails
the same way; each is refused (the user told in the chat's language) and counted here, not
logged: a full disk for a minute was 31 tracebacks. Both stores keep one of these.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.ports.storage import StoreFull, StoreUnavailable

log = logging.getLogger("studybot.storage")


# A write that commits this soon after a failure does not end the episode: on a nearly full
# disk small writes fit while larger ones fail, and each flip would be two more lines.
SETTLE_SECONDS = 10.0


class FaultEpisodes:
    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._since: float | None = None
        self._last_failure = 0.0
        self._refused = 0

    @property
    def in_fault(self) -> bool:
        return self._since is not None

    def failed(self, fault: StoreUnavailable) -> None:
        """A statement or transaction failed with `fault`: the first of an episode is logged."""
        self._refused += 1
        self._last_failure = self._monotonic()
        if self._since is not None:
            return
        self._since = self._last_failure
        if isinstance(fault, StoreFull):
            log.warning("database: cannot write (%s); commands and answers are refused, and the "
                        "person told, until space is freed", fault)  # fmt: skip
        else:
            log.warning("database: %s; commands and answers are refused, and the person told, "
                        "until it is back", fault)  # fmt: skip

    def succeeded(self) -> None:
        """A write transaction committed: an episode, if one was on and no write has failed for
        SETTLE_SECONDS, is over (the heartbeat writes every few seconds, so one comes)."""
        if self._since is None:
            return
        now = self._monotonic()
        if now - self._last_failure < SETTLE_SECONDS:
            return
        seconds = now - self._since
        refused, self._since, self._refused = self._refused, None, 0
        log.info("database: writing again after %.0f s (%d operations refused meanwhile)", seconds, refused)
