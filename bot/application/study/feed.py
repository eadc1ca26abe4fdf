"""Feeds committed answers into the study tools: each final answer, whatever its mode (daily,
contest, practice, mock), reviews its FSRS card and updates the mistake notebook, exactly once.

The answers table is the source of truth and a flag on each answer says it was studied, so a
crash between the answer's commit and its study loses nothing: the next catch-up takes it.
Study reads call `catch_up` first, so a person's last answer is always in what they see.
"""

from __future__ import annotations

import asyncio
import logging

from bot.application.store_faults import log_failure
from bot.domain import notebook
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Card, LearnerMemory, Mistake, StudyAnswer
from bot.ports.study_storage import Key, LearnerMemoryStore, StudyStore

log = logging.getLogger("studybot.study")


class StudyFeed:
    def __init__(self, store: StudyStore, spaced: SpacedRepetition, *, graduate_after: int = 2,
                 batch: int = 500, memory: LearnerMemoryStore | None = None) -> None:  # fmt: skip
        self.store = store
        self.memory = memory  # each learner's own FSRS parameters and retention (None: the defaults)
        self.spaced = spaced
        self.graduate_after = graduate_after
        self.batch = batch
        self._lock = asyncio.Lock()

    async def catch_up(self) -> int:
        """Study every answer not yet studied; how many were."""
        total = 0
        async with self._lock:
            while rows := await self.store.unstudied(self.batch):
                keys: list[Key] = list(dict.fromkeys((a.user_id, a.bank_id, a.question_id) for _, a in rows))
                cards = await self.store.cards(keys)
                mistakes = await self.store.mistakes(keys)
                memories = await self.memories({key[0] for key in keys})
                changed_cards: dict[Key, Card] = {}
                changed_mistakes: dict[Key, Mistake] = {}
                for _, answer in rows:
                    key = (answer.user_id, answer.bank_id, answer.question_id)
                    memory = memories.get(answer.user_id)
                    cards[key] = changed_cards[key] = self.spaced.review(cards.get(key), answer, memory)
                    entry = notebook.after_answer(mistakes.get(key), answer, self.graduate_after)
                    if entry is not None:
                        mistakes[key] = changed_mistakes[key] = entry
                ids = [answer_id for answer_id, _ in rows]
                if not await self.store.save_study(ids, list(changed_cards.values()),
                                                   list(changed_mistakes.values())):  # fmt: skip
                    continue  # another feeder took some of these: read again
                total += len(rows)
        return total

    async def study(self, answers: list[StudyAnswer]) -> None:
        """Feed answers that are not in the answers table (a mock's, at hand-in) the same way."""
        if not answers:
            return
        async with self._lock:
            keys: list[Key] = list(dict.fromkeys((a.user_id, a.bank_id, a.question_id) for a in answers))
            cards = await self.store.cards(keys)
            mistakes = await self.store.mistakes(keys)
            memories = await self.memories({key[0] for key in keys})
            changed_cards: dict[Key, Card] = {}
            changed_mistakes: dict[Key, Mistake] = {}
            for answer in answers:
                key = (answer.user_id, answer.bank_id, answer.question_id)
                memory = memories.get(answer.user_id)
                cards[key] = changed_cards[key] = self.spaced.review(cards.get(key), answer, memory)
                entry = notebook.after_answer(mistakes.get(key), answer, self.graduate_after)
                if entry is not None:
                    mistakes[key] = changed_mistakes[key] = entry
            await self.store.save_study([], list(changed_cards.values()), list(changed_mistakes.values()))

    async def memories(self, user_ids: set[int]) -> dict[int, LearnerMemory]:
        """The learners' own memory models (none without a memory store: the defaults)."""
        if self.memory is None or not user_ids:
            return {}
        return await self.memory.memories(sorted(user_ids))

    async def run(self, interval: float = 1.0) -> None:
        """Keep catching up in the background (cancel to stop)."""
        while True:
            try:
                await self.catch_up()
            except Exception:  # the answers stay unstudied and are taken on the next pass
                log_failure(log, "feeding answers to the study tools failed")
            await asyncio.sleep(interval)
