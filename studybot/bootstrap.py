"""The composition root: one bootstrap() wires store, clock, RNG, banks, scheduler and adapters.

Tests call it with their own clock, RNG and database path; `studybot run` calls it with the
real ones. Nothing else constructs these objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import bank
from adapters.charts.chart_process import ChartProcess
from adapters.optimizer.fsrs_rs import load_optimizer
from adapters.scheduling.aps import ApsScheduler
from adapters.storage.backends import open_broadcast, open_storage
from bank.compiled import CACHE_DIR_NAME, load_banks
from bank.loader import BankError, BankProblem
from bank.uploads import UploadCodec
from bot.application.app import Application, NoHandler, WebAccess
from bot.application.bank_uploads import BankUploads
from bot.application.contests import Contests
from bot.application.daily import SWEEP_JOB, Dailies
from bot.application.firings import Firings
from bot.application.outbox import Outbox
from bot.application.quiz import CoreSettings, Quiz
from bot.application.store_faults import QuietJobs
from bot.application.study.bank_admin import BankAdmin
from bot.application.study.bank_owners import BankOwners
from bot.application.study.feed import StudyFeed
from bot.application.study.memory_fit import LearnerFitting
from bot.application.study.mock_exam import Mocks
from bot.application.study.reminders import ReviewReminders
from bot.application.study.retention import LearnerRetention
from bot.application.study.use_cases import StudyUseCases
from bot.domain.clock import Clock, SystemClock
from bot.domain.questions import Bank
from bot.domain.spaced import SpacedRepetition
from bot.ports.chat import ChatPort
from bot.ports.metrics import Metrics, SchedulerStatus
from bot.ports.scheduler import Scheduler
from bot.ports.storage import Storage, Store, StoreUnavailable
from studybot.config import Config
from studybot.ops import metrics_for

log = logging.getLogger("studybot")

PACKAGED_BANKS = Path(bank.__file__).resolve().parent


SWEEP_SECONDS = 600
OUTBOX_AGE_JOB = "outbox:age"
OUTBOX_AGE_SECONDS = 30
# Several processes on one database (docs/scaling.md): each says it is alive and renews its
# outbox leases every BEAT_SECONDS (counted alive for ALIVE_SECONDS), and sweeps for work a dead
# process left (posts owed, deadlines, contest steps) every DUE_SECONDS; a dead process's work
# is taken over within ALIVE/lease + DUE seconds (under 30 s).
BEAT_JOB = "cluster:beat"
BEAT_SECONDS = 3
ALIVE_SECONDS = 10
DUE_JOB = "cluster:due"
DUE_SECONDS = 5
FORGET_JOB = "cluster:forget"
FORGET_AFTER = timedelta(days=3)  # a firing's claim is kept this long (its date is long gone)


@dataclass
class App:
    config: Config
    storage: Storage  # the whole backend: every aggregate, and units of work across them
    store: Store
    quiz: Quiz
    clock: Clock
    rng: random.Random
    banks: dict[str, Bank]
    scheduler: Scheduler
    outbox: Outbox
    dailies: Dailies
    contests: Contests
    application: Application  # what chat adapters get: commands and answers
    feed: StudyFeed
    mocks: Mocks
    study: StudyUseCases
    metrics: Metrics
    ports: list[ChatPort] = field(default_factory=list)
    fitting: LearnerFitting | None = None  # each learner's FSRS parameters, fitted weekly
    bank_admin: BankAdmin | None = None  # the web app's admin pages for a bank's owners
    broadcast: Any = None  # the Broadcast port's adapter (started and closed here)
    owner: str = "solo"  # this process, in the database's firings, leases and members
    # Filled by whatever decides which process runs due work; /readyz and the metrics report it.
    scheduler_status: Callable[[], SchedulerStatus] | None = None
    started: bool = False
    alive: int = 0  # processes alive on the database at the last heartbeat (0: it did not answer)
    charts: ChartProcess | None = None  # the chart worker, warmed by start
    _feeding: asyncio.Task[None] | None = None
    _resuming: asyncio.Task[None] | None = None

    def add_port(self, port: ChatPort) -> None:
        """A chat adapter the core may post into on its own (dailies, reveals, contests)."""
        self.ports.append(port)
        self.outbox.register(port)

    async def start(self) -> None:
        """Rebuild every job from the database, start the scheduler, then post the dailies missed
        while the bot was down (call with ports added).

        Jobs are added before the scheduler runs, so APScheduler takes them in one go.
        """
        others_running = await self._beat() > 1  # processes already running keep their contests going
        missed = await self.dailies.restore(others_running=others_running)
        await self.contests.restore(others_running=others_running)
        await self.mocks.restore()
        if self.study.reminders is not None:
            await self.study.reminders.restore()
        if self.broadcast is not None:
            await self.broadcast.start()
        self._feeding = asyncio.create_task(self.feed.run(), name="study-feed")
        self._resuming = asyncio.create_task(self.outbox.resume(), name="outbox-resume")
        if self.charts is not None:  # the first /stats should not wait for matplotlib and fonts
            self.charts.warm()
        self.scheduler.every(SWEEP_JOB, SWEEP_SECONDS, self.dailies.sweep_practice)
        self.scheduler.every(OUTBOX_AGE_JOB, OUTBOX_AGE_SECONDS, self._check_outbox)
        self.scheduler.every(BEAT_JOB, BEAT_SECONDS, self._keep_beating)
        self.scheduler.every(DUE_JOB, DUE_SECONDS, self._sweep_due)
        self.scheduler.every(FORGET_JOB, 3600, self._forget_firings)
        if self.fitting is not None:
            self.fitting.schedule()
        start = getattr(self.scheduler, "start", None)
        if start is not None:
            start()
        self.started = True
        # The line an operator (and a test) waits for: started, and its heartbeat in the database.
        log.info("heartbeat: %d process(es) alive on the database; started", self.alive)
        await self.dailies.post_missed(missed)  # the scheduler runs meanwhile: deadlines are not held up

    async def _check_outbox(self) -> None:
        await self.outbox.check_age()

    async def _beat(self) -> int:
        """Say this process is alive, keep its outbox leases, and pace at its share of the rate;
        how many processes are alive (0: the database did not answer)."""
        now = self.clock.now()
        try:
            alive = await self.storage.firings.heartbeat(
                self.owner, now, now + timedelta(seconds=ALIVE_SECONDS)
            )
            await self.outbox.renew()
        except StoreUnavailable as exc:  # the next beat tries again; others may take over meanwhile
            log.debug("heartbeat not written: %s", exc)  # the store warned once for the episode
            self.alive = 0
            return 0
        self.outbox.share(alive)
        if self.started and self.alive == 0 and alive > 0:
            log.info("heartbeat: %d process(es) alive on the database again", alive)
        self.alive = alive
        return alive

    def shared_status(self) -> SchedulerStatus:
        """Several processes: each fires every job and the database's firings decide; no leader.
        Ready while its heartbeat reaches the database (else others take its work over)."""
        ready = self.started and self.alive > 0
        return SchedulerStatus("shared", self.owner, ready=ready)

    async def _keep_beating(self) -> None:
        await self._beat()

    async def _sweep_due(self) -> None:
        """Take over what a dead process left: posts owed, deadlines passed, contest steps due."""
        try:
            await self.outbox.take_over()
            await self.dailies.sweep_overdue()
            await self.contests.sweep()
        except StoreUnavailable:
            return  # the beat says so; the next sweep tries again

    async def _forget_firings(self) -> None:
        before = self.clock.now() - FORGET_AFTER
        await self.storage.firings.forget_firings(before)
        await self.storage.throttles.forget_throttles(before.timestamp())
        await self.storage.web.forget_web_access(self.clock.now())  # the web app's expired links and sessions

    async def quiesce(self) -> None:
        """The first step of stopping the platforms, taken while they can still be reached: no
        post starts any more, and those under way are sent and recorded, so none is sent twice.
        (The console needs none: its posts cannot be cut off, and a script's last ones print
        while it closes.)"""
        await self.outbox.quiesce()

    async def close(self) -> None:
        shutdown = getattr(self.scheduler, "shutdown", None)
        if shutdown is not None:
            await shutdown()
        if self._resuming is not None:
            self._resuming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._resuming
        await self.outbox.close()
        if self.broadcast is not None:
            await self.broadcast.close()
        with contextlib.suppress(Exception):  # leaving lets the others take over at once
            await self.storage.firings.leave(self.owner)
        if self._feeding is not None:
            self._feeding.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._feeding
        await self.quiz.flush()
        await self.study.close()
        if self.fitting is not None and self.fitting.optimizer is not None:
            await self.fitting.optimizer.close()
        await self.storage.close()


def load_all_banks(config: Config) -> dict[str, Bank]:
    """The packaged banks plus any configured ones; a broken bank stops start-up with its errors."""
    paths: list[Path] = [PACKAGED_BANKS, *config.bank_paths]
    banks: dict[str, Bank] = {}
    for loaded in load_banks(paths, cache_dir=config.data_dir / CACHE_DIR_NAME):
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
    scheduler: Scheduler | None = None,
    metrics: Metrics | None = None,
    charts: ChartProcess | None = None,
) -> App:
    clock = clock or SystemClock()
    rng = rng or random.Random()
    banks = banks if banks is not None else load_all_banks(config)
    url = config.database_url.get_secret_value() if config.database_url is not None else None
    storage = await open_storage(url, config.database_path, synchronous=config.sqlite_synchronous)
    store = storage.store
    settings = CoreSettings(
        default_bank=config.default_bank,
        timezone=config.timezone,
        language=config.language,
        reveal_policy=config.reveal_policy,
        answer_policy=config.answer_policy,
        partial_credit=config.partial_credit,
        practice_minutes=config.practice_minutes,
        ask_limit=config.quiz_per_minute.group,
        private_ask_limit=config.quiz_per_minute.private,
    )
    metrics = metrics or metrics_for(config)
    shared = storage.shared  # several processes may run on it: toggles and limits live there
    quiz = Quiz(
        store, banks, settings, clock, rng, metrics=metrics,
        selections=storage.selections if shared else None,
        shared_limits=storage.throttles if shared else None,
    )  # fmt: skip
    schedules = storage.schedules
    # A timed job that meets a database fault ends quietly: the store warned once, and the
    # sweeps take due work again once it is over.
    scheduler = QuietJobs(scheduler or ApsScheduler())
    # This process among those sharing the database: unique even across machines and restarts.
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    broadcast = open_broadcast(storage, owner)
    firings = Firings(storage.firings, owner, clock)
    quiz.share_caches(broadcast)
    outbox = Outbox(
        quiz, storage.outbox, store, clock=clock, metrics=metrics, owner=owner, pin_while_sending=shared
    )
    dailies = Dailies(
        quiz,
        schedules,
        scheduler,
        outbox,
        clock,
        default_time=config.daily.time,
        default_deadline=int(config.daily.deadline_hours * 3600),
        grace_seconds=config.daily.grace_minutes * 60,
        firings=firings,
        broadcast=broadcast,
        spread=shared,
    )
    contests = Contests(
        quiz,
        schedules,
        scheduler,
        outbox,
        clock,
        default_questions=config.contest.questions,
        default_seconds=config.contest.seconds,
        pause_seconds=config.contest.pause_seconds,
        firings=firings,
        shared=shared,
    )
    spaced = SpacedRepetition(slow_seconds=config.study.slow_seconds)
    feed = StudyFeed(storage.study, spaced, graduate_after=config.study.graduate_after, memory=storage.memory)
    mocks = Mocks(
        quiz, storage.mocks, feed, scheduler, outbox, clock, rng, firings, broadcast,
        remind_before=timedelta(minutes=config.study.mock_reminder_minutes),
    )  # fmt: skip
    charts = charts or ChartProcess()
    reminders = ReviewReminders(quiz, storage.study, feed, scheduler, outbox, clock, firings, broadcast)
    uploads = BankUploads(quiz, storage.banks, UploadCodec(), max_bytes=int(config.upload_max_mb * 2**20))
    # The console's one user is whoever runs the bot: an operator of the configured banks.
    owners = BankOwners(quiz, config.admins, uploads, local=frozenset({"console"}))
    study = StudyUseCases(quiz, storage.study, feed, mocks, storage.reports, charts, outbox, clock, reminders,
                          owners, exams=storage.exams)  # fmt: skip
    study.retention = LearnerRetention(quiz, storage.memory)
    fitting = LearnerFitting(storage.memory, load_optimizer(), scheduler, clock, storage, firings,
                             slow_seconds=config.study.slow_seconds)  # fmt: skip
    if study.exams is not None:  # the reminder carries the exam plan and keeps out of quiet hours
        reminders.plans = study.exams
        study.exams.settings_changed.append(reminders.reschedule)
    study.item_answers = storage.item_answers
    await uploads.load()  # the banks groups uploaded, beside the configured ones
    uploads.share(broadcast)
    mocks.bank_names = uploads.visible  # /mock start names banks as /bank list does
    try:
        application = Application(quiz, dailies, contests, study=study, uploads=uploads)
    except NoHandler:  # nothing has started yet but the store, whose thread would keep the process
        await storage.close()
        raise
    # The web app's sign-in (bot/application/web_access.py); studybot/ops.py serves its pages.
    if config.web_url:
        application.web = WebAccess(storage.web, clock, config.web_url, config.telegram_token.value or "")
    app = App(
        config=config, storage=storage, store=store, quiz=quiz, clock=clock, rng=rng, banks=banks,
        scheduler=scheduler, outbox=outbox, dailies=dailies, contests=contests, application=application,
        feed=feed, mocks=mocks, study=study, metrics=metrics, broadcast=broadcast, owner=owner,
        fitting=fitting, bank_admin=BankAdmin(study, storage.item_answers),
        charts=charts,
    )  # fmt: skip
    if shared:
        app.scheduler_status = app.shared_status
    return app
