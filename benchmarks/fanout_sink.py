"""A fake chat platform for the fan-out benchmark: a ChatPort that enforces a platform's rate limits.

Job: stand in, in-process, for Telegram's or Discord's sending API. Every post the core makes is
checked against the platform's published limits, as the platform would check it, and either
accepted (recorded with the event loop's time) or refused with `RetryLater(retry_after)`, the
core's name for an HTTP 429; each refusal is counted. The port's `limits` attribute tells the
core's Pacer the same published numbers, so a 429 here means the Pacer let through more than the
platform allows.

Limits, as sliding windows over accepted posts (a refused post does not count):
  telegram  at most 30 messages in any 1 s overall, at most 20 per minute in one group;
            retry_after is a whole number of seconds (Bot API `parameters.retry_after`).
  discord   at most 50 requests in any 1 s overall, at most 5 per 5 s in one channel;
            retry_after is in seconds with millisecond precision (the 429 JSON body).
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from dataclasses import dataclass, field

from bot.domain.kinds import ChatKind, ChatRef, Platform
from bot.ports.chat import PaceLimits, RetryLater
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView


@dataclass(frozen=True)
class PlatformRules:
    name: str
    platform: Platform
    per_second: int  # overall, in any sliding window of `window` seconds
    per_chat: int  # per chat (group / channel), in any sliding window of `per_chat_window`
    per_chat_window: float
    whole_seconds: bool  # retry_after rounded up to whole seconds (Telegram) or not (Discord)
    window: float = 1.0

    @property
    def limits(self) -> PaceLimits:
        return PaceLimits(self.per_second, self.per_chat, self.per_chat_window)

    def chat_ref(self, index: int) -> ChatRef:
        """The benchmark's chat number `index` on this platform (a group / a guild text channel)."""
        if self.platform is Platform.TELEGRAM:
            return ChatRef(Platform.TELEGRAM, str(-1_001_000_000_000 - index), ChatKind.GROUP,
                           title=f"study group {index}")  # fmt: skip
        guild = str(1_100_000_000_000_000_000 + index // 50)  # 50 channels a guild
        return ChatRef(Platform.DISCORD, str(1_200_000_000_000_000_000 + index), ChatKind.GROUP,
                       guild_key=guild, title=f"study-{index}")  # fmt: skip


TELEGRAM = PlatformRules("telegram", Platform.TELEGRAM, 30, 20, 60.0, whole_seconds=True)
DISCORD = PlatformRules("discord", Platform.DISCORD, 50, 5, 5.0, whole_seconds=False)
RULES = {r.name: r for r in (TELEGRAM, DISCORD)}


@dataclass(frozen=True, slots=True)
class Post:
    at: float  # loop.time() when accepted
    kind: str  # question / reveal / standings / notice
    chat_key: str
    round_id: int | None


@dataclass(frozen=True, slots=True)
class Refusal:
    at: float
    chat_key: str
    scope: str  # "global" or "chat"
    retry_after: float


@dataclass
class LimitedSink:
    """The ChatPort: accepts posts within the platform's limits, raises RetryLater past them."""

    rules: PlatformRules
    posts: list[Post] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.platform = str(self.rules.platform)
        self.limits = self.rules.limits
        self._overall: deque[float] = deque()
        self._per_chat: dict[str, deque[float]] = {}
        self._questions = 0
        self._goal: int | None = None
        self._reached = asyncio.Event()

    # ------------------------------------------------------------ the platform's check

    def _admit(self, chat_key: str) -> float:
        now = asyncio.get_running_loop().time()
        rules = self.rules
        overall = self._overall
        while overall and now - overall[0] >= rules.window:
            overall.popleft()
        recent = self._per_chat.get(chat_key)
        if recent is None:
            recent = self._per_chat[chat_key] = deque()
        while recent and now - recent[0] >= rules.per_chat_window:
            recent.popleft()
        if len(overall) >= rules.per_second:
            self._refuse(now, chat_key, "global", overall[0] + rules.window - now)
        if len(recent) >= rules.per_chat:
            self._refuse(now, chat_key, "chat", recent[0] + rules.per_chat_window - now)
        overall.append(now)
        recent.append(now)
        return now

    def _refuse(self, now: float, chat_key: str, scope: str, wait: float) -> None:
        retry_after = max(1, math.ceil(wait)) if self.rules.whole_seconds else round(max(wait, 0.001), 3)
        self.refusals.append(Refusal(now, chat_key, scope, retry_after))
        raise RetryLater(retry_after, f"429 Too Many Requests ({scope}): retry after {retry_after}")

    def _record(self, kind: str, chat: ChatRef, round_id: int | None) -> None:
        at = self._admit(chat.chat_key)
        self.posts.append(Post(at, kind, chat.chat_key, round_id))
        if kind == "question":
            self._questions += 1
            if self._goal is not None and self._questions >= self._goal:
                self._reached.set()

    # ------------------------------------------------------------ ChatPort

    # The outbox hands each post the chat's ref (ChatPort); anything else raising here would only
    # be retried with backoff by the outbox, so nothing would ever be delivered.
    async def post_question(self, chat: ChatRef, view: QuestionView) -> str:
        self._record("question", chat, view.round_id)
        return f"{self.platform}-msg-{view.round_id}"

    async def post_reveal(self, chat: ChatRef, view: RevealView) -> None:
        self._record("reveal", chat, view.round_id)

    async def post_standings(self, chat: ChatRef, view: StandingsView) -> None:
        self._record("standings", chat, None)

    async def post_notice(self, chat: ChatRef, notice: Notice) -> None:
        self._record("notice", chat, None)

    # ------------------------------------------------------------ for the benchmark

    @property
    def questions(self) -> int:
        return self._questions

    async def wait_for_questions(self, count: int, timeout: float) -> bool:
        """Wait until `count` questions were accepted (event-driven); False on timeout."""
        self._goal = count
        if self._questions >= count:
            return True
        try:
            async with asyncio.timeout(timeout):
                await self._reached.wait()
        except TimeoutError:
            return False
        return True

    def max_in_window(self, window: float = 1.0) -> int:
        """The most accepted posts in any sliding window of `window` seconds (a self-check)."""
        times = sorted(p.at for p in self.posts)
        best, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] >= window:
                start += 1
            best = max(best, end - start + 1)
        return best
