"""The chat port: what the core needs to post into a chat platform, and how posting fails."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.domain.kinds import ChatRef, Platform
from bot.ports.missing_extra import MissingExtra as MissingExtra  # re-exported: a backend raises it
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView


class PostError(Exception):
    """A chat platform refused or failed a post."""


class RetryLater(PostError):
    def __init__(self, retry_after: float, reason: str = "") -> None:
        super().__init__(reason or f"retry after {retry_after}s")
        self.retry_after = retry_after


class PostRejected(PostError):
    """The platform refused the post for good (a 400: bad content, message gone); retrying cannot help."""


class ChatGone(PostError):
    """The bot can no longer post there: blocked by the user, removed from the group."""


class ChatMoved(PostError):
    """The chat has a new id (a Telegram group upgraded to a supergroup)."""

    def __init__(self, new_chat_key: str) -> None:
        super().__init__(f"chat moved to {new_chat_key}")
        self.new_chat_key = new_chat_key


@dataclass(frozen=True, slots=True)
class PaceLimits:
    """A platform's posting limits: overall per second, and per chat per window."""

    per_second: float
    per_chat: int
    per_chat_window: float


class ChatPort(Protocol):
    """What the core asks a chat platform to do when nobody asked first (schedules, contests)."""

    @property
    def platform(self) -> Platform: ...

    limits: PaceLimits

    async def post_question(self, chat: ChatRef, view: QuestionView) -> str | None:
        """Post a question; return the reference needed to edit it later."""
        ...

    async def post_reveal(self, chat: ChatRef, view: RevealView) -> None: ...
    async def post_standings(self, chat: ChatRef, view: StandingsView) -> None: ...
    async def post_notice(self, chat: ChatRef, notice: Notice) -> None: ...
