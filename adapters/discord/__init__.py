"""The Discord adapter (discord.py): slash commands, buttons, modals and reactions for the core."""

from adapters.discord.adapter import DiscordAdapter
from adapters.discord.settings import DiscordSettings

__all__ = ["DiscordAdapter", "DiscordSettings"]
