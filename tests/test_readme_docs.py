"""The set-up guides' facts checked against the code they describe: the Discord invite's
permissions integer and intents, the environment variables named, the Docker image's user."""

from __future__ import annotations

import re
from pathlib import Path

import discord

from adapters.discord.adapter import intents
from studybot.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent
DISCORD_DOC = (ROOT / "docs" / "discord.md").read_text(encoding="utf-8")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_READ = {"TELEGRAM_BOT_TOKEN"}  # named in the docs as a near miss that is not read

CHANNEL_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, read_message_history=True, add_reactions=True
)


def test_the_invite_link_asks_for_exactly_the_documented_permissions():
    (asked,) = set(re.findall(r"scope=bot\+applications\.commands&permissions=(\d+)", DISCORD_DOC))
    assert int(asked) == CHANNEL_PERMISSIONS.value == 85056
    with_manage = CHANNEL_PERMISSIONS | discord.Permissions(manage_messages=True)
    with_threads = CHANNEL_PERMISSIONS | discord.Permissions(send_messages_in_threads=True)
    assert f"**{with_manage.value}**" in DISCORD_DOC
    assert f"**{with_threads.value}**" in DISCORD_DOC


def test_the_documented_intents_are_the_adapters_and_none_is_privileged():
    wanted = intents()
    assert wanted == discord.Intents(guilds=True, guild_reactions=True)
    assert "`GUILDS` and `GUILD_MESSAGE_REACTIONS`" in DISCORD_DOC
    assert not (wanted.members or wanted.presences or wanted.message_content)


def test_every_environment_variable_the_docs_name_is_read():
    named = {name for doc in DOCS for name in re.findall(r"\b(?:DISCORD|TELEGRAM|STUDYBOT)_[A-Z_]*[A-Z]\b",
                                                         doc.read_text(encoding="utf-8"))}  # fmt: skip
    assert {"DISCORD_TOKEN", "TELEGRAM_TOKEN", "STUDYBOT_DATA_DIR"} <= named
    default = load_config(env={})
    for name in sorted(named - NOT_READ):
        try:
            read = load_config(env={name: "123"}) != default
        except ConfigError:  # read, and refused as a bad value (STUDYBOT_DATABASE_URL wants a URL)
            read = True
        assert read, f"the docs name {name}, which the bot does not read"
    for name in NOT_READ:
        assert load_config(env={name: "123"}) == default


def test_the_docker_image_is_as_running_md_describes():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "--uid 10001" in dockerfile and "USER studybot" in dockerfile
    assert "STUDYBOT_DATA_DIR=/data" in dockerfile
    assert 'ENTRYPOINT ["studybot", "run"]' in dockerfile
