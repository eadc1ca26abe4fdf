"""Live answer counts under posted questions ("3 answered so far"), for any chat platform.

The platform-neutral part: which rounds show a count, when to edit (at most once per interval
per round, the latest count, never after the reveal), and reading the count. An adapter says
which posted questions to track and supplies `show(round_id, count)`, which edits its message
and says how that went; it wraps its reveal edit in `closing(round_id)` so no count edit runs
while the question becomes its reveal, or after.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum

from bot.application.quiz import Quiz
from bot.domain.kinds import AnswerStatus, RoundKind
from bot.domain.records import Round

log = logging.getLogger("studybot.live_counts")


class Shown(Enum):
    """What became of one count edit."""

    DONE = "done"  # the count is on the message (or already was)
    RETRY = "retry"  # a passing failure (network, flood control): the next answer tries again
    STOP = "stop"  # the message cannot take counts any more (deleted, too long): stop there


ShowCount = Callable[[int, int], Awaitable[Shown]]


@dataclass
class _Tracked:
    shown: int = 0
    last_edit: float = float("-inf")
    closed: bool = False
    later: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class LiveCounts:
    """Debounced count edits for tracked rounds of `kinds`; `start` subscribes to answers."""

    def __init__(
        self, quiz: Quiz, interval: float, show: ShowCount,
        kinds: frozenset[RoundKind] = frozenset({RoundKind.DAILY}),
    ) -> None:  # fmt: skip
        self.quiz = quiz
        self.interval = interval
        self._show = show
        self._listener = (kinds, self._on_answer)
        self._tracked: dict[int, _Tracked] = {}
        self._stopped = False

    def start(self) -> None:
        if self._listener not in self.quiz.answer_listeners:
            self.quiz.answer_listeners.append(self._listener)

    def track(self, round_id: int) -> None:
        """Count answers to this round on its posted question from now on."""
        self._tracked[round_id] = _Tracked()

    def tracked(self, round_id: int) -> bool:
        return round_id in self._tracked

    async def _on_answer(self, round_: Round, status: AnswerStatus, user_id: int) -> None:
        await self.answered(round_.id)

    async def answered(self, round_id: int) -> None:
        """An answer was committed: show the new count now, or once the interval has passed."""
        tracked = self._tracked.get(round_id)
        if self._stopped or tracked is None or tracked.closed:
            return
        if tracked.later is not None and not tracked.later.done():
            return  # the pending edit will show the latest count
        wait = tracked.last_edit + self.interval - asyncio.get_running_loop().time()
        if wait <= 0:
            await self._edit(round_id, tracked)
        else:
            tracked.later = asyncio.create_task(self._edit_later(round_id, tracked, wait))

    async def _edit_later(self, round_id: int, tracked: _Tracked, wait: float) -> None:
        await asyncio.sleep(wait)
        await self._edit(round_id, tracked)

    async def _edit(self, round_id: int, tracked: _Tracked) -> None:
        async with tracked.lock:
            if tracked.closed:
                return
            count = await self.quiz.store.answer_count(round_id)
            if count == tracked.shown:
                return
            outcome = await self._show(round_id, count)
            if outcome is Shown.RETRY:
                return
            if outcome is Shown.STOP:
                tracked.closed = True
            tracked.shown = count
            tracked.last_edit = asyncio.get_running_loop().time()

    @contextlib.asynccontextmanager
    async def closing(self, round_id: int) -> AsyncIterator[None]:
        """Held while the question is turned into its reveal: no count edit runs or follows."""
        tracked = self._tracked.pop(round_id, None)
        if tracked is None:
            yield
            return
        tracked.closed = True
        if tracked.later is not None:
            tracked.later.cancel()
        async with tracked.lock:
            yield

    async def stop(self) -> None:
        self._stopped = True
        if self._listener in self.quiz.answer_listeners:
            self.quiz.answer_listeners.remove(self._listener)
        tasks = [t for t in (x.later for x in self._tracked.values()) if t is not None and not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
