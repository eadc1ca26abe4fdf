"""Telegram's passing failures — network errors, 5xx, an answer that is not JSON, timeouts, flood
control — told apart from our own bugs: the first are one warning line each, with the retry;
only the second keep their traceback.

A 30-second outage of the Bot API used to leave dozens of tracebacks (`JSONDecodeError`,
`Invalid server response`) from PTB's polling loop and JSON parser.

Passing means Telegram's own: PTB's `NetworkError` (the network, a timeout of the Bot API, a
5xx, a body that is not JSON) and flood control. Any other exception, an `OSError` of our own
included, is a bug and keeps its traceback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

log = logging.getLogger("studybot.telegram")
# PTB's polling loop waits 1 s after a first failure, then 1.5 times longer each time, up to 30 s.
FIRST_WAIT, BACKOFF, LONGEST_WAIT = 1.0, 1.5, 30.0  # the polling backoff (PTB's own, reckoned the same)
_FIRST_WAIT, _BACKOFF, _LONGEST_WAIT = FIRST_WAIT, BACKOFF, LONGEST_WAIT


class InvalidResponse(NetworkError):
    """The Bot API (or a proxy before it) answered something that is not JSON: an HTML error
    page from a load balancer, a cut-off body. Passing, like any network error."""


def is_transient(error: BaseException | None) -> bool:
    """A failure of the platform or the network, not of our code: retrying may well succeed."""
    if isinstance(error, BadRequest):  # PTB's BadRequest is a NetworkError: a refusal, not a failure
        return False
    return isinstance(error, NetworkError | RetryAfter)  # TimedOut, 5xx, bad JSON: NetworkErrors


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


class PollingErrors:
    """PTB's `error_callback` for polling: one warning per failed getUpdates, with the wait
    before the next try (PTB's own backoff, reckoned the same way)."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._failures = 0
        self._last = float("-inf")

    def __call__(self, error: TelegramError) -> None:
        now = self._monotonic()
        wait = _FIRST_WAIT * _BACKOFF**self._failures
        if now - self._last > _LONGEST_WAIT + 5:  # polling worked in between: PTB starts over
            self._failures, wait = 0, _FIRST_WAIT
        self._last = now
        self._failures += 1
        if isinstance(error, RetryAfter):
            log.warning("telegram polling: flood control (%s); retrying after it", error)
        elif is_transient(error):
            log.warning("telegram polling failed (%s); retry %d in %.1f s",
                        describe(error), self._failures, min(wait, _LONGEST_WAIT))  # fmt: skip
        else:  # a refusal of our request (BadRequest, Conflict): worth its traceback
            log.error("telegram polling failed; retrying", exc_info=error)


class FloodControlLine(logging.Filter):
    """PTB's rate limiter logs the flood control it gives up on (after its own retries) with a
    traceback, at ERROR; our caller (the outbox, or the reply path) handles the RetryAfter, so
    it is one warning line naming it. In a 429 storm that was a traceback on every attempt."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, RetryAfter):
            record.msg = f"{record.getMessage()} ({describe(error)}); the caller retries later"
            record.args = None
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return True


RATE_LIMITER_LOGGER = "telegram.ext.AIORateLimiter"
_FLOOD_FILTER = FloodControlLine()


def install() -> None:
    logging.getLogger(RATE_LIMITER_LOGGER).addFilter(_FLOOD_FILTER)


def uninstall() -> None:
    logging.getLogger(RATE_LIMITER_LOGGER).removeFilter(_FLOOD_FILTER)
