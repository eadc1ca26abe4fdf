"""What both processes of the fan-out benchmark share: the app on a benchmark database, and step 1,
setting every chat's daily (benchmarks/fanout.py runs the steps).
"""

from __future__ import annotations

import random
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks._common import (
    bench_bank,
    stderr,
)
from benchmarks.fanout_sink import PlatformRules
from bot.domain.clock import SystemClock, zone
from studybot.bootstrap import App, bootstrap
from studybot.config import Config

# Same instant, four local times (one of them a half-hour zone); the first is the config default.
ZONES = ("Asia/Shanghai", "Europe/Berlin", "America/New_York", "Asia/Kolkata")
SYNCHRONOUS = "NORMAL"


# ---------------------------------------------------------------- fixtures


def bench_config(db: Path) -> Config:
    return Config(
        data_dir=db.parent,
        database=db,
        default_bank="bench",
        language="en",
        timezone=ZONES[0],
        sqlite_synchronous=SYNCHRONOUS,
    )


async def open_app(db: Path) -> App:
    bank = bench_bank(200)
    return await bootstrap(bench_config(db), clock=SystemClock(), rng=random.Random(7), banks={bank.id: bank})


def default_lead(chats: int) -> float:
    """Seconds from now to the fire time: the setup, a fresh process's start-up, and room.

    The setup grows with the square of the chat count (each timezone change rebuilds the core's
    chat cache: see the notes), about 75 s for 10,000 chats on a busy 2-core machine.
    """
    return 10.0 + chats * 0.005 + 0.6 * (chats / 1000) ** 2


# ---------------------------------------------------------------- step 1: setup (parent process)


async def set_dailies(db: Path, rules: PlatformRules, chats: int, fire_at: datetime) -> dict[str, Any]:
    app = await open_app(db)
    local = {tz: fire_at.astimezone(zone(tz)).strftime("%H:%M:%S") for tz in ZONES}
    wrong = 0
    try:
        started = time.perf_counter()
        for i in range(chats):
            tz = ZONES[i % len(ZONES)]
            view = await app.dailies.set_daily(rules.chat_ref(i), local[tz], timezone=tz)
            wrong += view.next_post != fire_at
            if i and i % 2_000 == 0:
                stderr(f"  [{rules.name}] {i:,} dailies set")
        elapsed = time.perf_counter() - started
    finally:
        await app.close()
    return {"seconds": elapsed, "per_second": chats / elapsed, "wrong_next_post": wrong, "local_times": local}
