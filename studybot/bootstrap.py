"""The composition root: one bootstrap() wires store, clock, RNG, banks, scheduler and adapters.

Tests call it with their own clock, RNG and database path; `studybot run` calls it with the
real ones. Nothing else constructs these objects.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from pathlib import Path

import bank
from adapters.storage.sqlite_store import SqliteStore
from bank.loader import BankError, BankProblem, load_banks
from bot.clock import Clock, SystemClock
from bot.model import Bank
from bot.quiz import CoreSettings, Quiz
from studybot.config import Config

log = logging.getLogger("studybot")

PACKAGED_BANKS = Path(bank.__file__).resolve().parent


@dataclass
class App:
    config: Config
    store: SqliteStore
    quiz: Quiz
    clock: Clock
    rng: random.Random
    banks: dict[str, Bank]
    adapters: list[object] = field(default_factory=list)

    async def close(self) -> None:
        await self.quiz.flush()
        await self.store.close()


def load_all_banks(config: Config) -> dict[str, Bank]:
    """The packaged banks plus any configured ones; a broken bank stops start-up with its errors."""
    paths: list[Path] = [PACKAGED_BANKS, *config.bank_paths]
    banks: dict[str, Bank] = {}
    for loaded in load_banks(paths):
        banks[loaded.id] = loaded
    if config.default_bank not in banks:
        known = ", ".join(sorted(banks)) or "none"
        message = f"default bank {config.default_bank!r} not found; loaded: {known}"
        raise BankError([BankProblem("config", None, None, message)])
    return banks


async def bootstrap(
    config: Config,
    *,
    clock: Clock | None = None,
    rng: random.Random | None = None,
    banks: dict[str, Bank] | None = None,
) -> App:
    clock = clock or SystemClock()
    rng = rng or random.Random()
    banks = banks if banks is not None else load_all_banks(config)
    store = await SqliteStore.open(config.database_path, synchronous=config.sqlite_synchronous)
    settings = CoreSettings(
        default_bank=config.default_bank,
        timezone=config.timezone,
        language=config.language,
        reveal_policy=config.reveal_policy,
        answer_policy=config.answer_policy,
        partial_credit=config.partial_credit,
        practice_minutes=config.practice_minutes,
    )
    quiz = Quiz(store, banks, settings, clock, rng)
    return App(config=config, store=store, quiz=quiz, clock=clock, rng=rng, banks=banks)
