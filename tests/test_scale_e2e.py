"""The end-to-end test of several processes (issue 12): two real `studybot run` processes on one
PostgreSQL database, each serving both platforms: Telegram in webhook mode behind the fake's
round-robin delivery, and Discord with 2 shards (process A runs shard 0 of 2, process B shard 1).
A daily in a Telegram group and in a channel of a guild on each shard is posted once; clicks
reach either process and each is answered and counted once, as the reveals and leaderboards
show; and a contest whose process A is stopped (SIGTERM) or killed (SIGKILL) and started again
mid-way shows the players every question, reveal and standings once, in order, with the right
scores (Kahoot's rule over the answers stored), and no question left with its buttons."""

from __future__ import annotations

import contextlib
import re
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.domain.kahoot import PlayerState, score_question
from bot.locales.i18n import t
from tests.contract.conftest import fresh_database, pg_server  # noqa: F401  (fixture)
from tests.fakes.discord_fixtures import StudyWorld, fake_discord  # noqa: F401  (fixture)
from tests.fakes.discord_models import InteractionRecord, MessageRecord
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401  (fixture)
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.fakes.telegram_server import FakeTelegramServer
from tests.pg_server import PgServer
from tests.process import BotProcess, terminate
from tests.test_discord_harness import completed, embed_text
from tests.test_discord_shards import receivers, shard_world
from tests.test_outbox_process import answer_buttons
from tests.test_outbox_storm import kind_of
from tests.test_telegram_harness import _is_question, round_of
from tests.waits import HANG

SECRET = "one-secret-for-every-process_e2e"
URL = "https://bot.example.org/tg/hook"
GROUP = FakeChat(-1001000000120, "supergroup", title="Scale group")
BOSS = FakeUser(120, "Boss", "boss", "en")
PLAYERS = [FakeUser(1200 + i, f"Player{i}", f"player{i}", "en") for i in range(4)]
DAILY_LEAD = 10  # seconds from setting the dailies to their time (3 commands on a loaded machine)
DAILY_DEADLINE = 12  # seconds the daily stays open
# The contest: /contest start 3 30, pauses of 1 s (the config). A question closes as soon as every
# player answered; its 30 s cover the takeover of a killed process's posts (within about 20 s).
QUESTIONS, SECONDS = 3, 30
REVEAL = t("en", "reveal.title")
RECORDED = t("en", "receipt.recorded", choice="B")

BANK = """\
id: e2e
title: Scale e2e bank
language: en
source: written for the scale end-to-end test
questions:
""" + "".join(
    f"""\
  - id: e2e-{n}
    number: {n}
    type: single
    points: 1
    tags: [scale]
    stem: Question {n} of the scale test, answer B
    options: {{A: wrong {n}, B: right {n}, C: wrong too {n}, D: also wrong {n}}}
    answer: B
    explanation: B is right.
"""
    for n in range(1, 6)
)


@dataclass
class Cluster:
    """The two processes and where the fake platforms reach them."""

    telegram: FakeTelegramServer
    discord: FakeDiscord
    config: Path
    env: dict[str, str]
    data: Path
    bots: dict[str, BotProcess]
    targets: dict[str, str]  # process name -> its webhook server's address

    async def start(self, name: str) -> BotProcess:
        shard = {"A": 0, "B": 1}[name]
        webhooks = len(self.telegram.calls("setWebhook"))
        env = {**self.env, "STUDYBOT_DISCORD_SHARDS": f"{shard}/2"}
        bot = await BotProcess.start(self.data / name, self.config, env=env)
        self.bots[name] = bot
        output = await bot.wait_for("telegram webhook: listening on", timeout=60)
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)/tg/hook", output)
        assert port is not None, output
        self.targets[name] = f"http://127.0.0.1:{port[1]}"
        await bot.wait_for(f"shards {shard} of 2", timeout=60)
        await self.telegram.wait_until(lambda: len(self.telegram.calls("setWebhook")) > webhooks, timeout=30)
        self.telegram.webhook_delivery.targets = [self.targets[n] for n in sorted(self.targets)]
        return bot

    def served_by(self, since: int) -> set[str]:
        """The processes that handled Telegram updates delivered since `since` (a log index)."""
        names = {address: name for name, address in self.targets.items()}
        return {names[d.target] for d in self.telegram.webhook_delivery.log[since:] if d.status == 200}


@pytest.fixture
async def cluster(
    tmp_path: Path,
    telegram_server: FakeTelegramServer,  # noqa: F811
    fake_discord: FakeDiscord,  # noqa: F811
    pg_server: PgServer,  # noqa: F811
) -> AsyncIterator[Cluster]:
    bank = tmp_path / "banks" / "e2e.yaml"
    bank.parent.mkdir()
    bank.write_text(BANK, encoding="utf-8")
    config = tmp_path / "studybot.yaml"
    config.write_text(
        f"language: en\ntimezone: UTC\ndefault_bank: e2e\nbank_paths: [{bank.parent}]\n"
        "telegram_webhook_listen: 127.0.0.1\ntelegram_webhook_port: 0\ncontest:\n  pause_seconds: 1\n",
        encoding="utf-8",
    )
    env = {
        "STUDYBOT_DATABASE_URL": await fresh_database(pg_server),
        "TELEGRAM_TOKEN": telegram_server.token, "TELEGRAM_API_BASE": telegram_server.base_url,
        "TELEGRAM_WEBHOOK_URL": URL, "STUDYBOT_TELEGRAM_WEBHOOK_SECRET": SECRET,
        "DISCORD_TOKEN": fake_discord.token, "DISCORD_API_BASE": fake_discord.api_base,
        "DISCORD_GATEWAY_URL": fake_discord.gateway_url,
    }  # fmt: skip
    nodes = Cluster(telegram_server, fake_discord, config, env, tmp_path, {}, {})
    try:
        yield nodes
    finally:
        for bot in nodes.bots.values():
            if bot.proc.returncode is None:
                with contextlib.suppress(TimeoutError):
                    await terminate(bot)
                if bot.proc.returncode is None:
                    bot.proc.send_signal(signal.SIGKILL)
                    await bot.proc.wait()


# ---------------------------------------------------------------- what the players see


def telegram_questions(server: FakeTelegramServer, chat_id: int, kind: str) -> list[dict[str, Any]]:
    """The questions of `kind` ("Daily question", "Contest") the bot posted in a chat, every post."""
    return [
        e.params for e in server.log
        if e.ok and e.method == "sendMessage" and e.params["chat_id"] == chat_id
        and _is_question(e.params["text"]) and kind in e.params["text"].split("\n")[0]
    ]  # fmt: skip


def discord_questions(server: FakeDiscord, world: StudyWorld, kind: str) -> list[MessageRecord]:
    """The messages of a channel posted (first version) as a question of `kind`."""
    found = []
    for message in server.messages_in(world.general):
        first = message.edits[0] if message.edits else message.data
        titles = [e.get("title") or "" for e in first.get("embeds", [])]
        if any(title.startswith(kind) for title in titles):
            found.append(message)
    return found


async def discord_answer(
    server: FakeDiscord, record: InteractionRecord, timeout: float = 20
) -> MessageRecord:
    """The bot's (immediate or deferred) answer to an interaction, once complete."""

    def answered() -> MessageRecord | None:
        if record.response is None:
            return None
        original = server.messages.get(record.original_message_id or 0)
        if original is not None and original.deleted:
            return completed(server, record.followup_ids[-1]) if record.followup_ids else None
        return completed(server, record.original_message_id)

    return await server.wait_for(answered, timeout, f"the answer to interaction {record.id}")


async def kahoot_scores(dsn: str) -> dict[str, int]:
    """Each player's contest points by Kahoot's rule from the answers the database holds, one
    stored answer per question and player, each scored once."""
    db = await asyncpg.connect(dsn)
    try:
        [contest] = await db.fetch("SELECT id, seconds FROM contests")
        rows = await db.fetch(
            "SELECT r.id, r.opened_at, u.display_name, a.answered_at, a.verdict FROM rounds r "
            "JOIN answers a ON a.round_id = r.id JOIN users u ON u.id = a.user_id "
            "WHERE r.contest_id = $1 ORDER BY r.id", contest["id"],
        )  # fmt: skip
    finally:
        await db.close()
    states: dict[str, PlayerState] = {}
    for round_id in sorted({row["id"] for row in rows}):
        for row in (row for row in rows if row["id"] == round_id):
            elapsed = (moment(row["answered_at"]) - moment(row["opened_at"])).total_seconds()
            states[row["display_name"]] = score_question(
                states.get(row["display_name"], PlayerState()), answered=True,
                correct=row["verdict"] == "correct", elapsed=elapsed, timer=contest["seconds"],
            )  # fmt: skip
    return {name: state.points for name, state in states.items()}


def moment(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


async def until(cluster: Cluster, predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Wait on the Telegram fake; a miss shows what the processes said."""
    try:
        return await cluster.telegram.wait_until(predicate, timeout=timeout)
    except AssertionError:
        said = "\n".join(f"--- {n}:\n{b.output[-4000:]}" for n, b in cluster.bots.items())
        seen = "\n".join(f"{e.method} {e.status} {str(e.params.get('text', ''))[:50]!r}"
                         for e in cluster.telegram.log[-40:])  # fmt: skip
        raise AssertionError(f"{what}: not within {timeout} s\n{said}\n--- Telegram saw:\n{seen}") from None


# ---------------------------------------------------------------- the test


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
async def test_two_processes_post_once_answer_every_click_once_and_survive_a_restart_in_a_contest(
    cluster: Cluster, stop: str
) -> None:
    tg, dc = cluster.telegram, cluster.discord
    worlds = [shard_world(dc, 0), shard_world(dc, 1)]  # guild 0 on process A's shard, guild 1 on B's
    tg.add_chat(GROUP)
    tg.set_member_status(GROUP.id, BOSS, "creator")
    for player in PLAYERS:
        tg.set_member_status(GROUP.id, player, "member")
    await cluster.start("A")
    await cluster.start("B")

    # 1. Dailies: set through whichever process gets the command, both processes keep the timer,
    # and each chat's question is posted once.
    at = (datetime.now(UTC) + timedelta(seconds=DAILY_LEAD)).replace(microsecond=0)
    tg.user_message(GROUP, BOSS, f"/daily set {at:%H:%M:%S} {DAILY_DEADLINE}s")
    await tg.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id and "Daily question set"
                              in p["text"], timeout=HANG)  # fmt: skip
    for world in worlds:
        options = {"time": f"{at:%H:%M:%S}", "deadline": f"{DAILY_DEADLINE}s"}
        record = await dc.slash_command(world.general, world.admin, "daily", options, subcommand="set")
        assert "Daily question set" in (await discord_answer(dc, record)).content
    assert datetime.now(UTC) < at, "the dailies were set too slowly to be fired by both processes"

    await until(cluster, lambda: telegram_questions(tg, GROUP.id, "Daily question"), 30, "the Telegram daily")
    tg_daily = next(m for m in tg.messages_in(GROUP.id) if m.callback_data and _is_question(m.text))
    dc_dailies = [
        await dc.wait_for(lambda w=w: discord_questions(dc, w, "Daily question"), 30, "the Discord daily")
        for w in worlds
    ]

    # 2. Clicks: Telegram's take turns between the processes; Discord's go to the guild's shard.
    since = len(tg.webhook_delivery.log)
    round_id = round_of(tg_daily)
    choices = ["B", "B", "A", "B"]
    queries = [
        tg.user_click(GROUP, player, tg_daily.message_id, f"a1:{round_id}:{choice}")
        for player, choice in zip(PLAYERS, choices, strict=True)
    ]
    toasts = [(await tg.wait_for_callback_answer(q, timeout=HANG)).get("text", "") for q in queries]
    assert toasts == [t("en", "receipt.recorded", choice=c) for c in choices]
    assert cluster.served_by(since) == {"A", "B"}

    students: list[list[Any]] = []
    for shard, (world, [question]) in enumerate(zip(worlds, dc_dailies, strict=True)):
        members = [world.student, dc.add_member(world.guild, f"extra{shard}")]
        students.append(members)
        [answer_id] = [c for c in question.custom_ids() if c.startswith("sb:a:") and c.endswith(":B")]
        for member in members:
            record = await dc.click(world.general, member, question.id, answer_id)
            assert (await discord_answer(dc, record)).content == RECORDED
            assert receivers(dc, record) == [(shard, 2)]

    # The deadline: each reveal, edited in once, names everyone who was right.
    def telegram_reveal() -> str | None:
        shown = tg.find_message(GROUP.id, tg_daily.message_id)
        return shown.text if shown is not None and shown.text.startswith(REVEAL) else None

    revealed = await until(cluster, telegram_reveal, DAILY_DEADLINE + 30, "the Telegram reveal")
    assert "(4 in all)" in revealed and "Right: Player0, Player1, Player3" in revealed, revealed
    for [question], members in zip(dc_dailies, students, strict=True):
        text = await dc.wait_for(lambda q=question: REVEAL in embed_text(q) and embed_text(q), 30, "a reveal")
        names = ", ".join(m.user.username for m in members)
        assert "(2 in all)" in text and f"Right: {names}" in text, text

    tg.user_message(GROUP, BOSS, "/leaderboard")
    board = await tg.wait_for_request("sendMessage", lambda p: p["chat_id"] == GROUP.id
                                      and "Leaderboard" in p["text"], timeout=HANG)  # fmt: skip
    for name, right in (("Player0", 1), ("Player1", 1), ("Player3", 1), ("Player2", 0)):
        assert f"{name} — {right} pt ({right}/1)" in board["text"], board["text"]
    for world, members in zip(worlds, students, strict=True):
        record = await dc.slash_command(world.general, world.admin, "leaderboard")
        shown = embed_text(await discord_answer(dc, record))
        for member in members:
            assert f"{member.user.username} — 1 pt (1/1)" in shown, shown

    # Posted once: one question per chat, whichever process fired it.
    assert len(telegram_questions(tg, GROUP.id, "Daily question")) == 1
    assert [len(discord_questions(dc, w, "Daily question")) for w in worlds] == [1, 1]

    # 3. A contest in the Telegram group, its process killed and started again half-way.
    contest_from = len(tg.log)
    tg.user_message(GROUP, BOSS, f"/contest start {QUESTIONS} {SECONDS}")
    for number in range(1, QUESTIONS + 1):
        await until(cluster, lambda n=number: len(telegram_questions(tg, GROUP.id, "Contest")) >= n, 60,
                    f"contest question {number}")  # fmt: skip
        question = next(m for m in reversed(tg.messages_in(GROUP.id)) if m.callback_data
                        and _is_question(m.text) and m.text.startswith("Contest"))  # fmt: skip
        if number == 2 and stop == "SIGTERM":  # mid-contest: process A stops with the question open ...
            assert await terminate(cluster.bots["A"]) == 0
        contest_round = round_of(question)
        for player, choice in zip(PLAYERS[:3], "BAB", strict=True):
            query = tg.user_click(GROUP, player, question.message_id, f"a1:{contest_round}:{choice}")
            toast = (await tg.wait_for_callback_answer(query, timeout=30)).get("text", "")
            assert toast == t("en", "receipt.recorded", choice=choice), toast
        if number == 2:  # ... (or dies with the question closing on the last answer) and comes back
            if stop == "SIGKILL":
                await cluster.bots["A"].kill()
            await cluster.start("A")
    final = t("en", "standings.final")
    ended = lambda: any(final in e.params.get("text", "") for e in tg.log[contest_from:] if e.ok)  # noqa: E731
    await until(cluster, ended, QUESTIONS * (SECONDS + 30), "the contest's end")

    posted = [
        e for e in tg.log[contest_from:]
        if e.ok and e.method in ("sendMessage", "editMessageText") and e.params["chat_id"] == GROUP.id
    ]  # fmt: skip
    steps = ["question" if _is_question(e.params["text"]) else kind_of(e.params["text"]) for e in posted]
    expected = []
    for number in range(1, QUESTIONS + 1):
        expected += ["question", "reveal", f"standings {number}"]
    assert [s for s in steps if s != "other"] == [*expected, "final"], steps
    sent = [e.params["text"] for e in posted if e.method == "sendMessage"]
    assert len(sent) == len(set(sent)), sent  # no message twice
    assert not [m for m in tg.messages_in(GROUP.id) if answer_buttons(m)], "a question kept its buttons"
    standings = [text for text in sent if "Standings after" in text or final in text]
    scores = await kahoot_scores(cluster.env["STUDYBOT_DATABASE_URL"])
    assert sorted(scores) == ["Player0", "Player1", "Player2"] and scores["Player1"] == 0 < scores["Player2"]
    for name, points in scores.items():
        assert re.search(rf"\. {name} — {points}, \d/{QUESTIONS} right", standings[-1]), (scores, standings)
    assert f"Player0 — {scores['Player0']}, {QUESTIONS}/{QUESTIONS} right" in standings[-1]
    assert f"Player1 — 0, 0/{QUESTIONS} right" in standings[-1]

    assert all("Traceback" not in bot.output for bot in cluster.bots.values())
    assert all(SECRET not in bot.output and tg.token not in bot.output for bot in cluster.bots.values())
