"""What the exam plan needs from storage (adapters/storage/exam_store.py; the contract tests in
tests/contract/test_exam_plans.py run it on both backends)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from bot.domain.exam_records import ExamDate, LearnerSettings


class ExamStore(Protocol):
    async def set_exam(self, exam: ExamDate, at: datetime) -> None:
        """Set (or replace) the learner's exam on the bank (`at`: when they set it)."""
        ...

    async def clear_exam(self, user_id: int, bank_id: str) -> bool:
        """Remove it; whether there was one."""
        ...

    async def exam(self, user_id: int, bank_id: str) -> ExamDate | None: ...

    async def learner_settings(self, user_id: int) -> LearnerSettings:
        """The learner's settings (the defaults when they set none)."""
        ...

    async def set_learner_settings(self, settings: LearnerSettings) -> None: ...

    async def answer_times(self, user_id: int, bank_id: str) -> list[tuple[str, datetime, float | None]]:
        """Every final answer of the learner on the bank, oldest first: (question id, answered
        at, seconds it took when it was a practice round, else None)."""
        ...
