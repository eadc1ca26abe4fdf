"""FSRS that learns the learner: per-learner FSRS parameters fitted on their own review history,
re-fitted weekly, and the retention each learner wants their reviews scheduled for.

FSRS's 21 default parameters are fitted on millions of Anki users' reviews; one learner forgets
faster or slower than that crowd, and their own history tells by how much. Once a learner has
`MIN_REVIEWS` final answers, the weekly job fits FSRS's parameters on every review of theirs
(all banks: memory is the learner's, not the bank's) with the optimizer port (`Optimizer`;
adapters/optimizer/ runs fsrs-rs-python in a child process, since the fit holds the GIL). The
parameters are stored per learner (LearnerMemoryStore) and from then on schedule that learner's
cards (bot/domain/spaced.py) and give their retrievability in /ready and /weak
(bot/domain/readiness.py).

Why `MIN_REVIEWS` = 1,000: benchmarks/fsrs_fit.py (80 simulated learners whose true memory
differs from FSRS's defaults) fitted each learner on their first 200 … 1,600 answers only and
scored the fit on their reviews a month later. Up to 800 answers the fit was no better than the
defaults (median log-loss ratio 0.997–1.003, better for about half the learners, up to 12 %
worse for some: it follows the noise of a few dozen lapses); from 1,000 it was better for 72 % of
them (median 0.990), and on each learner's whole history (654–3,991 answers) for 74 %. Below
the threshold the defaults, the memory of millions of Anki users, are the better guess. The
optimizer itself agrees at the low end: on a few hundred reviews it hands back the defaults
unchanged, and up to about a thousand it moves only the four first stabilities.

The job runs on the real scheduler through the Scheduler port (a weekly cron on Mondays at
03:30 UTC), in every process; its firing `fsrs-fit:<ISO week>` is claimed in the same unit of
work as the parameters it stores, so with several processes on one database the week's fit is
stored once. Fitting runs off the event loop (the optimizer port's business); a learner whose
fit fails keeps what they had.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Protocol

from bot.application.firings import Firings
from bot.application.quiz_settings import QuizError
from bot.domain.clock import Clock
from bot.domain.records import DailySchedule
from bot.domain.spaced import rating, valid_parameters
from bot.domain.study_records import StudyAnswer
from bot.ports.scheduler import Scheduler
from bot.ports.storage import UnitOfWork
from bot.ports.study_storage import LearnerMemoryStore

log = logging.getLogger("studybot.study")

MIN_REVIEWS = 1000  # a learner's final answers before their own parameters replace the defaults
DEFAULT_RETENTION = 0.9
# The retentions a learner may ask for: FSRS's own advice. Below 70 % reviews come so late that
# most are failed; above 97 % the workload grows steeply for little more recall.
RETENTION_LOW, RETENTION_HIGH = 0.70, 0.97
FIT_JOB = "fsrs-fit"
FIT_SCHEDULE = DailySchedule(0, "03:30", "UTC", 0, weekdays=(0,))  # weekly: Mondays 03:30 UTC
FIT_GRACE_SECONDS = 6 * 3600.0  # a week's fit missed by more than this (the bot was down) waits a week

# One review of a card, as the optimizer takes it: (FSRS rating 1–4, whole days since the card's
# previous review; 0 for the first and for one the same day).
Review = tuple[int, int]


class Optimizer(Protocol):
    """Fits FSRS's parameters on one learner's cards, each its reviews oldest first; off the
    event loop. Raises on a fit that cannot be made."""

    async def fit(self, cards: Sequence[Sequence[Review]]) -> tuple[float, ...]: ...
    async def close(self) -> None: ...


def card_histories(answers: Iterable[StudyAnswer], slow_seconds: float) -> list[list[Review]]:
    """The learner's answers as the optimizer's cards: per (bank, question), each answer's rating
    (as bot/domain/spaced.py rates it) and the whole days since that card's previous one, counted
    as the `fsrs` scheduler counts them (whole 24-hour periods elapsed, not calendar dates: a
    review 20 hours after the last is a same-day review to it). Fitted on another count, the
    parameters would describe a memory the scheduler never computes: on the benchmark's learners,
    calendar dates made the fit worse than the defaults for half of them."""
    cards: dict[tuple[str, str], list[Review]] = {}
    last: dict[tuple[str, str], datetime] = {}
    for answer in sorted(answers, key=lambda a: a.answered_at):
        key = (answer.bank_id, answer.question_id)
        when = answer.answered_at.astimezone(UTC)
        before = last.get(key)
        days = 0 if before is None else max(0, (when - before).days)
        cards.setdefault(key, []).append((int(rating(answer, slow_seconds)), days))
        last[key] = when
    return list(cards.values())


# ---------------------------------------------------------------- the desired retention


def parse_retention(text: str) -> float:
    """A desired retention as a person types it: 0.85, 85%, 85, ８５％ (a share or a percentage,
    NFKC-folded). Total: any string is a retention within [RETENTION_LOW, RETENTION_HIGH] or a
    QuizError with a catalog sentence."""
    folded = unicodedata.normalize("NFKC", text).strip().replace(",", ".") if len(text) <= 32 else ""
    match = re.fullmatch(r"(\d{1,3}(?:\.\d{1,4})?)\s*(%?)", folded)
    if match is None:
        raise QuizError("review.retention_bad", low=_percent(RETENTION_LOW), high=_percent(RETENTION_HIGH))
    value = float(match.group(1))
    share = value / 100 if match.group(2) or value > 1 else value
    if not math.isfinite(share) or not RETENTION_LOW - 1e-9 <= share <= RETENTION_HIGH + 1e-9:
        raise QuizError("review.retention_range", low=_percent(RETENTION_LOW), high=_percent(RETENTION_HIGH))
    return round(share, 4)


def _percent(share: float) -> int:
    return round(share * 100)


# ---------------------------------------------------------------- the weekly fit


class LearnerFitting:
    """Fits each learner's FSRS parameters weekly (see the module's docstring)."""

    def __init__(self, store: LearnerMemoryStore, optimizer: Optimizer | None, scheduler: Scheduler,
                 clock: Clock, work: UnitOfWork, firings: Firings | None = None, *,
                 slow_seconds: float = 60.0, min_reviews: int = MIN_REVIEWS) -> None:  # fmt: skip
        self.store = store
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.clock = clock
        self.work = work
        self.firings = firings or Firings()
        self.slow_seconds = slow_seconds
        self.min_reviews = min_reviews
        self.when = FIT_SCHEDULE  # weekly; a test sets a nearer time to see the real scheduler fire it

    def schedule(self) -> None:
        """Put the weekly fit on the scheduler; without an optimizer, say once that every learner
        keeps the defaults."""
        if self.optimizer is None:
            log.info("FSRS optimizer fsrs-rs-python not installed: all learners keep the default parameters")
            return

        async def fire() -> None:
            await self.refit()

        self.scheduler.daily(FIT_JOB, self.when, fire, FIT_GRACE_SECONDS)

    async def refit(self) -> int:
        """This week's fit of every learner with enough history, stored once (the firing claimed
        with the parameters); how many learners got new parameters."""
        if self.optimizer is None:
            return 0
        now = self.clock.now()
        year, week, _ = now.astimezone(UTC).isocalendar()
        fitted: list[tuple[int, tuple[float, ...], int]] = []
        for user_id in await self.store.learners_with(self.min_reviews):
            result = await self.fit(user_id)
            if result is not None:
                fitted.append((user_id, *result))
        async with self.work.unit_of_work():
            if not await self.firings.once(f"{FIT_JOB}:{year}-W{week:02d}"):
                return 0  # another process stored this week's fit
            for user_id, parameters, reviews in fitted:
                await self.store.save_parameters(user_id, parameters, reviews, now)
        log.info("fitted FSRS parameters for %d learner(s)", len(fitted))
        return len(fitted)

    async def fit(self, user_id: int) -> tuple[tuple[float, ...], int] | None:
        """The learner's parameters fitted on their history, with how many answers it held (None:
        too few answers, no optimizer, or a fit that failed or came out unusable)."""
        if self.optimizer is None:
            return None
        history = await self.store.review_history(user_id)
        if len(history) < self.min_reviews:
            return None
        try:
            parameters = await self.optimizer.fit(card_histories(history, self.slow_seconds))
        except Exception:  # a fit that fails keeps the learner's parameters as they were
            log.exception("fitting FSRS parameters for learner %s failed", user_id)
            return None
        checked = valid_parameters(parameters)
        return (checked, len(history)) if checked is not None else None

    async def fit_now(self, user_id: int) -> bool:
        """Fit one learner and store it at once (outside the weekly firing); whether it was."""
        result = await self.fit(user_id)
        if result is None:
            return False
        await self.store.save_parameters(user_id, result[0], result[1], self.clock.now())
        return True
