"""The vocabulary both stored records and views speak: platforms and kinds of chat, round,
answer mode, status and policy, the references that name a chat and a person, and an option as
shown under a question (its label, and how many picked it at the reveal).

Chat adapters may use these (they cross the boundary in commands and views); the records that
the store keeps (bot/domain/records.py) never leave the core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Platform(StrEnum):
    CONSOLE = "console"
    DISCORD = "discord"
    TELEGRAM = "telegram"


class ChatKind(StrEnum):
    PRIVATE = "private"
    GROUP = "group"


class RevealPolicy(StrEnum):
    PRACTICE = "practice"  # grade and explanation at once
    ROUND = "round"  # only "recorded" until the deadline


class AnswerPolicy(StrEnum):
    FIRST = "first"  # the first answer is final
    CHANGEABLE = "changeable"  # the last answer before the deadline counts


class RoundKind(StrEnum):
    PRACTICE = "practice"
    DAILY = "daily"
    CONTEST = "contest"


class AnswerMode(StrEnum):
    BUTTONS = "buttons"
    REACTIONS = "reactions"


class RoundState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class ChatRef:
    """Where a command came from: a Discord channel (with its guild), a Telegram chat, the console."""

    platform: Platform
    chat_key: str
    kind: ChatKind = ChatKind.GROUP
    guild_key: str | None = None
    title: str = ""
    # The language the platform suggests (a Telegram user's language_code, a Discord server's
    # locale): used only when the chat is first seen, never to override a chosen language.
    language_hint: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class UserRef:
    platform: Platform
    user_key: str
    display_name: str


class AnswerStatus(StrEnum):
    ACCEPTED = "accepted"
    CHANGED = "changed"  # a changeable round: this answer replaced an earlier one
    DUPLICATE = "duplicate"  # an answer was already final; the stored one is returned
    CLOSED = "closed"
    UNKNOWN_ROUND = "unknown_round"


class InputKind(StrEnum):
    """How a question is answered; chat adapters render by this, never by question type."""

    CHOOSE_ONE = "choose_one"  # one option button each; the press is the answer
    CHOOSE_MANY = "choose_many"  # option toggles, then Submit
    ORDER = "order"  # option buttons tapped in order (again: out; undo), then Submit; or typed
    TRUE_FALSE = "true_false"  # two buttons
    TYPED = "typed"  # a typed answer (a form where the platform has one)
    SELF_GRADED = "self_graded"  # a typed answer, then a self-grade against the reference


def toggled(chosen: tuple[str, ...], token: str) -> tuple[str, ...]:
    """A tap on option `token` of a selection being built (CHOOSE_MANY, ORDER): the token added at
    the end, or taken out if `chosen` has it. A selection is its tokens in the order tapped; a
    multiple choice reads them as a set, an ordering as the order."""
    return tuple(t for t in chosen if t != token) if token in chosen else (*chosen, token)


@dataclass(frozen=True, slots=True)
class OptionView:
    token: str  # what the adapter sends back to answer: "A", "true", ...
    label: str  # what the button shows: "A", "对", ...
    text: str  # the option's text ("" for judge)


@dataclass(frozen=True, slots=True)
class OptionCount:
    token: str
    label: str
    count: int
    correct: bool


class SelfGrade(StrEnum):
    """How a learner grades their own short answer: the three buttons under a reveal."""

    FULL = "full"  # 全对: the whole of the points
    HALF = "half"  # 部分: half of them
    ZERO = "zero"  # 不会: none


SELF_GRADE_LEVELS: tuple[str, ...] = tuple(level.value for level in SelfGrade)
# What a person may type (or give `/grade`) for each level besides its id: the buttons' labels in
# Chinese (simplified and traditional) and the numbers the prompt offers; the English labels are
# the catalog's, matched where a reply is read.
SELF_GRADE_WORDS: dict[SelfGrade, tuple[str, ...]] = {
    SelfGrade.FULL: ("全对", "全對", "1"),
    SelfGrade.HALF: ("部分", "2"),
    SelfGrade.ZERO: ("不会", "不會", "3"),
}
