"""What both backends' stores share besides SQL text: time as stored text, the chat and round
columns and their rows, and the outcomes of an answer batch from the rows it left behind."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.domain.kinds import (
    AnswerMode,
    AnswerPolicy,
    AnswerStatus,
    ChatKind,
    ChatRef,
    Platform,
    RevealPolicy,
    RoundKind,
    RoundState,
)
from bot.domain.records import AnswerOutcome, Chat, ChatSettings, NewAnswer, Round, StoredAnswer


def to_db(when: datetime) -> str:
    """UTC ISO text with fixed width, so string order is time order."""
    if when.tzinfo is None:
        raise ValueError("naive datetime given to the store")
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def from_db(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


CHAT_COLUMNS = (
    "id, platform, chat_key, kind, guild_key, title, bank_id, timezone, language, "
    "reveal_policy, answer_policy, partial_credit, paused"
)


def chat_from_row(row) -> Chat:
    return Chat(
        id=row[0],
        ref=ChatRef(
            platform=Platform(row[1]),
            chat_key=row[2],
            kind=ChatKind(row[3]),
            guild_key=row[4],
            title=row[5],
        ),
        settings=ChatSettings(
            bank_id=row[6],
            timezone=row[7],
            language=row[8],
            reveal_policy=RevealPolicy(row[9]),
            answer_policy=AnswerPolicy(row[10]),
            partial_credit=bool(row[11]),
        ),
        paused=bool(row[12]),
    )


ROUND_COLUMNS = (
    "id, chat_id, bank_id, question_id, kind, opened_at, closes_at, reveal, answer_policy, "
    "partial_credit, state, message_ref, daily_date, contest_id, closed_at, answer_mode"
)


def round_from_row(row) -> Round:
    return Round(
        id=row[0],
        chat_id=row[1],
        bank_id=row[2],
        question_id=row[3],
        kind=RoundKind(row[4]),
        opened_at=from_db(row[5]),  # type: ignore[arg-type]
        closes_at=from_db(row[6]),  # type: ignore[arg-type]
        reveal=RevealPolicy(row[7]),
        answer_policy=AnswerPolicy(row[8]),
        partial_credit=bool(row[9]),
        state=RoundState(row[10]),
        message_ref=row[11],
        daily_date=row[12],
        contest_id=row[13],
        closed_at=from_db(row[14]),
        mode=AnswerMode(row[15]),
    )


def as_stored(new: NewAnswer) -> StoredAnswer:
    """A new answer as the store keeps it (what a first answer to an open round becomes)."""
    return StoredAnswer(
        new.round_id, new.user_id, new.response, new.answered_at, new.verdict, new.fraction, new.points
    )


def answer_outcomes(
    batch: Sequence[NewAnswer], found: Iterable[Sequence[Any]], inserted: Callable[[int], bool]
) -> list[AnswerOutcome]:
    """The outcome of each answer of a batch from the rows the batch's insert left behind
    (seq, round id, eligible, policy, answer id, stored response, time, verdict, fraction,
    points); `inserted(answer_id)` says whether this batch's insert created that answer row."""
    first_seq: dict[tuple[int, int], int] = {}
    for seq, answer in enumerate(batch):
        first_seq.setdefault((answer.round_id, answer.user_id), seq)
    out = []
    for seq, round_id, eligible, policy, answer_id, *stored in found:
        new = batch[seq]
        if round_id is None:
            out.append(AnswerOutcome(AnswerStatus.UNKNOWN_ROUND))
            continue
        if not eligible or answer_id is None:
            out.append(AnswerOutcome(AnswerStatus.CLOSED))
            continue
        inserted_here = inserted(answer_id) and first_seq[(new.round_id, new.user_id)] == seq
        if policy == AnswerPolicy.CHANGEABLE:
            status = AnswerStatus.ACCEPTED if inserted_here else AnswerStatus.CHANGED
            kept = as_stored(new)
        else:
            status = AnswerStatus.ACCEPTED if inserted_here else AnswerStatus.DUPLICATE
            response, answered_at, verdict, fraction, points = stored
            kept = StoredAnswer(
                new.round_id, new.user_id, response, from_db(answered_at),  # type: ignore[arg-type]
                verdict, fraction, points,
            )  # fmt: skip
        out.append(AnswerOutcome(status, kept))
    return out
