"""The real `studybot run` on Discord (discord.py against the fake Discord) killed with SIGKILL in
a 429 storm on every channel post and edit, while a daily closes and a contest runs, then
restarted: after the storm every reveal, contest step and standing is posted, in order, once,
the contest question the storm held back is posted then, and no question keeps its buttons (the
case issue 14 reported: a reveal given up for good)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.domain.kinds import RoundKind
from bot.locales.i18n import LANGUAGES, t
from tests.fakes.discord_fixtures import StudyWorld, fake_discord, study_world  # noqa: F401  (fixtures)
from tests.fakes.discord_models import MessageRecord
from tests.fakes.discord_rest import ApiRequest
from tests.fakes.discord_server import FakeDiscord
from tests.process import BotProcess, terminate
from tests.test_outbox_process import (
    DAILY_DEADLINE,
    LEAD,
    REVEAL,
    config_file,
    daily_closed,
    database,
    finished,
    owed,
    second_question_held,
)

CHANNEL_POSTS = "POST /channels/{channel_id}/messages"
CHANNEL_EDITS = "PATCH /channels/{channel_id}/messages/{message_id}"
COMMANDS_SYNCED = r"^/applications/\d+/commands$"
KINDS = tuple(t(lang, f"kind.{kind}") + " · " for lang in LANGUAGES for kind in RoundKind)
STORM = 10**6  # injected 429s: more than the storm can use; `calm()` ends it


def text_of(data: dict) -> str:
    parts = [data.get("content") or ""]
    for embed in data.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
    return "\n".join(p for p in parts if p)


def kind_of(data: dict) -> str:
    text = text_of(data)
    if text.startswith(KINDS):
        return "question"
    if text.lstrip("*").startswith(REVEAL):  # bold in Markdown
        return "reveal"
    if "Standings after" in text:
        return "standings " + text.split("Standings after ")[1].split(" ")[0]
    if t("en", "standings.final") in text:
        return "final"
    return "other"


def live_buttons(message: MessageRecord) -> list[str]:
    """Answer buttons still enabled (the ☆ that stars the question stays live on a reveal)."""
    return [
        button.get("custom_id", "")
        for row in message.components
        for button in row.get("components", [])
        if button.get("type") == 2 and not button.get("disabled")
        and not button.get("custom_id", "").startswith("sb:st:")
    ]


def first_reveal_refused(tmp_path: Path) -> bool:
    """The first question's reveal, the head of the chat's queue, was refused at least once and
    the standings wait behind it."""
    with contextlib.closing(database(tmp_path)) as db:
        rows = db.execute("SELECT what, attempts FROM outbox ORDER BY id LIMIT 2").fetchall()
    return [w for w, _ in rows] == ["reveal", "standings"] and rows[0][1] >= 1


async def start_bot(server: FakeDiscord, tmp_path: Path, bots: list[BotProcess]) -> BotProcess:
    env = {"DISCORD_TOKEN": server.token, "DISCORD_API_BASE": server.api_base,
           "DISCORD_GATEWAY_URL": server.gateway_url}  # fmt: skip

    def syncs() -> int:
        puts = [r for r in server.requests if r.status and r.method == "PUT"]
        return sum(1 for r in puts if re.search(COMMANDS_SYNCED, r.path))

    before = syncs()
    bot = await BotProcess.start(tmp_path / "data", config_file(tmp_path), env=env)
    bots.append(bot)
    await until(server, lambda: syncs() > before, 60, bot, "the commands synced")
    return bot


async def until(server: FakeDiscord, predicate: Callable[[], object], timeout: float, bot: BotProcess,
                what: str) -> None:  # fmt: skip
    try:
        await server.wait_for(predicate, timeout, what)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nbot:\n{bot.output[-6000:]}") from None


async def test_discord_killed_in_a_storm_while_a_daily_closes_and_a_contest_runs(
    fake_discord: FakeDiscord, study_world: StudyWorld, tmp_path: Path  # noqa: F811
) -> None:
    server, world = fake_discord, study_world
    channel = world.general
    bots: list[BotProcess] = []

    def questions() -> list[MessageRecord]:
        return [m for m in server.messages_in(channel) if kind_of(m.data) == "question"]

    try:
        first_bot = await start_bot(server, tmp_path, bots)
        fire_at = (datetime.now(UTC) + timedelta(seconds=LEAD)).replace(microsecond=0)
        await server.slash_command(channel, world.admin, "daily",
                                   {"time": f"{fire_at:%H:%M:%S}", "deadline": f"{DAILY_DEADLINE}s"},
                                   subcommand="set")  # fmt: skip
        [daily] = await server.wait_for(lambda: questions(), 30, "the daily question")
        await server.slash_command(channel, world.admin, "contest", {"questions": 3, "seconds": 5},
                                   subcommand="start")  # fmt: skip
        await server.wait_for(lambda: len(questions()) == 2, 20, "the first contest question")
        first = questions()[1]
        storm_from = len(server.requests)
        server.fail_next(CHANNEL_POSTS, retry_after=1.0, times=STORM)
        server.fail_next(CHANNEL_EDITS, retry_after=1.0, times=STORM)

        await until(server, lambda: first_reveal_refused(tmp_path), 40, first_bot, "the first reveal refused")
        await first_bot.kill()

        second_bot = await start_bot(server, tmp_path, bots)
        # Still in the storm: the daily closes; the contest waits at its second question, which
        # nobody has seen yet (its time counts from its post).
        await until(server, lambda: daily_closed(tmp_path), 90, second_bot, "the daily closed")
        await until(server, lambda: second_question_held(tmp_path), 30, second_bot, "the second held")
        server.calm()
        await until(server, lambda: finished(tmp_path) and not owed(tmp_path), 90, second_bot,
                    "the contest over, everything owed delivered")  # fmt: skip
        assert await terminate(second_bot) == 0, second_bot.output
    finally:
        for bot in bots:
            if bot.proc.returncode is None:
                await terminate(bot)

    def posted(r: ApiRequest) -> bool:
        return r.status == 200 and r.template in (CHANNEL_POSTS.split()[1], CHANNEL_EDITS.split()[1])

    delivered = [r for r in server.requests[storm_from:] if posted(r) and r.method in ("POST", "PATCH")]
    on_daily = [r for r in delivered if r.params.get("message_id") == str(daily.id)]
    steps = [kind_of(r.body) for r in delivered if r not in on_daily]
    # The second question, held back by the storm, posted after it (its time counts from then).
    assert [k for k in steps if k != "other"] == [
        "reveal", "standings 1", "question", "reveal", "standings 2", "question", "reveal", "standings 3",
        "final",
    ], steps  # fmt: skip
    assert [kind_of(r.body) for r in on_daily] == ["reveal"]
    # On Discord a reveal keeps its buttons, disabled, showing how many chose each option.
    for message in (daily, first):
        assert kind_of(message.data) == "reveal" and live_buttons(message) == []
    assert not [m for m in server.messages_in(channel) if live_buttons(m)], "a question kept its buttons"
