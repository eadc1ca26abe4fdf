"""Who runs a command and where (Caller), and the requests the quiz use cases take from a chat:
ask, submit, self-grade, leaderboard, stats."""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.kinds import ChatKind, ChatRef, UserRef
from bot.domain.questions import QuestionType
from bot.domain.windows import Window


@dataclass(frozen=True, slots=True)
class Ask:
    chat: ChatRef
    user: UserRef | None = None
    tag: str | None = None
    qtype: QuestionType | None = None
    review: bool = False  # only questions this user got wrong here
    only: frozenset[str] | None = None  # only these question ids (a number, the next in order, tags)


@dataclass(frozen=True, slots=True)
class SubmitAnswer:
    round_id: int
    user: UserRef
    response: str


@dataclass(frozen=True, slots=True)
class SelfGrade:
    round_id: int
    user: UserRef
    level: str  # full | half | zero (or 全对 / 部分 / 不会)


@dataclass(frozen=True, slots=True)
class ShowLeaderboard:
    chat: ChatRef
    user: UserRef | None = None
    window: Window = Window.ALL
    guild_wide: bool = False
    limit: int = 10


@dataclass(frozen=True, slots=True)
class ShowStats:
    chat: ChatRef
    user: UserRef


@dataclass(frozen=True, slots=True)
class Caller:
    """Who runs a command, and where. `admin` is the platform's word: a group's admin (Telegram
    administrator, Discord Manage Server); always true in one's own private chat."""

    chat: ChatRef
    user: UserRef | None
    admin: bool = False
    # The caller's own language (a Discord client's locale), for replies only they see; None:
    # the chat's. Public replies always speak the chat's language.
    language: str | None = None
    # The platform's reference to the message that ran the command, where there is one (a
    # Telegram message; not a Discord slash command): what a later notice may answer.
    message_ref: str | None = None

    @property
    def private(self) -> bool:
        return self.chat.kind is ChatKind.PRIVATE
