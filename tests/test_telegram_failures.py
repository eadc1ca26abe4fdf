"""Telegram when things go wrong: 429 flood control, a user who blocked the bot, a bot kicked out
of a group, a group upgraded to a supergroup, a failing handler — nothing is lost or crashes."""

from __future__ import annotations

import logging

import pytest
from telegram.error import BadRequest, RetryAfter, TimedOut

from adapters.telegram.transient import InvalidResponse, is_transient
from adapters.telegram.transport import AiohttpRequest
from bot.locales.i18n import t
from studybot.config import Secret
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeChat
from tests.test_telegram_harness import (
    ANN,
    BOB,
    BOSS,
    GROUP,
    TelegramHarness,
    tg_fixture,  # noqa: F401
)
from tests.waits import HANG


async def test_flood_control_delays_but_delivers_and_a_blocked_user_is_paused(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start(max_retries=1)
    for user in (ANN, BOB):
        await tg.say(user.id, user, "/daily 08:00 1h physics")

    server.fail_next("sendMessage", times=1, retry_after=1)  # PTB's rate limiter waits and retries
    assert (await tg.say(ANN.id, ANN, "/stats"))["text"].startswith("<b>Stats for Ann</b>")

    server.block_chat(BOB.id, notify=False)  # blocked; the bot learns it from the 403
    # Twice flood control: the limiter retries once, then the core's outbox waits retry_after.
    server.fail_next("sendMessage", times=2, retry_after=1)
    await tg.advance(23 * 3600)
    daily = await tg.question(ANN.id)
    assert daily.text.startswith("Daily question")
    statuses = [(e.params.get("chat_id"), e.status) for e in server.log if e.method == "sendMessage"]
    assert statuses.count((ANN.id, 429)) == 3 and statuses.count((BOB.id, 403)) == 1
    assert [m.text for m in server.messages_in(ANN.id)].count(daily.text) == 1

    bob = await app.store.find_chat("telegram", str(BOB.id))
    ann = await app.store.find_chat("telegram", str(ANN.id))
    assert bob is not None and bob.paused and ann is not None and not ann.paused
    await tg.advance(24 * 3600)  # the next day: nothing is even tried for Bob
    assert [e.status for e in server.log if e.params.get("chat_id") == BOB.id][-1] == 403

    server.unblock_chat(BOB.id)  # my_chat_member "member": talking to us again resumes the chat
    await tg.settle()
    assert not (await app.store.find_chat("telegram", str(BOB.id))).paused


async def test_kicked_from_a_group_pauses_it(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    server.set_member_status(GROUP.id, BOSS, "creator")
    await tg.say(GROUP, BOSS, "/daily set 09:30 1h")
    server.kick_bot(GROUP.id, by=BOSS)
    await tg.settle()
    chat = await app.store.find_chat("telegram", str(GROUP.id))
    assert chat is not None and chat.paused
    requests = len(server.log)
    await tg.advance(30 * 60)
    assert all(e.params.get("chat_id") != GROUP.id for e in server.log[requests:])
    assert app.outbox.failures == 0


async def test_group_migration_moves_the_chat_and_its_daily(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    old = FakeChat(-55, "group", title="Old group")
    server.set_member_status(old.id, BOSS, "creator")
    await tg.say(old, BOSS, "/daily set 09:30 1h")
    await tg.say(old, ANN, "/quiz single")
    before = await app.store.find_chat("telegram", str(old.id))

    new = server.migrate_group(old.id, -1009999)
    await tg.settle()
    moved = await app.store.find_chat("telegram", str(new.id))
    assert moved is not None and moved.id == before.id
    assert await app.store.find_chat("telegram", str(old.id)) is None

    await tg.advance(30 * 60)
    daily = await tg.question(new.id)
    assert daily.text.startswith("Daily question")


async def test_a_move_seen_only_when_posting_is_followed(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start()
    old = FakeChat(-56, "group", title="Old group")
    server.set_member_status(old.id, BOSS, "creator")
    await tg.say(old, BOSS, "/daily set 09:30 1h")
    await tg.stop()
    server.migrate_group(old.id, -1008888)
    # The service messages are lost while the bot is down.
    server.confirm_updates(server.pending_updates[-1]["update_id"] + 1, None)
    app = await tg.start()
    await tg.advance(30 * 60)
    daily = await tg.question(-1008888)  # ChatMigrated → the core follows the chat
    assert daily.text.startswith("Daily question")
    assert (await app.store.find_chat("telegram", "-1008888")) is not None


async def test_a_failing_handler_is_logged_without_the_token_and_the_user_told(
    tg: TelegramHarness, caplog
) -> None:
    server = tg.server
    await tg.start()
    caplog.set_level(logging.DEBUG)
    server.fail_next("sendMessage", code=400, description="Bad Request: something odd")
    reply = await tg.say(ANN.id, ANN, "/stats")
    assert reply["text"] == t("en", "error.internal")
    failed = [r for r in caplog.records if r.name == "studybot.telegram" and r.levelno == logging.ERROR]
    assert failed and "something odd" in caplog.text.lower()
    assert server.token not in caplog.text
    assert (await tg.say(ANN.id, ANN, "/stats"))["text"].startswith("<b>Stats for Ann</b>")
    server.strict = True



async def test_webhook_mode_sets_the_webhook_or_says_what_is_missing(tg: TelegramHarness) -> None:
    url = "https://bot.example.org/tg/hook"
    webhook = dict(telegram_webhook_url=url, telegram_webhook_listen="127.0.0.1", telegram_webhook_port=0,
                   telegram_webhook_secret=Secret("the-same-for-every-process"))  # fmt: skip
    try:
        import tornado  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match=r"python-telegram-bot\[webhooks\]"):
            await tg.start(**webhook)
        assert not tg.adapter.application.running
        return
    await tg.start(**webhook)
    hook = await tg.server.wait_for_request("setWebhook")
    assert hook["url"] == url and hook["secret_token"] == "the-same-for-every-process"
    assert "getUpdates" not in {m for m, _ in tg.server.requests}


async def test_a_bad_gateway_is_one_warning_line_per_failure_and_the_bot_recovers(
    tg: TelegramHarness, caplog
) -> None:
    server = tg.server
    await tg.start()
    caplog.set_level(logging.DEBUG)
    server.fail_next("getUpdates", times=2, code=502)  # polling: PTB retries after 1 s, 1.5 s

    def bad_polls() -> int:
        return sum(1 for e in server.log if e.method == "getUpdates" and e.status == 502)

    await server.wait_until(lambda: bad_polls() == 2, timeout=HANG)
    reply = await tg.say(ANN.id, ANN, "/stats", timeout=HANG)  # polling again: the bot recovered
    assert reply["text"].startswith("<b>Stats for Ann</b>")

    server.fail_next("sendMessage", code=502)  # a reply lost to a 502: the user is told
    assert (await tg.say(ANN.id, ANN, "/stats"))["text"] == t("en", "error.internal")

    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    polling = [r for r in warnings if "polling failed" in r.getMessage()]
    assert len(polling) == 2 and "Bad Gateway" in polling[0].getMessage()
    assert "retry 1 in 1.0 s" in polling[0].getMessage() and "retry 2 in 1.5 s" in polling[1].getMessage()
    assert any("update not handled: NetworkError: Bad Gateway" in r.getMessage() for r in warnings)
    assert all(r.exc_info is None and r.levelno == logging.WARNING for r in warnings), [
        r.getMessage() for r in warnings
    ]
    assert "Traceback" not in caplog.text
    assert server.token not in caplog.text


def test_an_answer_that_is_not_json_is_a_passing_network_error_logged_by_nobody_here(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(InvalidResponse) as caught:
        AiohttpRequest.parse_json_payload(b"<html><body>502 Bad Gateway</body></html>")
    assert is_transient(caught.value) and "Invalid server response" in str(caught.value)
    assert caplog.records == []  # PTB's parser logged a traceback here; the caller reports it once
    assert AiohttpRequest.parse_json_payload(b'{"ok": true}') == {"ok": True}
    assert not is_transient(BadRequest("Bad Request: chat not found"))  # a refusal: our mistake
    assert is_transient(TimedOut()) and is_transient(RetryAfter(3))


NGINX_502 = (  # what nginx in front of an upstream that is down answers
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)


async def test_a_bad_gateway_page_that_is_not_json_is_one_warning_line_and_the_bot_recovers(
    tg: TelegramHarness, caplog
) -> None:
    """A proxy before the Bot API answers its HTML error page (no JSON) to the polling and to a
    reply: each failure is one warning line, none a `JSONDecodeError` traceback; polling goes on."""
    server = tg.server
    await tg.start()
    caplog.set_level(logging.DEBUG)
    server.fail_next("getUpdates", times=2, code=502, html=NGINX_502)

    def bad_polls() -> int:
        return sum(1 for e in server.log if e.method == "getUpdates" and e.status == 502)

    await server.wait_until(lambda: bad_polls() == 2, timeout=HANG)
    reply = await tg.say(ANN.id, ANN, "/stats", timeout=HANG)  # polling again: the bot recovered
    assert reply["text"].startswith("<b>Stats for Ann</b>")

    server.fail_next("sendMessage", code=502, html=NGINX_502)  # a reply lost to the page: the user is told
    assert (await tg.say(ANN.id, ANN, "/stats"))["text"] == t("en", "error.internal")

    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    polling = [r for r in warnings if "polling failed" in r.getMessage()]
    assert len(polling) == 2 and "Bad Gateway" in polling[0].getMessage(), [r.getMessage() for r in warnings]
    assert any("update not handled: NetworkError: Bad Gateway" in r.getMessage() for r in warnings)
    assert all(r.exc_info is None and r.levelno == logging.WARNING for r in warnings), [
        r.getMessage() for r in warnings
    ]
    assert all("\n" not in r.getMessage() for r in warnings)  # one line each, the page not pasted in
    assert "Traceback" not in caplog.text and "JSONDecodeError" not in caplog.text
    assert server.token not in caplog.text
