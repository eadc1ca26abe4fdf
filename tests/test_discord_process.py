"""`studybot run` with DISCORD_TOKEN set, as a real process against the fake Discord: it logs in,
syncs the commands, answers /quiz, and stops cleanly on SIGTERM without ever printing the token."""

from __future__ import annotations

import asyncio
import signal

from tests.fakes.discord_fixtures import StudyWorld, fake_discord, study_world  # noqa: F401  (fixtures)
from tests.fakes.discord_server import FakeDiscord
from tests.process import BotProcess
from tests.test_discord_harness import EPHEMERAL, completed


async def test_studybot_run_serves_discord_and_stops_on_sigterm(
    fake_discord: FakeDiscord, study_world: StudyWorld, tmp_path  # noqa: F811
) -> None:
    server = fake_discord
    config = tmp_path / "studybot.yaml"
    config.write_text("language: en\n")
    env = {"DISCORD_TOKEN": server.token, "DISCORD_API_BASE": server.api_base,
           "DISCORD_GATEWAY_URL": server.gateway_url}  # fmt: skip
    bot = await BotProcess.start(tmp_path / "data", config, env=env)
    try:
        await server.wait_for_request("PUT", r"^/applications/\d+/commands$", timeout=30)
        record = await server.slash_command(study_world.general, study_world.student, "quiz")
        question = await server.wait_for(lambda: completed(server, record.original_message_id), 10, "a reply")
        assert not question.flags & EPHEMERAL
        assert question.data["embeds"][0]["title"].startswith("Practice · Q")
        assert question.custom_ids()
    finally:
        bot.proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(20):
            code = await bot.proc.wait()
            await bot._reader
    assert code == 0, bot.output
    assert server.token not in bot.output
    assert "Traceback" not in bot.output and "nclosed" not in bot.output, bot.output
