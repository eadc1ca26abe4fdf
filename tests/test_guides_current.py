"""The set-up guides say what the bot does today: start-up failures are the catalog's one line
(quoted word for word, the token never shown), not a traceback; /review is spaced review, not
"the questions you got wrong"; reports and bank owners are documented as they work."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.locales.i18n import t

DOCS = Path(__file__).resolve().parent.parent / "docs"
GUIDES = ("telegram.md", "discord.md", "running.md")


def guide(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def sentence(key: str, **params: object) -> str:
    """The catalog's English sentence up to its first `(`, as the guides quote it."""
    return "studybot: " + t("en", key, **params).split(" (")[0]


@pytest.mark.parametrize("name", GUIDES)
def test_no_guide_says_start_up_failures_are_tracebacks_or_show_the_token(name: str) -> None:
    text = guide(name)
    assert "currently end in a Python" not in text and "being replaced" not in text
    assert "shows the whole token" not in text
    assert not re.search(r"got wrong( before)?\b", text), "/review is spaced review of due cards"


@pytest.mark.parametrize(
    ("name", "platform", "variable", "api"),
    [("telegram.md", "Telegram", "TELEGRAM_TOKEN", "TELEGRAM_API_BASE"),
     ("discord.md", "Discord", "DISCORD_TOKEN", "DISCORD_API_BASE")],
)  # fmt: skip
def test_the_platform_guides_quote_the_start_up_lines(
    name: str, platform: str, variable: str, api: str
) -> None:
    text = guide(name)
    assert (
        sentence("startup.token_rejected", platform=platform, variable=variable, detail="", where="") in text
    )
    assert f"studybot: cannot reach {platform} at " in text and api in text


def test_the_running_guide_quotes_the_start_up_lines() -> None:
    text = guide("running.md")
    for key in ("startup.data_unwritable", "startup.db_damaged", "startup.disk_full", "startup.db_newer"):
        quoted = sentence(key, path="…", detail="").split("…")[0]
        assert quoted in text, key
    assert sentence("startup.no_token").split(",")[0] in text
    assert "sqlite3.OperationalError" not in text and "file is not a database" not in text


def test_reports_and_bank_owners_are_documented() -> None:
    text = guide("reports.md")
    assert "/report [N]" in text or "/report 12" in text
    assert "admins:" in text and "telegram:" in text and "discord:" in text
    assert t("en", "report.no_such_number", number=99, first=1, last=62) in text
    for name in GUIDES[:2]:
        assert "reports.md" in guide(name)
