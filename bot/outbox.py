"""Posting into chats on the core's own initiative (dailies, reveals, contests), paced and retried.

Every platform's ChatPort is wrapped by a Pacer that keeps under the platform's published
limits (overall per second, per chat per window), so many chats scheduled at the same minute
do not trip 429s. A failed post is retried with backoff; one that finally fails is logged with
the chat. A blocked bot pauses the chat; a moved chat (Telegram supergroup upgrade) is
followed to its new id.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol, TypeVar

from bot.kinds import ChatRef
from bot.messages import Notice, QuestionView, RevealView, StandingsView
from bot.ports import ChatGone, ChatMoved, ChatPort, PaceLimits, PostRejected, RetryLater
from bot.records import Chat

log = logging.getLogger("studybot.outbox")
T = TypeVar("T")


class Pacer:
    """Admits posts at most `per_second` overall and `per_chat` per `per_chat_window` per chat.

    Posts are admitted one at a time, evenly spaced, so thousands of waiting posts form a queue
    instead of a thundering herd; and a sliding window over the times posts were actually let
    through caps any one second even after the event loop stalled and every slot came due at
    once. `margin` keeps a little under the limit so that jitter between our clock and the
    platform's never pushes a window over.
    """

    def __init__(
        self,
        limits: PaceLimits,
        *,
        margin: float = 0.95,
        monotonic: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limits = limits
        self._interval = 1.0 / (limits.per_second * margin)
        self._per_window = max(1, int(limits.per_second * margin))
        self._chat_window = limits.per_chat_window / margin
        self._monotonic = monotonic
        self._sleep = sleep
        self._next_slot = 0.0
        self._sent: deque[float] = deque()  # admissions in the last second, overall
        self._global = asyncio.Lock()
        self._recent: dict[str, deque[float]] = {}
        self._chat_locks: dict[str, asyncio.Lock] = {}
        self._admitted = 0

    def _now(self) -> float:
        return self._monotonic() if self._monotonic else asyncio.get_running_loop().time()

    async def _wait_window(self, times: deque[float], limit: int, window: float) -> None:
        while True:
            now = self._now()
            # A tolerance, so float rounding never leaves a wait too small to move the clock.
            while times and times[0] + window - now <= 1e-6:
                times.popleft()
            if len(times) < limit:
                return
            await self._sleep(times[0] + window - now)

    async def acquire(self, chat_key: str) -> None:
        lock = self._chat_locks.get(chat_key)
        if lock is None:
            lock = self._chat_locks[chat_key] = asyncio.Lock()
        async with lock:
            recent = self._recent.setdefault(chat_key, deque())
            await self._wait_window(recent, self.limits.per_chat, self._chat_window)
            async with self._global:
                now = self._now()
                slot = max(now, self._next_slot)
                if slot > now:
                    await self._sleep(slot - now)
                await self._wait_window(self._sent, self._per_window, 1.0)
                now = self._now()
                self._next_slot = now + self._interval
                self._sent.append(now)
            recent.append(now)
        self._admitted += 1
        if self._admitted % 1024 == 0 and len(self._recent) > 1024:
            self._forget_idle(now)

    def _forget_idle(self, now: float) -> None:
        """Drop chats with nothing in their window, so 10,000 chats posted once don't stay."""
        for key in [
            k for k, times in self._recent.items() if not times or now - times[-1] >= self._chat_window
        ]:
            lock = self._chat_locks.get(key)
            if lock is None or not lock.locked():
                self._recent.pop(key, None)
                self._chat_locks.pop(key, None)


class ChatChanges(Protocol):
    """Where the outbox reports a chat the platform says moved or is gone (the core's Quiz)."""

    async def move_chat(self, ref: ChatRef, new_chat_key: str) -> None: ...
    async def pause_chat(self, ref: ChatRef) -> None: ...


class Outbox:
    def __init__(
        self,
        chats: ChatChanges,
        *,
        max_attempts: int = 6,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.chats = chats
        self.ports: dict[str, ChatPort] = {}
        self.pacers: dict[str, Pacer] = {}
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self.failures = 0

    def register(self, port: ChatPort, pacer: Pacer | None = None) -> None:
        self.ports[str(port.platform)] = port
        self.pacers[str(port.platform)] = pacer or Pacer(port.limits)

    async def post_question(self, chat: Chat, view: QuestionView) -> str | None:
        return await self._deliver(chat, "question", lambda port, c: port.post_question(c.ref, view))

    async def post_reveal(self, chat: Chat, view: RevealView) -> None:
        await self._deliver(chat, "reveal", lambda port, c: port.post_reveal(c.ref, view))

    async def post_standings(self, chat: Chat, view: StandingsView) -> None:
        await self._deliver(chat, "standings", lambda port, c: port.post_standings(c.ref, view))

    async def post_notice(self, chat: Chat, notice: Notice) -> None:
        await self._deliver(chat, notice.key, lambda port, c: port.post_notice(c.ref, notice))

    async def _deliver(
        self, chat: Chat, what: str, call: Callable[[ChatPort, Chat], Awaitable[T]]
    ) -> T | None:
        platform = str(chat.ref.platform)
        port = self.ports.get(platform)
        if port is None:
            log.error("no %s adapter running: %s for chat %s not posted", platform, what, chat.ref.chat_key)
            self.failures += 1
            return None
        pacer = self.pacers[platform]
        for attempt in range(1, self.max_attempts + 1):
            await pacer.acquire(chat.ref.chat_key)
            try:
                return await call(port, chat)
            except ChatMoved as moved:
                log.info("chat %s moved to %s; following it", chat.ref.chat_key, moved.new_chat_key)
                await self.chats.move_chat(chat.ref, moved.new_chat_key)
                chat = replace(chat, ref=replace(chat.ref, chat_key=moved.new_chat_key))
                continue
            except ChatGone as gone:
                log.warning("chat %s %s: %s; its schedules are paused", platform, chat.ref.chat_key, gone)
                await self.chats.pause_chat(chat.ref)
                return None
            except PostRejected as rejected:
                self.failures += 1
                log.error("%s to %s chat %s rejected: %s", what, platform, chat.ref.chat_key, rejected)
                return None
            except RetryLater as later:
                delay = later.retry_after
                reason = str(later)
            except Exception as exc:  # a platform or network failure: retried, then logged
                delay = min(self.base_delay * 2 ** (attempt - 1), self.max_delay)
                reason = f"{type(exc).__name__}: {exc}"
            if attempt < self.max_attempts:
                log.info("%s to %s chat %s failed (%s); retry %d in %.1fs",
                         what, platform, chat.ref.chat_key, reason, attempt, delay)  # fmt: skip
                await self._sleep(delay)
        self.failures += 1
        log.error("gave up posting %s to %s chat %s after %d attempts: %s",
                  what, platform, chat.ref.chat_key, self.max_attempts, reason)  # fmt: skip
        return None
