"""What the slash commands (commands.py) need from the adapter that installs them: the
application, the live counts under posted questions, and the interactions in flight. The adapter
satisfies this Protocol; the commands see only it, so they do not import the adapter back."""

from __future__ import annotations

from typing import Protocol

from adapters.discord.live import LiveCounts
from adapters.discord.replies import InFlight
from bot.application.app import Application


class DiscordHost(Protocol):
    application: Application
    counts: LiveCounts
    inflight: InFlight
