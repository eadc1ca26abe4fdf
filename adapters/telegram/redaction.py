"""Keeps the bot token out of logs: httpx and PTB log request URLs (`.../bot<token>/getUpdates`).

The filter itself is shared by every adapter and the CLI: see adapters/redaction.py.
"""

from adapters.redaction import REDACTED, Redaction, TokenFilter

__all__ = ["REDACTED", "Redaction", "TokenFilter"]
