"""Contract: each learner's memory model (desired retention, fitted FSRS parameters), the review
history it is fitted on, and the weekly fit stored once across processes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import fsrs

from bot.application.firings import Firings
from bot.application.study.memory_fit import LearnerFitting, Review
from bot.domain.clock import ManualClock
from bot.domain.kinds import AnswerPolicy, RevealPolicy, RoundKind
from bot.domain.study_records import Outcome
from tests.contract.helpers import SETTINGS, T0, answer, chat_ref, new_round, user_ref

# FSRS's defaults with the first stabilities a learner's own (floats with long expansions: kept exactly)
FITTED = (0.1 / 7, 1 / 3, 2 / 3, 22 / 7, *fsrs.Scheduler().parameters[4:])


class CountingOptimizer:
    """An optimizer that returns fixed parameters and counts what it was given."""

    def __init__(self, parameters: tuple[float, ...]) -> None:
        self.parameters = parameters
        self.calls: list[int] = []

    async def fit(self, cards: Sequence[Sequence[Review]]) -> tuple[float, ...]:
        self.calls.append(sum(len(c) for c in cards))
        return self.parameters

    async def close(self) -> None:
        pass


async def _history(storage, who: str = "me") -> int:
    """A learner with four final answers (two on s-1 a day apart, a practice answer on s-2 and a
    wrong one on s-3) and two that are not final (pending, changeable in an open round)."""
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await store.ensure_users([user_ref(who)])
    day = timedelta(days=1)
    first = await store.open_round(new_round(chat.id, question="s-1"))
    again = await store.open_round(new_round(chat.id, question="s-1", opened=T0 + day))
    practice_round = new_round(
        chat.id, question="s-2", kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE, opened=T0 + 2 * day
    )
    practice = await store.open_round(practice_round)
    wrong = await store.open_round(new_round(chat.id, question="s-3", opened=T0 + 3 * day))
    open_changeable = await store.open_round(
        new_round(chat.id, question="s-4", policy=AnswerPolicy.CHANGEABLE, opened=T0 + 4 * day)
    )
    await store.record_answers([
        answer(first.id, me, at=T0 + timedelta(minutes=1)),
        answer(again.id, me, at=T0 + day + timedelta(minutes=1)),
        answer(practice.id, me, at=T0 + 2 * day + timedelta(seconds=75)),
        answer(wrong.id, me, "A", right=False, at=T0 + 3 * day + timedelta(minutes=1)),
        answer(open_changeable.id, me, at=T0 + 4 * day + timedelta(minutes=1)),
    ])  # fmt: skip
    return me


async def test_retention_and_parameters_are_kept_apart_and_exactly(storage):
    memory = storage.memory
    me = await _history(storage)
    assert await memory.memories([me]) == {}
    await memory.set_retention(me, 0.85)
    (kept,) = (await memory.memories([me, 999])).values()
    assert (kept.user_id, kept.desired_retention, kept.parameters, kept.fitted_reviews) == (me, 0.85, None, 0)
    await memory.save_parameters(me, FITTED, 812, T0)
    kept = (await memory.memories([me]))[me]
    assert kept.parameters == FITTED and kept.fitted_reviews == 812 and kept.fitted_at == T0
    assert kept.desired_retention == 0.85  # a fit keeps the learner's retention
    await memory.set_retention(me, 0.9)
    assert (await memory.memories([me]))[me].parameters == FITTED  # and a retention keeps the fit
    await memory.save_parameters(me, None, 0, T0 + timedelta(days=7))
    assert (await memory.memories([me]))[me].parameters is None


async def test_a_fit_before_any_retention_starts_at_the_default(storage):
    me = await _history(storage)
    await storage.memory.save_parameters(me, FITTED, 4, T0)
    assert (await storage.memory.memories([me]))[me].desired_retention == 0.9


async def test_the_review_history_is_every_final_answer_oldest_first(storage):
    me = await _history(storage)
    history = await storage.memory.review_history(me)
    assert [(a.question_id, a.outcome) for a in history] == [
        ("s-1", Outcome.RIGHT), ("s-1", Outcome.RIGHT), ("s-2", Outcome.RIGHT), ("s-3", Outcome.WRONG),
    ]  # fmt: skip
    assert [a.seconds for a in history] == [None, None, 75.0, None]  # time taken: practice only
    assert await storage.memory.learners_with(4) == [me]
    assert await storage.memory.learners_with(6) == []  # the pending and changeable ones do not count


async def test_the_weeks_fit_is_stored_once_whichever_process_fires_it(storage):
    me = await _history(storage)
    clock = ManualClock(T0 + timedelta(days=7))
    fitted = []
    for owner in ("process-a", "process-b"):
        optimizer = CountingOptimizer(FITTED)
        fitting = LearnerFitting(storage.memory, optimizer, None, clock, storage,  # type: ignore[arg-type]
                                 Firings(storage.firings, owner, clock), min_reviews=4)  # fmt: skip
        fitted.append(await fitting.refit())
        assert optimizer.calls == [4]
    assert fitted == [1, 0]  # the second process's claim of this week's firing lost
    kept = (await storage.memory.memories([me]))[me]
    assert kept.parameters == FITTED and kept.fitted_reviews == 4
