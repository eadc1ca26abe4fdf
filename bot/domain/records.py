"""Stored domain records: chats and their settings, users, rounds and answers.

These are what the store port reads and writes; they never leave the core (adapters see views).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

# The kinds and references that views speak of too live in bot/domain/kinds.py; stored records use them.
from bot.domain.kinds import (
    AnswerMode,
    AnswerPolicy,
    AnswerStatus,
    ChatRef,
    RevealPolicy,
    RoundKind,
    RoundState,
)


@dataclass(frozen=True, slots=True)
class ChatSettings:
    bank_id: str
    timezone: str
    language: str
    reveal_policy: RevealPolicy = RevealPolicy.PRACTICE
    answer_policy: AnswerPolicy = AnswerPolicy.FIRST
    partial_credit: bool = False


@dataclass(frozen=True, slots=True)
class Chat:
    id: int
    ref: ChatRef
    settings: ChatSettings
    paused: bool = False  # e.g. the user blocked the bot: nothing is posted until they return


@dataclass(frozen=True, slots=True)
class NewRound:
    chat_id: int
    bank_id: str
    question_id: str
    kind: RoundKind
    opened_at: datetime
    closes_at: datetime
    reveal: RevealPolicy
    answer_policy: AnswerPolicy
    partial_credit: bool
    daily_date: str | None = None  # the chat-local date of a daily round; unique per chat
    contest_id: int | None = None
    mode: AnswerMode = AnswerMode.BUTTONS  # how it is answered on Discord: buttons or reactions


@dataclass(frozen=True, slots=True)
class Round:
    id: int
    chat_id: int
    bank_id: str
    question_id: str
    kind: RoundKind
    opened_at: datetime
    closes_at: datetime
    reveal: RevealPolicy
    answer_policy: AnswerPolicy
    partial_credit: bool
    state: RoundState
    message_ref: str | None = None
    daily_date: str | None = None
    contest_id: int | None = None
    closed_at: datetime | None = None
    mode: AnswerMode = AnswerMode.BUTTONS

    def takes_answers(self, now: datetime) -> bool:
        """Open and before its deadline (a round past it may not have been closed yet)."""
        return self.state is RoundState.OPEN and now < self.closes_at


@dataclass(frozen=True, slots=True)
class NewAnswer:
    round_id: int
    user_id: int
    response: str
    answered_at: datetime
    verdict: str
    fraction: float
    points: float
    week_key: str
    month_key: str
    scored_now: bool = False  # graded on the spot (practice): scored in the same transaction


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    round_id: int
    user_id: int
    response: str
    answered_at: datetime
    verdict: str
    fraction: float
    points: float
    display_name: str = ""


@dataclass(frozen=True, slots=True)
class AnswerOutcome:
    status: AnswerStatus
    answer: StoredAnswer | None = None


@dataclass(frozen=True, slots=True)
class ScoreRow:
    user_id: int
    display_name: str
    points: float
    answers: int
    correct: int
    reached_at: datetime
    rank: int = 0


@dataclass(frozen=True, slots=True)
class StreakRecord:
    current: int
    best: int
    last_date: str | None


@dataclass(frozen=True, slots=True)
class UserTotals:
    answers: int
    correct: int
    points: float


@dataclass(frozen=True, slots=True)
class DailySchedule:
    """A chat's daily question: posted at `local_time` in `timezone` on `weekdays` (Monday=0)."""

    chat_id: int
    local_time: str  # HH:MM or HH:MM:SS, chat-local
    timezone: str
    deadline_seconds: int
    weekdays: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6)
    tag: str | None = None
    mode: AnswerMode = AnswerMode.BUTTONS
    enabled: bool = True
    since: datetime | None = None  # when it was last set: earlier occurrences are not "missed"


class ContestPhase(StrEnum):
    QUESTION = "question"  # a question is open until phase_until
    PAUSE = "pause"  # the reveal is out; the next question comes at phase_until
    FINISHED = "finished"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class Contest:
    id: int
    chat_id: int
    question_ids: tuple[str, ...]
    seconds: int
    pause_seconds: float
    position: int  # index into question_ids of the current (or last) question
    phase: ContestPhase
    phase_until: datetime | None
    round_id: int | None
    scored_position: int  # questions scored so far: position + 1 once the current one is scored
    started_at: datetime
    finished_at: datetime | None = None

    @property
    def running(self) -> bool:
        return self.phase in (ContestPhase.QUESTION, ContestPhase.PAUSE)


@dataclass(frozen=True, slots=True)
class ContestScore:
    user_id: int
    display_name: str
    points: int
    correct: int
    answered: int
    streak: int


@dataclass(frozen=True, slots=True)
class StoredBank:
    """A bank uploaded in a chat, as kept in the database: it belongs to one group (Telegram) or
    server (Discord), `owner_key`, and is loaded with the configured banks at start-up. `data`
    is the bank's compiled form (bank/uploads.py); `version` a hash of its content."""

    id: str  # the bank id rounds, answers and reports refer to
    platform: str
    owner_key: str
    name: str  # what /bank list shows and /bank use takes there
    title: str
    version: str
    questions: int
    data: str
    uploaded_at: datetime
    uploaded_by: int | None = None
    # Who looks after it (bot/application/study/bank_owners.py): the chat it was uploaded in (its key on the
    # platform) and the uploader's platform user key, who is sent its reports; None: older rows.
    uploaded_in: str | None = None
    uploader_key: str | None = None
