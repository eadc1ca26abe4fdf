"""The real bot process killed with SIGKILL and restarted: deadlines and dailies are honoured once."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from tests.process import BotProcess, wait_until

TZ = ZoneInfo("Asia/Shanghai")
HEADER = "Daily question · Q"
READY = "studybot console"  # the welcome line, printed once the app has started
DEADLINE = 8  # seconds: room for a slow machine to answer before the round closes
LEAD = 5  # seconds between setting a daily and its time: a loaded machine may take a while to set it


def config_file(tmp_path):
    path = tmp_path / "studybot.yaml"
    path.write_text("language: en\ntimezone: Asia/Shanghai\nsqlite_synchronous: FULL\n")
    return path


def an_answer_to(output: str) -> str:
    """A readable answer to the posted daily: the bank picks it at random, any of five types."""
    header = next(line for line in output.splitlines() if line.startswith(HEADER))
    return "对" if "True or false" in header else "A"  # "A" reads as a letter or as text


def daily_rounds(tmp_path) -> list[tuple]:
    with sqlite3.connect(tmp_path / "data" / "studybot.db") as db:
        return db.execute("SELECT daily_date, state FROM rounds WHERE kind = 'daily'").fetchall()


async def test_killed_mid_round_the_overdue_round_closes_at_start_up(tmp_path):
    config = config_file(tmp_path)
    first = await BotProcess.start(tmp_path / "data", config)
    await first.wait_for(READY)
    fire_at = (datetime.now(TZ) + timedelta(seconds=LEAD)).replace(microsecond=0)
    first.send(f"/daily {fire_at:%H:%M:%S} {DEADLINE}s")
    out = await first.wait_for(HEADER)
    first.send(an_answer_to(out))
    await first.wait_for("Recorded: ")  # acknowledged, so committed
    await first.kill()
    assert "Answer revealed" not in first.output
    await wait_until(fire_at + timedelta(seconds=DEADLINE + 1))  # the deadline passes while it is down

    second = await BotProcess.start(tmp_path / "data", config)
    out = await second.wait_for("Answer revealed")
    assert "(the deadline passed while the bot was offline)" in out
    assert "1 in all" in out  # the answer given before the kill counts
    assert HEADER not in out  # today's daily was already posted: not again
    assert await second.quit() == 0
    assert [state for _, state in daily_rounds(tmp_path)] == ["closed"]


async def test_a_daily_missed_while_down_is_posted_at_start_up_exactly_once(tmp_path):
    config = config_file(tmp_path)
    first = await BotProcess.start(tmp_path / "data", config)
    await first.wait_for(READY)
    fire_at = (datetime.now(TZ) + timedelta(seconds=LEAD)).replace(microsecond=0)
    first.send(f"/daily {fire_at:%H:%M:%S}")
    await first.wait_for("Daily question set")
    await first.kill()
    await wait_until(fire_at + timedelta(seconds=1))

    second = await BotProcess.start(tmp_path / "data", config)
    await second.wait_for(HEADER)
    assert await second.quit() == 0
    third = await BotProcess.start(tmp_path / "data", config)
    third.send("/daily")
    out = await third.wait_for("Daily question:")
    assert await third.quit() == 0
    assert HEADER not in out
    assert daily_rounds(tmp_path) == [(fire_at.date().isoformat(), "open")]
