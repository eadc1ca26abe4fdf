"""Crossing types: inbound commands (who, where, what) and outbound views adapters render.

Adapters build commands from platform events, call the core, and lay out the views it returns.
All are frozen dataclasses; times are timezone-aware.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.domain.kinds import (
    AnswerPolicy,
    AnswerStatus,
    InputKind,
    OptionCount,
    OptionView,
    RevealPolicy,
    RoundKind,
)
from bot.domain.question_types import TYPES
from bot.domain.questions import QuestionType
from bot.domain.windows import Window

# ---------------------------------------------------------------- inbound commands


# ---------------------------------------------------------------- outbound views


@dataclass(frozen=True, slots=True)
class QuestionView:
    round_id: int
    chat_id: int
    kind: RoundKind
    qtype: QuestionType
    input_kind: InputKind  # how it is answered: what adapters render by
    number: int
    stem: str
    options: tuple[OptionView, ...]
    points: float
    opened_at: datetime
    closes_at: datetime
    reveal: RevealPolicy
    answer_policy: AnswerPolicy
    language: str
    timezone: str
    bank_title: str = ""
    contest_position: tuple[int, int] | None = None  # (question n, of total) in a contest
    mode: str = "buttons"  # buttons | reactions (Discord dailies may use reactions)
    place: tuple[int, int] | None = None  # (n, of total) in sequential practice: 第 12 / 62 题
    # The pictures shown with the stem: their file names in bank `bank_id` (App.pictures gives
    # the files), references only, so the outbox keeps no bytes.
    bank_id: str = ""
    images: tuple[str, ...] = ()
    question_id: str = ""  # the bank's question (the web app draws its ☆ or ★)
    # Sentences already in the language shown just before the question (plain text, adapters
    # escape them): what became of the person's practice question before it (skipped, with
    # its answer), or the summary of the run a new mode replaced.
    lead: str = ""
    # The message of an earlier copy of this question (a contest question asked again after a
    # restart, its timer anew): its answer buttons are taken off once this copy is posted.
    replaces: str | None = None

    @property
    def multi(self) -> bool:
        return self.input_kind is InputKind.CHOOSE_MANY

    @property
    def typed(self) -> bool:
        """Answered with text (fill, short) rather than a choice."""
        return self.input_kind in (InputKind.TYPED, InputKind.SELF_GRADED)


@dataclass(frozen=True, slots=True)
class ReceiptView:
    """What the answering user alone is told after their answer is committed (or refused)."""

    round_id: int
    status: AnswerStatus | str
    language: str
    response: str = ""
    response_label: str = ""  # the response as shown: "B", "A、C", "对", the text
    graded: bool = False  # True when grade and explanation may be shown now
    verdict: str | None = None
    points: float = 0.0
    correct_label: str = ""
    explanation: str = ""
    reference: str = ""  # short items: the reference answer, for self-grading
    key_points: tuple[str, ...] = ()
    detail: str = ""  # why a response was refused (invalid answer)
    # a short answer scored by its key points: those it covers and misses, and the item's
    # points (`points` is then the provisional score)
    covered: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    out_of: float = 0.0


@dataclass(frozen=True, slots=True)
class RevealView:
    round_id: int
    chat_id: int
    kind: RoundKind
    qtype: QuestionType
    number: int
    stem: str
    options: tuple[OptionView, ...]
    correct_tokens: tuple[str, ...]
    correct_label: str
    explanation: str
    counts: tuple[OptionCount, ...]
    total_answers: int
    right: tuple[str, ...]  # display names of who was right, first answer first
    streaks: tuple[tuple[str, int], ...]  # (name, current streak) for dailies
    language: str
    message_ref: str | None = None
    late: bool = False  # closed after its deadline (the bot was down)
    key_points: tuple[str, ...] = ()

    @property
    def input_kind(self) -> InputKind:
        """How the question was answered (its buttons, disabled at the reveal, follow it)."""
        return TYPES[self.qtype].input_kind


@dataclass(frozen=True, slots=True)
class LeaderRow:
    rank: int
    name: str
    points: float
    answers: int
    correct: int


@dataclass(frozen=True, slots=True)
class LeaderboardView:
    window: Window
    guild_wide: bool
    rows: tuple[LeaderRow, ...]
    own: LeaderRow | None
    language: str


@dataclass(frozen=True, slots=True)
class StatsView:
    name: str
    answers: int
    correct: int
    points: float
    rank: int | None
    streak: int
    best_streak: int
    language: str

    @property
    def accuracy(self) -> float:
        return self.correct / self.answers if self.answers else 0.0


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    name: str
    points: int
    correct: int
    answered: int
    moved_up: int = 0  # places gained with the last question

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True, slots=True)
class StandingsView:
    """Contest standings: after a question (top rows, who moved up) or at the end (podium, table)."""

    contest_id: int
    rows: tuple[StandingRow, ...]
    position: int  # questions done
    total: int
    final: bool
    stopped: bool
    language: str


@dataclass(frozen=True, slots=True)
class ContestStatusView:
    contest_id: int | None
    running: bool
    position: int
    total: int
    seconds: int
    players: int
    language: str


@dataclass(frozen=True, slots=True)
class DailyView:
    enabled: bool
    local_time: str
    timezone: str
    deadline_seconds: int
    weekdays: tuple[int, ...]
    tag: str | None
    mode: str
    next_post: datetime | None
    language: str


@dataclass(frozen=True, slots=True)
class Notice:
    """A plain message from the core: a refusal, a confirmation. `key` is a catalog id."""

    key: str
    language: str
    params: tuple[tuple[str, object], ...] = ()
    # The message this notice answers (Caller.message_ref), where the platform can reply to it.
    reply_to: str | None = None

    def param_dict(self) -> dict[str, object]:
        return dict(self.params)


def notice(key: str, language: str, **params: object) -> Notice:
    return Notice(key, language, tuple(params.items()))
