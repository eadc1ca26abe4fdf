"""Telegram adapter pieces on their own: button payloads, HTML splitting at Telegram's limits,
toast clipping, token redaction in log records, webhook settings."""

from __future__ import annotations

import logging
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.telegram import callback_data as cd
from adapters.telegram.adapter import retry_seconds
from adapters.telegram.redaction import REDACTED, Redaction, TokenFilter
from adapters.telegram.render import clip, split_html, utf16_len
from studybot.config import Config, Secret
from studybot.runner import telegram_settings
from tests.fakes.telegram_format import format_text

TOKEN = "123456789:AAFakeTelegramTokenForStudybotTests_x"


def test_payloads_round_trip_and_fit_in_64_bytes() -> None:
    big = 10**15 - 1
    cases = {
        cd.answer(big, "true"): cd.AnswerChoice(big, "true"),
        cd.answer(3, "B"): cd.AnswerChoice(3, "B"),
        cd.toggle(3, "D"): cd.ToggleOption(3, "D"),
        cd.submit(3): cd.SubmitSelection(3),
        cd.self_grade(3, "half"): cd.SelfGradeLevel(3, "half"),
        cd.language("zh"): cd.ChooseLanguage("zh-CN"),
    }
    for data, action in cases.items():
        assert cd.parse(data) == action and len(data.encode()) <= 64
    with pytest.raises(ValueError):
        cd.answer(3, "b")


@pytest.mark.parametrize("data", [
    "", "a1", "a1:", "a1:3", "a1:3:", "a1:03:B", "a1:0:B", "a1:-3:B", "a1:3:b", "a1:3:BB", "a1:3:B\n",
    " a1:3:B", "a2:3:B", "A1:3:B", "a1:３:B", "a1:3:B:", "t1:3:true", "s1:3:A", "g1:3:Full", "g1:3:",
    "l1:fr", "l1:zh-CN", "l1:", "x" * 65, "a1:" + "9" * 16 + ":B", "a1:3:B" + "\u200b", None, 12,
])  # fmt: skip
def test_malformed_payloads_are_refused(data: object) -> None:
    assert cd.parse(data) is None


def _plain(html: str) -> str:
    return format_text(html, "HTML").text


LINE = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=90).map(
        lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    ),
    st.text(alphabet="abc 试题😀&", min_size=1, max_size=30).map(
        lambda s: "<b>" + s.replace("&", "&amp;") + "</b>"
    ),
)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(LINE, max_size=40), limit=st.integers(min_value=8, max_value=120))
def test_split_html_keeps_every_chunk_valid_and_within_the_limit(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    chunks = split_html(text, limit)
    for chunk in chunks:
        plain = _plain(chunk)  # raises on broken HTML, as Telegram would refuse it
        assert 0 < utf16_len(plain) <= limit and plain.strip()
    expected = _squeeze(_plain(text)) if text.strip() else ""
    assert "".join(_squeeze(_plain(c)) for c in chunks) == expected


def _squeeze(text: str) -> str:
    """Without whitespace: a cut may drop a line break, and Telegram trims each message."""
    return "".join(ch for ch in text if not ch.isspace())


def test_split_html_prefers_line_breaks_and_reopens_tags() -> None:
    text = "<b>" + "a" * 6 + "\n" + "b" * 6 + "</b>\nccc"
    assert split_html(text, 10) == ["<b>aaaaaa</b>", "<b>bbbbbb</b>\nccc"]
    assert split_html("<i>" + "x" * 12 + "</i>", 5) == ["<i>xxxxx</i>", "<i>xxxxx</i>", "<i>xx</i>"]
    assert split_html("short") == ["short"]


def test_toasts_are_clipped_to_200_utf16_units() -> None:
    assert clip("ok") == "ok"
    long = clip("😀" * 150)
    assert utf16_len(long) <= 200 and long.endswith("…")


def test_the_token_filter_redacts_message_args_and_traceback() -> None:
    token_filter = TokenFilter(TOKEN)
    try:
        raise RuntimeError(f"failed calling https://api.telegram.org/bot{TOKEN}/getMe")
    except RuntimeError:
        exc_info = sys.exc_info()
    record = logging.LogRecord(
        "httpx", logging.INFO, __file__, 1, "HTTP Request: POST %s %s", (f"/bot{TOKEN}/getUpdates", 200),
        exc_info,
    )  # fmt: skip
    assert token_filter.filter(record)
    formatted = logging.Formatter().format(record)
    assert TOKEN not in formatted and f"/bot{REDACTED}/getUpdates" in formatted
    assert f"bot{REDACTED}/getMe" in formatted  # in the traceback text too


def test_redaction_is_installed_on_library_loggers_and_removed() -> None:
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    handler = Collect()
    httpx_logger = logging.getLogger("httpx")
    httpx_logger.addHandler(handler)  # directly on the library logger, not through the root
    old_level = httpx_logger.level
    httpx_logger.setLevel(logging.INFO)
    redaction = Redaction(TOKEN)
    try:
        redaction.install()
        httpx_logger.info("HTTP Request: POST http://x/bot%s/getMe", TOKEN)
        redaction.remove()
        assert redaction.filter not in httpx_logger.filters
    finally:
        httpx_logger.removeHandler(handler)
        httpx_logger.setLevel(old_level)
    assert seen == [f"HTTP Request: POST http://x/bot{REDACTED}/getMe"]


def test_webhook_settings_and_retry_seconds() -> None:
    config = Config(
        telegram_webhook_url="https://bot.example.org/tg/hook", telegram_webhook_listen="127.0.0.1",
        telegram_webhook_secret=Secret("s3cret"),
        telegram_webhook_port=8443,
    )  # fmt: skip
    assert telegram_settings(config).webhook() == {
        "listen": "127.0.0.1", "port": 8443, "url_path": "tg/hook",
        "webhook_url": "https://bot.example.org/tg/hook",
    }  # fmt: skip
    from telegram.error import RetryAfter

    assert retry_seconds(RetryAfter(7)) == 7.0


def test_only_telegrams_own_failures_are_passing():
    """Issue 20: a local exception is a bug (its traceback kept), not Telegram's trouble."""
    from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

    from adapters.telegram.transient import InvalidResponse, is_transient

    assert all(is_transient(e) for e in (NetworkError("Bad Gateway"), TimedOut(), RetryAfter(3),
                                         InvalidResponse("<html>")))  # fmt: skip
    assert not any(is_transient(e) for e in (BadRequest("chat not found"), Forbidden("blocked"),
                                             IsADirectoryError(21, "Is a directory"), OverflowError(),
                                             OSError(36, "File name too long"), ValueError()))  # fmt: skip
