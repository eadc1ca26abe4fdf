"""What the Telegram adapter is configured with: plain values the composition root passes in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit


class Token(Protocol):
    """A secret whose `value` is the bot token and whose repr never shows it."""

    @property
    def value(self) -> str: ...


class _NoSecret:
    value = ""


@dataclass(frozen=True, slots=True)
class TelegramSettings:
    token: Token
    api_base: str | None = None  # another Bot API server (a local one, or a test's fake)
    webhook_url: str | None = None  # set: a webhook on that URL instead of long polling
    # Telegram sends it with every update (X-Telegram-Bot-Api-Secret-Token); every process behind
    # the webhook URL must have the same one, so it is configured, not made up at start.
    webhook_secret: Token = field(default_factory=_NoSecret)
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    live_count_seconds: float = 15.0  # at most one answer-count edit per question this often
    max_retries: int = 3  # flood-control retries of a message before the caller sees the 429
    admin_ttl: float = 300.0  # how long a getChatMember verdict is believed
    poll_timeout: float = 10.0  # long-polling timeout
    language: str = "zh-CN"  # for an error before a chat's own language is known

    def webhook(self) -> dict[str, object]:
        """start_webhook() arguments for the webhook URL: listen there, on the URL's path."""
        url = self.webhook_url or ""
        return {
            "listen": self.webhook_listen,
            "port": self.webhook_port,
            "url_path": urlsplit(url).path.lstrip("/"),
            "webhook_url": url,
        }
