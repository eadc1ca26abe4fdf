"""Discord's passing troubles are one warning line each, with no traceback, and the bot recovers
by itself; our own bugs keep their tracebacks (issue 13, item 5)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from adapters.discord import transient
from bot.locales.i18n import t
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)

CALLBACK = "POST /interactions/{interaction_id}/{interaction_token}/callback"


def ours(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= level and r.name.startswith(("studybot", "discord"))
            and "is not installed" not in r.getMessage()]  # fmt: skip


async def test_a_502_for_a_while_is_one_warning_per_interaction_and_the_bot_recovers(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness
    caplog.set_level(logging.INFO)
    await h.start()
    bob, carol = h.world.student, h.member("carol")
    question = await h.command(bob, "quiz", {"type": "single"})
    round_ = await h.last_round()
    # Discord answers 502 to every interaction response for a while: discord.py tries each one
    # five times (sleeping 1, 3, 5, 7, 9 s between), then gives up.
    h.server.fail_next(CALLBACK, 502, times=10)
    await asyncio.gather(
        h.server.slash_command(h.general, bob, "streak"),
        h.server.click(h.general, carol, question.id, f"sb:a:{round_.id}:B"),
    )

    def given_up() -> bool:
        return sum("not answered" in r.getMessage() for r in caplog.records) >= 2

    await h.server.wait_for(given_up, 60, "both interactions given up")
    warnings = [r for r in ours(caplog) if "not answered" in r.getMessage()]
    assert [r.levelno for r in warnings] == [logging.WARNING] * 2
    assert all(r.exc_info is None and "HTTP 502" in r.getMessage() for r in warnings)
    assert not [r for r in ours(caplog) if r.exc_info or r.levelno >= logging.ERROR]
    assert h.server.token not in caplog.text

    # Discord is back: the member is answered; the answer clicked during the outage was kept.
    reply = await h.command(bob, "streak")
    assert reply is not None and reply.content == t("en", "streak.body", count=0, best=0)
    receipt = await h.click(carol, question, f"sb:a:{round_.id}:B")
    assert receipt is not None and receipt.flags & EPHEMERAL
    assert receipt.content.startswith("You already answered (B)")


def test_a_failed_gateway_reconnect_is_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    """What discord.py logs when reconnecting to the gateway fails (a network error): its
    traceback goes, the line stays, with the retry and the cause; a bug keeps its traceback."""
    caplog.set_level(logging.INFO)
    library = logging.getLogger("discord.client")
    transient.install()
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed ('162.159.135.232', 443)")
        except OSError:
            library.exception("Attempting a reconnect in %.2fs", 3.5)
        try:
            raise KeyError("a bug of ours")
        except KeyError:
            library.exception("Ignoring exception in %s", "on_interaction")
    finally:
        transient.uninstall()
    reconnect, bug = caplog.records[-2:]
    assert reconnect.levelno == logging.WARNING and reconnect.exc_info is None
    assert reconnect.getMessage().startswith("Attempting a reconnect in 3.50s (ConnectionRefusedError: ")
    assert bug.levelno == logging.ERROR and bug.exc_info is not None
