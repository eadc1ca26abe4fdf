"""What issue 20 found on Discord, each through the real discord.py against the fake: a time zone
that is a tzdata folder or too long a name is a refusal in the member's language (it used to be
an OSError counted as Discord's passing trouble); a local OSError is a bug with its traceback,
only the network's is passing; interactions the tree cannot match are answered "this command
changed" with one warning line; autocomplete is never left unanswered; a user option without its
resolved user is refused."""

from __future__ import annotations

import errno
import logging
import socket

import aiohttp
import pytest

from adapters.discord.transient import transient
from bot.locales.i18n import t
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)

APPLICATION_COMMAND, AUTOCOMPLETE = 2, 4
CHANGED = t("en", "error.command_changed")


def ours(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING
            and r.name.startswith(("studybot", "discord"))
            and "is not installed" not in r.getMessage()]  # fmt: skip


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in ours(caplog) if r.exc_info or r.levelno >= logging.ERROR] == []


@pytest.mark.parametrize("error", [
    IsADirectoryError(errno.EISDIR, "Is a directory", "/usr/share/zoneinfo/Etc"),
    OSError(errno.ENAMETOOLONG, "File name too long"),
    FileNotFoundError(errno.ENOENT, "No such file or directory"),
    OSError(errno.ENOSPC, "No space left on device"),
    PermissionError(errno.EACCES, "Permission denied"),
])  # fmt: skip
def test_a_local_os_error_is_a_bug_not_discords_passing_trouble(error):
    assert not transient(error)


@pytest.mark.parametrize("error", [
    ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"),
    ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
    OSError(errno.ENETUNREACH, "Network is unreachable"),
    socket.gaierror(-3, "Temporary failure in name resolution"),
    TimeoutError(),
    aiohttp.ServerDisconnectedError(),
])  # fmt: skip
def test_the_network_failing_is_passing_trouble(error):
    assert transient(error)


@pytest.mark.parametrize(("zone", "hint"), [
    ("Etc", "Etc/GMT"), ("US", "US/"), ("America/Argentina", "America/Argentina/Buenos_Aires"),
    ("Europe/" * 40 + "Paris", "Asia/Shanghai"),
])  # fmt: skip
async def test_a_zone_folder_or_a_long_name_is_a_refusal_naming_the_timezone(
    harness: Harness, caplog: pytest.LogCaptureFixture, zone: str, hint: str
) -> None:
    h = harness
    caplog.set_level(logging.WARNING)
    await h.start()
    reply = await h.command(h.world.admin, "tz", {"timezone": zone})
    assert reply is not None and reply.flags & EPHEMERAL
    assert reply.content.startswith("Bad timezone:") and hint in reply.content
    daily = await h.command(h.world.admin, "daily", {"time": "09:30", "timezone": zone}, sub="set")
    assert daily is not None and daily.content.startswith("Bad timezone:")
    chinese = await h.command(h.world.admin, "tz", {"timezone": zone}, locale="zh-CN")
    assert chinese is not None and chinese.content.startswith("参数“时区”有误")
    no_traceback(caplog)


async def dispatched(h: Harness, kind: int, name: str, options: list[dict]) -> dict:
    command = h.server.find_command(None, name) or h.server.find_command(None, "quiz")
    assert command is not None
    data = {"id": command["id"], "name": name, "type": 1, "options": options}
    record = await h.server.forged_interaction(h.general, h.world.student, kind, data)
    await h.server.wait_for(lambda: record.response is not None, 5.0, "the interaction answered")
    assert record.response is not None
    return record.response


@pytest.mark.parametrize(("name", "options"), [
    ("removed", []),  # a command since removed
    ("daily", [{"type": 1, "name": "gone", "options": []}]),  # a subcommand since removed
    ("daily", []),  # a group sent as a command
    ("tz", []),  # a required option left out
])  # fmt: skip
async def test_an_interaction_the_tree_cannot_match_is_told_the_command_changed(
    harness: Harness, caplog: pytest.LogCaptureFixture, name: str, options: list[dict]
) -> None:
    h = harness
    caplog.set_level(logging.WARNING)
    await h.start()
    response = await dispatched(h, APPLICATION_COMMAND, name, options)
    assert response["type"] == 4 and response["data"]["content"] == CHANGED
    assert response["data"]["flags"] & EPHEMERAL
    lines = [r for r in ours(caplog) if "does not match" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING and lines[0].exc_info is None
    no_traceback(caplog)


@pytest.mark.parametrize(("name", "options"), [
    ("quiz", [{"type": 3, "name": "tag", "value": "m", "focused": True}]),
    ("removed", [{"type": 3, "name": "x", "value": "", "focused": True}]),
    ("daily", [{"type": 1, "name": "set", "options": [{"type": 3, "name": "timezone", "value": "Eu",
                                                      "focused": True}]}]),
])  # fmt: skip
async def test_autocomplete_for_options_that_offer_none_is_answered_with_no_suggestions(
    harness: Harness, caplog: pytest.LogCaptureFixture, name: str, options: list[dict]
) -> None:
    h = harness
    caplog.set_level(logging.WARNING)
    await h.start()
    response = await dispatched(h, AUTOCOMPLETE, name, options)
    assert response == {"type": 8, "data": {"choices": []}}
    no_traceback(caplog)


@pytest.mark.parametrize("value", ["123456789", "x"])
async def test_a_user_option_without_its_resolved_user_is_refused(
    harness: Harness, caplog: pytest.LogCaptureFixture, value: str
) -> None:
    h = harness
    caplog.set_level(logging.WARNING)
    await h.start()
    options = [{"type": 6, "name": "user", "value": value}]
    response = await dispatched(h, APPLICATION_COMMAND, "stats", options)
    content = response["data"]["content"]
    assert content in (CHANGED, "Bad user: " + t("en", "arg.user_unresolved")), content
    no_traceback(caplog)
