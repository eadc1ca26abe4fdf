"""The mistake notebook (错题本): a wrong answer puts the question in; it leaves after
`graduate_after` right answers in a row. How often it was missed is kept for good."""

from __future__ import annotations

from dataclasses import replace

from bot.domain.study_records import Mistake, Outcome, StudyAnswer


def after_answer(entry: Mistake | None, answer: StudyAnswer, graduate_after: int) -> Mistake | None:
    """The notebook entry after this answer; None when the question was never missed."""
    if answer.outcome is Outcome.WRONG:
        if entry is None:
            return Mistake(answer.user_id, answer.bank_id, answer.question_id, 1, 0, answer.answered_at)
        return replace(entry, misses=entry.misses + 1, right_streak=0, last_missed=answer.answered_at,
                       active=True)  # fmt: skip
    if entry is None:
        return None
    if answer.outcome is Outcome.PARTLY:  # not wrong, not yet known: the run starts again
        return replace(entry, right_streak=0)
    streak = entry.right_streak + 1
    return replace(entry, right_streak=streak, active=entry.active and streak < graduate_after)
