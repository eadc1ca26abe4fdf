"""Builders shared by the contract tests: chats, users, rounds and answers with plain defaults."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.domain.kinds import (
    AnswerPolicy,
    ChatKind,
    ChatRef,
    Platform,
    RevealPolicy,
    RoundKind,
    UserRef,
)
from bot.domain.records import ChatSettings, NewAnswer, NewRound

T0 = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)
SETTINGS = ChatSettings(bank_id="sample", timezone="Asia/Shanghai", language="en")


def chat_ref(key: str = "c1", guild: str | None = None) -> ChatRef:
    return ChatRef(Platform.DISCORD, key, ChatKind.GROUP, guild, f"chat {key}")


def user_ref(key: str, name: str | None = None) -> UserRef:
    return UserRef(Platform.DISCORD, key, name or f"user {key}")


def new_round(
    chat_id: int,
    *,
    question: str = "s-1",
    kind: RoundKind = RoundKind.DAILY,
    reveal: RevealPolicy = RevealPolicy.ROUND,
    policy: AnswerPolicy = AnswerPolicy.FIRST,
    opened: datetime = T0,
    minutes: int = 60,
    daily_date: str | None = None,
) -> NewRound:
    return NewRound(
        chat_id, "sample", question, kind, opened, opened + timedelta(minutes=minutes), reveal, policy,
        False, daily_date,
    )  # fmt: skip


def answer(
    round_id: int,
    user_id: int,
    response: str = "B",
    *,
    at: datetime = T0 + timedelta(minutes=1),
    right: bool = True,
    points: float = 1.0,
    scored_now: bool = False,
) -> NewAnswer:
    return NewAnswer(
        round_id, user_id, response, at, "correct" if right else "wrong", 1.0 if right else 0.0,
        points if right else 0.0, "2026-W49", "2026-12", scored_now,
    )  # fmt: skip
