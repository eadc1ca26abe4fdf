"""Secrets never reach an output: registered tokens and token-shaped strings are scrubbed from log
records (message, arguments, traceback), from uncaught exceptions, and from discord.py's DEBUG
lines that carry interaction tokens (15-minute webhook credentials)."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
from pathlib import Path

from adapters.redaction import REDACTED, Redaction, TokenFilter, add_secret, redact
from tests.fakes.discord_fixtures import StudyWorld, fake_discord, study_world  # noqa: F401  (fixtures)
from tests.fakes.discord_server import FakeDiscord
from tests.process import BotProcess
from tests.test_discord_harness import completed

ROOT = Path(__file__).resolve().parent.parent
INTERACTION = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6X0FCQ0RFRkdI"


def test_discord_interaction_tokens_in_urls_and_payloads() -> None:
    lines = [
        f"POST https://discord.com/api/v10/interactions/1234567890/{INTERACTION}/callback has returned 204",
        f"PATCH https://discord.com/api/v10/webhooks/987654321/{INTERACTION}/messages/@original returned 200",
        f"POST /webhooks/987654321/{INTERACTION}?wait=true",
        "WebSocket Event: " + repr({"t": "INTERACTION_CREATE", "d": {"token": INTERACTION}}),
        json.dumps({"d": {"id": "1", "token": INTERACTION}}),
    ]
    for line in lines:
        clean = redact(line)
        assert INTERACTION not in clean and REDACTED in clean, clean
    assert redact("/interactions/1234567890/callback") == "/interactions/1234567890/callback"  # no token


def test_registered_and_token_shaped_secrets() -> None:
    add_secret("registered-secret-value-42")
    assert redact("a registered-secret-value-42 b") == f"a {REDACTED} b"
    telegram = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
    assert redact(f"https://api.telegram.org/bot{telegram}/getMe") == f"https://api.telegram.org/bot{REDACTED}/getMe"
    discord_token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789"
    assert discord_token not in redact(f"Authorization: Bot {discord_token}")
    assert redact("09:30 and 12:00, ids 1234567890") == "09:30 and 12:00, ids 1234567890"


def test_a_filter_on_the_root_handlers_scrubs_every_logger() -> None:
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    handler = Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    redaction = Redaction()
    try:
        redaction.install()
        url = f"https://discord.com/api/v10/interactions/1/{INTERACTION}/callback"
        logging.getLogger("discord.http").warning("%s %s has returned %s", "POST", url, 500)
        try:
            raise RuntimeError(f"failed: {url}")
        except RuntimeError:
            logging.getLogger("studybot.anything").exception("boom")
    finally:
        redaction.remove()
        root.removeHandler(handler)
    assert seen and all(INTERACTION not in line for line in seen), seen
    assert redaction.filter not in handler.filters


def test_token_filter_keeps_ordinary_records_untouched() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "answered %s in %d ms", ("B", 12), None)
    assert TokenFilter("some-token-123").filter(record)
    assert record.getMessage() == "answered B in 12 ms" and record.args == ("B", 12)


def test_an_uncaught_exception_is_printed_redacted() -> None:
    token = "123456789:AAuncaughtExceptionTokenNeverShown_01"
    code = (
        "import threading\n"
        "from adapters.redaction import add_secret, install_excepthooks\n"
        "install_excepthooks()\n"
        "add_secret('plain-secret-in-a-thread')\n"
        "def boom():\n"
        "    raise RuntimeError('plain-secret-in-a-thread')\n"
        "thread = threading.Thread(target=boom)\n"
        "thread.start()\n"
        "thread.join()\n"
        f"raise RuntimeError('The token `{token}` was rejected by the server.')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            timeout=60)  # fmt: skip
    assert result.returncode == 1
    assert "RuntimeError: The token `<token>` was rejected by the server." in result.stderr
    assert token not in result.stderr and "plain-secret-in-a-thread" not in result.stderr
    assert "Exception in thread" in result.stderr


async def test_discord_debug_logs_never_show_an_interaction_token(
    fake_discord: FakeDiscord, study_world: StudyWorld, tmp_path  # noqa: F811
) -> None:
    server = fake_discord
    config = tmp_path / "studybot.yaml"
    config.write_text("language: en\nlog_level: DEBUG\n")
    env = {"DISCORD_TOKEN": server.token, "DISCORD_API_BASE": server.api_base,
           "DISCORD_GATEWAY_URL": server.gateway_url}  # fmt: skip
    bot = await BotProcess.start(tmp_path / "data", config, env=env)
    try:
        await server.wait_for_request("PUT", r"^/applications/\d+/commands$", timeout=30)
        record = await server.slash_command(study_world.general, study_world.student, "quiz")
        await server.wait_for(lambda: completed(server, record.original_message_id), 10, "a reply")
        await bot.wait_for(f"/interactions/{record.id}/{REDACTED}/callback")  # the DEBUG line, redacted
    finally:
        bot.proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(20):
            await bot.proc.wait()
            await bot._reader
    assert record.token not in bot.output
    assert server.token not in bot.output


def test_records_are_scrubbed_where_they_are_made_for_handlers_added_later() -> None:
    from adapters.redaction import install_record_factory

    original = logging.getLogRecordFactory()
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    logger = logging.getLogger("some.library.added.later")
    handler = Collect()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        install_record_factory()
        logger.debug("POST /webhooks/%s/%s", 42, INTERACTION)
    finally:
        logging.setLogRecordFactory(original)
        logger.removeHandler(handler)
    assert seen == [f"POST /webhooks/42/{REDACTED}"]
