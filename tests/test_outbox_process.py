"""The real `studybot run` (Telegram long polling against the fake Bot API) killed with SIGKILL
and restarted: in the middle of a 429 storm while a daily closes and a contest runs, every reveal,
contest step and standing is still posted, in order, once, a contest question the storm held back
is posted after it (its time counts from then), and no question keeps its buttons; in
the middle of a 200-click burst, every click is answered before the kill or handled after the
restart, and counted once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import sys
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeChat, FakeMessage, FakeUser
from tests.fakes.telegram_server import FakeTelegramServer, LoggedRequest
from tests.process import BotProcess, terminate
from tests.test_outbox_storm import POSTS_AND_EDITS, kind_of
from tests.test_telegram_harness import _is_question

GROUP = FakeChat(-1001000000077, "supergroup", title="Storm group")
BOSS = FakeUser(10, "Boss", "boss", "en")
REVEAL = t("en", "reveal.title")
DAILY_DEADLINE = 12  # seconds: the daily closes while the contest runs, in the storm
CONTEST = "/contest start 3 5"  # three questions of 5 s; pauses of 3 s (the config below)
LEAD = 4  # seconds between setting the daily and its time


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "studybot.yaml"
    path.write_text("language: en\ntimezone: UTC\ncontest:\n  pause_seconds: 3\n", encoding="utf-8")
    return path


@contextlib.asynccontextmanager
async def running(server: FakeTelegramServer, tmp_path: Path) -> AsyncIterator[list[BotProcess]]:
    """The bots `start_bot` starts into the yielded list; SIGTERM whatever still runs after."""
    bots: list[BotProcess] = []
    yield bots
    for bot in bots:
        if bot.proc.returncode is None:
            await terminate(bot)


async def start_bot(server: FakeTelegramServer, tmp_path: Path, bots: list[BotProcess]) -> BotProcess:
    env = {"TELEGRAM_TOKEN": server.token, "TELEGRAM_API_BASE": server.base_url}
    polls = server.poll_generation
    bot = await BotProcess.start(tmp_path / "data", config_file(tmp_path), env=env)
    bots.append(bot)
    # Polling: the new process's first getUpdates (a newer poll generation than any before it).
    await server.wait_until(lambda: server.poll_generation > polls and server.waiting_polls > 0, timeout=60)
    return bot


def database(tmp_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(tmp_path / "data" / "studybot.db")


def owed(tmp_path: Path) -> list[str]:
    """What the outbox table holds (what `studybot outbox` lists), oldest first."""
    with contextlib.closing(database(tmp_path)) as db:
        return [row[0] for row in db.execute("SELECT what FROM outbox ORDER BY id")]


async def until(server: FakeTelegramServer, predicate, timeout: float, since: int, bot: BotProcess) -> None:
    """Wait for `predicate` on the fake's state; a miss shows what the fake saw and the bot said."""
    try:
        await server.wait_until(predicate, timeout=timeout)
    except AssertionError:
        seen = [(e.method, e.status, str(e.params.get("text", ""))[:60]) for e in server.log[since:]]
        shown = f"not within {timeout} s; requests: {seen}\nbot:\n{bot.output[-6000:]}"
        raise AssertionError(shown) from None


async def studybot_outbox(tmp_path: Path) -> str:
    """The output of `studybot outbox` on the bot's database."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "studybot", "--config", str(config_file(tmp_path)), "outbox",
        env={**os.environ, "STUDYBOT_DATA_DIR": str(tmp_path / "data")},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    async with asyncio.timeout(60):
        out, _ = await proc.communicate()
    assert proc.returncode == 0, out
    return out.decode()


def finished(tmp_path: Path) -> bool:
    """The contest is over and the daily's round closed (in the database)."""
    with contextlib.closing(database(tmp_path)) as db:
        contests = db.execute("SELECT phase FROM contests").fetchall()
        dailies = db.execute("SELECT state FROM rounds WHERE kind = 'daily'").fetchall()
    return contests == [("finished",)] and dailies == [("closed",)]


def daily_closed(tmp_path: Path) -> bool:
    with contextlib.closing(database(tmp_path)) as db:
        return db.execute("SELECT state FROM rounds WHERE kind = 'daily'").fetchall() == [("closed",)]


def refused(server: FakeTelegramServer, since: int, method: str, match) -> bool:
    return any(e.status == 429 and e.method == method and match(e.params) for e in server.log[since:])


def first_reveal_refused(server: FakeTelegramServer, since: int, first_id: int, tmp_path: Path) -> bool:
    """The first question closed in the storm: its reveal (the head of the chat's queue) was
    refused, and the standings wait behind it in the outbox."""

    def is_first_reveal(p: dict) -> bool:
        return p["message_id"] == first_id and p["text"].startswith(f"<b>{REVEAL}")

    return refused(server, since, "editMessageText", is_first_reveal) and owed(tmp_path)[:2] == [
        "reveal", "standings",
    ]  # fmt: skip


def held_at_the_second(server: FakeTelegramServer, since: int, first_id: int, tmp_path: Path) -> bool:
    return second_question_held(tmp_path)


def second_question_held(tmp_path: Path) -> bool:
    """The second question asked in the storm and not posted: its round open, waiting behind the
    first one's reveal and standings (its timer to rebuild at start-up)."""
    with contextlib.closing(database(tmp_path)) as db:
        at_second = db.execute("SELECT phase, position FROM contests").fetchall() == [("question", 1)]
    return at_second and owed(tmp_path)[:3] == ["reveal", "standings", "question"]


@pytest.mark.parametrize("kill_point", [first_reveal_refused, held_at_the_second])
async def test_killed_in_a_storm_while_a_daily_closes_and_a_contest_runs(
    telegram_server: FakeTelegramServer, tmp_path: Path, kill_point  # noqa: F811
) -> None:
    server = telegram_server
    server.set_member_status(GROUP.id, BOSS, "creator")
    async with running(server, tmp_path) as bots:
        first_bot = await start_bot(server, tmp_path, bots)
        fire_at = (datetime.now(UTC) + timedelta(seconds=LEAD)).replace(microsecond=0)
        server.user_message(GROUP, BOSS, f"/daily set {fire_at:%H:%M:%S} {DAILY_DEADLINE}s")
        daily = await server.wait_for_request(
            "sendMessage", lambda p: p["chat_id"] == GROUP.id and _is_question(p["text"]), timeout=30
        )
        daily_id = question_id(server, daily)
        server.user_message(GROUP, BOSS, CONTEST)
        contest = await server.wait_for_request(
            "sendMessage", lambda p: p["chat_id"] == GROUP.id and _is_question(p["text"]), timeout=20
        )
        first_id = question_id(server, contest)
        storm_from = len(server.log)
        server.storm(*POSTS_AND_EDITS, retry_after=1)

        at_kill_point = lambda: kill_point(server, storm_from, first_id, tmp_path)  # noqa: E731
        await until(server, at_kill_point, 40, storm_from, first_bot)
        await first_bot.kill()
        assert "gave up" not in first_bot.output
        listed = await studybot_outbox(tmp_path)  # what an operator sees while the bot is down
        [row] = [line.split() for line in listed.splitlines() if line.startswith(f"telegram:{GROUP.id}")]
        assert int(row[1]) >= 2 and row[4] == "reveal", listed  # the reveal next, the standings after

        second_bot = await start_bot(server, tmp_path, bots)
        # Still in the storm: the daily closes; the contest waits at its second question, which
        # nobody has seen yet (its time counts from its post); nothing delivered.
        await until(server, lambda: daily_closed(tmp_path), 60, storm_from, second_bot)
        await until(server, lambda: second_question_held(tmp_path), 30, storm_from, second_bot)
        server.calm()
        await until(server, lambda: finished(tmp_path) and not owed(tmp_path), 90, storm_from, second_bot)
        assert await terminate(second_bot) == 0, second_bot.output

    delivered = [
        e for e in server.log[storm_from:] if e.ok and e.method in ("sendMessage", "editMessageText")
    ]
    steps = [kind_of(e.params["text"]) for e in delivered if not is_daily(e, daily_id)]
    assert [k for k in steps if k != "other"] == [
        "reveal", "standings 1", "reveal", "standings 2", "reveal", "standings 3", "final",
    ], steps  # fmt: skip
    daily_reveals = [e for e in delivered if is_daily(e, daily_id)]
    assert len(daily_reveals) == 1 and daily_reveals[0].params["text"].startswith(f"<b>{REVEAL}")
    # The second question, held back by the storm, posted after it (then the third): each once.
    questions = [e for e in delivered if e.method == "sendMessage" and _is_question(e.params["text"])]
    assert len(questions) == 2, [e.params["text"][:60] for e in questions]
    for message_id in (daily_id, first_id):
        shown = server.find_message(GROUP.id, message_id)
        assert shown is not None and shown.text.startswith(REVEAL) and answer_buttons(shown) == []
    assert not [m for m in server.messages_in(GROUP.id) if answer_buttons(m)], "a question kept its buttons"


def answer_buttons(message: FakeMessage) -> list[str]:
    """The buttons that answer a question (a reveal keeps only the ☆ that stars the question)."""
    return [data for data in message.callback_data if not data.startswith("f1:")]


def question_id(server: FakeTelegramServer, params: dict) -> int:
    return next(m.message_id for m in server.messages_in(GROUP.id) if m.params is params)


def is_daily(entry: LoggedRequest, daily_id: int) -> bool:
    return entry.method == "editMessageText" and entry.params["message_id"] == daily_id


# ---------------------------------------------------------------- a click burst


CLICKS = 200
ASKER = FakeUser(1000, "Asker", "asker", "en")


async def test_killed_in_a_click_burst_every_click_is_handled_once(
    telegram_server: FakeTelegramServer, tmp_path: Path  # noqa: F811
) -> None:
    server = telegram_server
    async with running(server, tmp_path) as bots:
        first_bot = await start_bot(server, tmp_path, bots)
        server.user_message(GROUP, ASKER, "/quiz single")
        await server.wait_for_request(
            "sendMessage", lambda p: p["chat_id"] == GROUP.id and "reply_markup" in p, timeout=30
        )
        question = next(m for m in reversed(server.messages_in(GROUP.id)) if m.callback_data)
        choices = [d for d in question.callback_data if d.startswith("a1:")]
        users = [FakeUser(300_000 + i, f"User {i}", f"user{i}", "en") for i in range(CLICKS)]
        queries = [
            server.user_click(GROUP, user, question.message_id, choices[i % len(choices)])
            for i, user in enumerate(users)
        ]

        def answered() -> int:
            return sum(1 for q in queries if server.callbacks[q].answer is not None)

        await server.wait_until(lambda: answered() >= CLICKS // 5, timeout=60)
        await first_bot.kill()
        before_kill = answered()
        assert before_kill < CLICKS, "the burst was over before the kill: nothing to show"

        second_bot = await start_bot(server, tmp_path, bots)
        await server.wait_until(lambda: answered() == CLICKS, timeout=90)
        await server.wait_until(lambda: not server.pending_updates, timeout=30)  # all confirmed
        assert await terminate(second_bot) == 0, second_bot.output

    answers = Counter(
        e.params["callback_query_id"] for e in server.log if e.method == "answerCallbackQuery"
    )
    never = [q for q in queries if server.callbacks[q].answer is None]
    assert never == []  # 0 clicks never handled
    with contextlib.closing(database(tmp_path)) as db:
        stored, users_stored = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT user_id) FROM answers WHERE round_id = ?",
            (int(choices[0].split(":")[1]),),
        ).fetchone()
    assert stored == users_stored == CLICKS  # each click counted, and once
    # Told on stdout so a run shows how much the kill caught in flight.
    print(f"\nburst: {before_kill} clicks answered before the kill, {CLICKS - before_kill} after the "
          f"restart; {sum(n > 1 for n in answers.values())} answered twice (re-delivered)")  # fmt: skip
    assert "Traceback" not in first_bot.output + second_bot.output


# ---------------------------------------------------------------- a stop while a post is on its way


def contest_over(tmp_path: Path) -> bool:
    with contextlib.closing(database(tmp_path)) as db:
        return db.execute("SELECT phase FROM contests").fetchall() == [("finished",)] and not owed(tmp_path)


async def test_stopped_while_a_question_is_on_its_way_its_message_is_recorded(
    telegram_server: FakeTelegramServer, tmp_path: Path  # noqa: F811
) -> None:
    """SIGTERM while Telegram has taken a contest question but its answer is still on the wire:
    the stop waits for the answer and records the message (before, it closed the connection and
    lost it: with two processes, the other one then revealed the question in a new message and the
    question kept its buttons, as a CI run of tests/test_scale_e2e.py showed)."""
    server = telegram_server
    server.set_member_status(GROUP.id, BOSS, "creator")
    async with running(server, tmp_path) as bots:
        first_bot = await start_bot(server, tmp_path, bots)
        held = server.hold("sendMessage", lambda p: p["chat_id"] == GROUP.id and _is_question(p["text"]))
        server.user_message(GROUP, BOSS, "/contest start 1 5")
        await until(server, lambda: held.arrived, 30, 0, first_bot)  # in the chat; the bot not told
        held_id = question_id(server, held.params)
        first_bot.proc.send_signal(signal.SIGTERM)
        await first_bot.wait_for("stopping")
        held.release()  # the answer reaches a bot that is stopping
        assert await terminate(first_bot) == 0, first_bot.output
        assert "may be sent again" not in first_bot.output, first_bot.output

        second_bot = await start_bot(server, tmp_path, bots)
        await until(server, lambda: contest_over(tmp_path), 60, 0, second_bot)
        assert await terminate(second_bot) == 0, second_bot.output

    # Asked, and asked again after the restart with its whole time (one process alone): the
    # first copy loses its answer buttons, which it can only do if its message was recorded.
    asked = [e for e in server.log if e.ok and e.method == "sendMessage" and _is_question(e.params["text"])]
    assert len(asked) == 2, [e.params["text"][:60] for e in asked]
    first, again = (e.response["result"]["message_id"] for e in asked)
    assert first == held_id
    shown = server.find_message(GROUP.id, first)
    assert shown is not None and _is_question(shown.text) and answer_buttons(shown) == [], shown
    revealed = server.find_message(GROUP.id, again)
    assert revealed is not None and revealed.text.startswith(REVEAL) and answer_buttons(revealed) == []
    assert not [m for m in server.messages_in(GROUP.id) if answer_buttons(m)], "a question kept its buttons"
    assert "Traceback" not in first_bot.output + second_bot.output
