"""The web app's storage port: one-time sign-in links and sessions, each kept by the hash of its
token (the service is bot/application/web_access.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef


@dataclass(frozen=True, slots=True)
class WebGrant:
    """Whom a link or a session speaks for, and where it acts."""

    platform: Platform
    chat_key: str
    user_key: str
    display_name: str
    expires_at: datetime
    chat_kind: ChatKind = ChatKind.PRIVATE

    @property
    def chat(self) -> ChatRef:
        return ChatRef(self.platform, self.chat_key, self.chat_kind)

    @property
    def user(self) -> UserRef:
        return UserRef(self.platform, self.user_key, self.display_name)


class WebAccessStore(Protocol):
    """One-time links and sessions, each kept by the SHA-256 of its token."""

    async def add_web_link(self, token_hash: str, grant: WebGrant) -> None: ...
    async def take_web_link(self, token_hash: str, now: datetime) -> WebGrant | None:
        """The link's grant, marking it used in the same statement; None when unknown, used or
        expired (so two requests racing for one link get it once between them)."""
        ...

    async def add_web_session(self, token_hash: str, grant: WebGrant) -> None: ...
    async def web_session(self, token_hash: str, now: datetime) -> WebGrant | None: ...
    async def end_web_session(self, token_hash: str) -> None: ...
    async def forget_web_access(self, before: datetime) -> int:
        """Drop the links and sessions that expired before `before`; how many."""
        ...
