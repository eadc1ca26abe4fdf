"""Shared fixtures: a small bank, a manual clock, a seeded RNG and a fresh store per test."""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.storage.sqlite.store import SqliteStore
from bot.application.quiz import CoreSettings, Quiz
from bot.domain.clock import ManualClock
from bot.domain.questions import Bank, Question, QuestionType

# A test that spawns `python -m studybot` from a temporary directory imports this tree, not a copy
# of the package installed into the environment (which may be older).
ROOT = Path(__file__).resolve().parent.parent
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)

START = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)  # a Wednesday, 09:00 in Shanghai


def make_bank() -> Bank:
    q = QuestionType
    return Bank(
        id="sample",
        title="Sample bank",
        language="zh-CN",
        source="tests",
        questions=(
            Question("s-1", 1, q.SINGLE, "2+2=?", ("B",), 1.0,
                     (("A", "3"), ("B", "4"), ("C", "5"), ("D", "22")), "2+2 is 4.", ("math",)),
            Question("s-2", 2, q.MULTI, "Primes?", ("A", "B", "D"), 2.0,
                     (("A", "2"), ("B", "3"), ("C", "4"), ("D", "5")), "4 is not prime.", ("math",)),
            Question("s-3", 3, q.JUDGE, "The sky is blue.", ("true",), 1.0, (), "Rayleigh.", ("physics",)),
            Question("s-4", 4, q.FILL, "Adam lr halved from 1e-3?", ("5e-4",), 2.0, (), "1e-3/2.",
                     ("optimization",)),
            Question("s-5", 5, q.SHORT, "Why attention?", ("Because it relates tokens.",), 10.0, (),
                     "", ("transformer",), ("relates tokens", "parallel")),
        ),
    )  # fmt: skip


@pytest.fixture(scope="session", autouse=True)
def _one_chart_worker():
    """The chart worker the harnesses' apps share (tests/fakes/charts.py), stopped at the end."""
    from tests.fakes.charts import shut_down_shared_charts

    yield
    shut_down_shared_charts()


@pytest.fixture
def bank() -> Bank:
    return make_bank()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def store(tmp_path):
    store = await SqliteStore.open(tmp_path / "studybot.db", synchronous="NORMAL")
    yield store
    await store.close()


@pytest.fixture
def settings() -> CoreSettings:
    return CoreSettings(default_bank="sample", timezone="Asia/Shanghai", language="en")


@pytest.fixture
async def quiz(store, bank, settings, clock) -> Quiz:
    quiz = Quiz(store, {bank.id: bank}, settings, clock, random.Random(7))
    yield quiz
    await quiz.flush()


@pytest.fixture
async def make_app(tmp_path, bank, clock):
    """Build apps over one database file, as a restart would; each with a hand-driven scheduler."""
    from studybot.bootstrap import bootstrap
    from studybot.config import Config
    from tests.fakes.charts import shared_charts
    from tests.fakes.ports import ManualScheduler, RecordingPort

    apps = []

    async def build(**config):
        config.setdefault("language", "en")
        config.setdefault("sqlite_synchronous", "NORMAL")
        cfg = Config(data_dir=tmp_path, default_bank="sample", **config)
        app = await bootstrap(
            cfg, clock=clock, rng=random.Random(len(apps)), banks={bank.id: bank},
            scheduler=ManualScheduler(clock), charts=shared_charts(),
        )  # fmt: skip
        app.port = RecordingPort()
        app.add_port(app.port)
        apps.append(app)
        return app

    yield build
    for app in apps:
        if app.store.is_open:
            await app.close()
