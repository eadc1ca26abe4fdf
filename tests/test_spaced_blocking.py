"""Reviewing a card never blocks the event loop: fsrs.Card() without an id sleeps 1 ms."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Outcome, StudyAnswer


def test_a_review_does_not_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)  # what fsrs.Card(card_id=None) calls
    spaced = SpacedRepetition()
    answer = StudyAnswer(user_id=1, bank_id="b", question_id="q1", outcome=Outcome.RIGHT,
                         answered_at=datetime(2026, 12, 3, 9, tzinfo=UTC), seconds=5.0)  # fmt: skip
    card = spaced.review(None, answer)
    spaced.review(card, answer)
    assert slept == []
