"""What the study tools need from storage. The SQLite implementation is
adapters/storage/study_store.py; the contract tests run against it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.study.records import Card, Mistake, StudyAnswer

Key = tuple[int, str, str]  # (user id, bank id, question id)


class StudyStore(Protocol):
    async def unstudied(self, limit: int) -> list[tuple[int, StudyAnswer]]:
        """Committed answers whose grade is final and that no card has seen yet, oldest first,
        with their answer ids."""
        ...

    async def cards(self, keys: Sequence[Key]) -> dict[Key, Card]: ...
    async def mistakes(self, keys: Sequence[Key]) -> dict[Key, Mistake]: ...

    async def save_study(self, answer_ids: Sequence[int], cards: Sequence[Card],
                         mistakes: Sequence[Mistake]) -> bool:  # fmt: skip
        """Store the cards and notebook entries and mark the answers studied, in one transaction;
        False (and nothing stored) when another feeder studied any of them first."""
        ...

    async def due_cards(self, user_id: int, bank_id: str, now: datetime, limit: int) -> list[Card]: ...
    async def next_due(self, user_id: int, bank_id: str) -> datetime | None: ...
    async def due_counts(self, user_id: int, bank_id: str, bounds: Sequence[datetime]) -> list[int]:
        """How many cards fall due by each bound (cumulative)."""
        ...

    async def notebook(self, user_id: int, bank_id: str) -> list[Mistake]:
        """The questions in the notebook (active entries), most missed first."""
        ...

    async def set_favourite(self, user_id: int, bank_id: str, question_id: str, on: bool,
                            at: datetime) -> bool:  # fmt: skip
        """Add or remove; whether anything changed."""
        ...

    async def favourites(self, user_id: int, bank_id: str) -> list[str]: ...
