"""What the bot sends Discord fits Discord's limits whatever the arguments (real discord.py against
the fake, which refuses oversize messages with 400 Invalid Form Body as Discord does); a reply
Discord still refuses is answered with a short error; `/contest start 0 0` is refused on Discord
and in the console instead of starting a default contest."""

from __future__ import annotations

import logging

import discord
import pytest

from adapters.discord.render import fit_embed
from bot.locales.i18n import t
from tests.fakes.discord_rules import check_message
from tests.test_console import run_console
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)

REFUSED = t("en", "contest.bad_numbers", questions_min=1, questions_max=100, seconds_min=1, seconds_max=600)


async def test_absurd_arguments_get_fitted_replies(harness: Harness, caplog: pytest.LogCaptureFixture):
    h = harness
    caplog.set_level(logging.WARNING)
    await h.start()
    alice = h.world.admin
    tag = "x" * 5000  # Discord lets a string option be up to 6,000 characters
    # Too long for any tag: refused by the argument's own length (issue 20), with no echo of it.
    reply = await h.command(alice, "quiz", {"tag": tag})
    assert reply is not None and reply.content == t("en", "error.bad_arg", arg="tag",
                                                    detail=t("en", "arg.too_long", length=200))  # fmt: skip
    reply = await h.command(alice, "daily", {"time": "09:30", "tag": tag}, sub="set")
    assert reply is not None and reply.content == t("en", "error.bad_arg", arg="tag",
                                                    detail=t("en", "arg.too_long", length=64))  # fmt: skip
    reply = await h.command(alice, "quiz", {"tag": "x" * 200})  # the longest tag: echoed, and fitted
    assert reply is not None and reply.content.startswith("No questions in the bank match xxx")
    assert len(reply.content) <= 2000
    reply = await h.command(alice, "daily", {"time": "9" * 5000}, sub="set")
    bad_time = t("en", "error.bad_arg", arg="time", detail=t("en", "arg.time"))  # the catalog's sentence
    assert reply is not None and reply.content == bad_time

    assert h.server.spec_violations == []  # no request over the limits reached "Discord"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_refused_reply_is_answered_with_a_short_error(harness: Harness) -> None:
    h = harness
    await h.start()
    h.server.fail_next("POST /interactions/{interaction_id}/{interaction_token}/callback", 400,
                       error_code=50035, message="Invalid Form Body")  # fmt: skip
    reply = await h.command(h.world.student, "streak")
    assert reply is not None and reply.content == t("en", "error.reply_failed")
    assert reply.flags & EPHEMERAL


async def test_contest_start_zero_zero_is_refused_on_discord(harness: Harness) -> None:
    h = harness
    await h.start()
    alice = h.world.admin
    # Discord's own client keeps to the options' min_value; a raw request need not.
    reply = await h.command(alice, "contest", {"questions": 0, "seconds": 0}, sub="start")
    # The same sentence as a text platform's for the same value (bot/application/commands/arguments.py).
    detail = t("en", "arg.int", low=1, high=100)
    assert reply is not None and reply.content == t("en", "error.bad_arg", arg="questions", detail=detail)
    status = await h.command(alice, "contest", sub="status")
    assert status is not None and status.content == t("en", "contest.not_running")
    assert await h.app.store.find_chat("discord", str(h.general.id)) is not None
    assert await h.app.store.last_round(await h.chat_id()) is None  # no question was posted


def test_contest_start_zero_zero_is_refused_in_the_console(tmp_path) -> None:
    script = "/lang en\n/contest start 0 0\n/contest start 5 0\n/contest status\n/quit\n"
    result = run_console(tmp_path, script)
    assert result.returncode == 0, result.stderr
    # The catalog reads the numbers first, so each refusal names the argument and its range.
    assert "Bad questions: expected a whole number from 1 to 100." in result.stdout
    assert "Bad seconds: expected a whole number from 1 to 600." in result.stdout
    assert "Contest started" not in result.stdout
    assert t("en", "contest.not_running") in result.stdout


def test_fit_embed_keeps_every_limit() -> None:
    embed = discord.Embed(title="T" * 1000, description="D" * 9000)
    embed.set_footer(text="F" * 5000)
    embed.set_author(name="A" * 1000)
    for i in range(40):
        embed.add_field(name=f"{i}" * 300, value="V" * 2000)
    fitted = fit_embed(embed)
    assert check_message({"embeds": [fitted.to_dict()]}) == []
    assert len(fitted) <= 6000 and fitted.title == "T" * 255 + "…"
    small = fit_embed(discord.Embed(title="ok", description="fine"))
    assert (small.title, small.description) == ("ok", "fine")
