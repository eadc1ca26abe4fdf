"""The fake Telegram Bot API server against the real python-telegram-bot: polling, replies,
clicks, Telegram's error answers, injected failures and spec checking."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MenuButtonCommands,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.fakes.telegram_server import FakeTelegramServer
from tests.waits import HANG

ANN = FakeUser(7, "Ann", "ann", "en")
GROUP = FakeChat(-1001234, "supergroup", title="Study group")


def refused(reason: str) -> contextlib.AbstractContextManager[pytest.ExceptionInfo[BadRequest]]:
    """PTB drops "Bad Request: " and capitalizes the rest, hence the case-insensitive match."""
    return pytest.raises(BadRequest, match=re.compile(re.escape(reason), re.IGNORECASE))


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d.upper(), callback_data=d) for d in data]])


@pytest.fixture
async def bot(telegram_server: FakeTelegramServer) -> AsyncIterator[Bot]:  # noqa: F811
    async with Bot(telegram_server.token, base_url=telegram_server.base_url) as tg_bot:
        yield tg_bot


@contextlib.asynccontextmanager
async def polling(app: Application) -> AsyncIterator[Application]:
    async with app:
        await app.start()
        await app.updater.start_polling(poll_interval=0)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()


async def test_get_me(bot: Bot, telegram_server: FakeTelegramServer) -> None:  # noqa: F811
    me = await bot.get_me()
    assert me.is_bot and me.username == "studybot_test_bot" and me.id == 123456789
    assert [m for m, _ in telegram_server.requests] == ["getMe", "getMe"]


async def test_application_replies_to_start_and_handles_a_click(
    telegram_server: FakeTelegramServer,  # noqa: F811
) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.message.reply_text("Pick one", reply_markup=keyboard("pick:a", "pick:b"))

    async def pick(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        await query.answer(f"you picked {query.data}")
        await query.edit_message_text(f"Picked {query.data}")

    app = (
        ApplicationBuilder().token(telegram_server.token).base_url(telegram_server.base_url)
        .rate_limiter(AIORateLimiter(max_retries=2)).build()
    )
    app.add_handlers([CommandHandler("start", start), CallbackQueryHandler(pick)])
    async with polling(app):
        telegram_server.user_message(GROUP, ANN, "/start@studybot_test_bot")
        sent = await telegram_server.wait_for_request("sendMessage")
        assert sent["chat_id"] == GROUP.id and sent["text"] == "Pick one"
        message = telegram_server.last_message(GROUP.id)
        assert message.callback_data == ["pick:a", "pick:b"]

        query_id = telegram_server.user_click(GROUP, ANN, message.message_id, "pick:b")
        answer = await telegram_server.wait_for_callback_answer(query_id)
        assert answer["text"] == "you picked pick:b"
        await telegram_server.wait_for_request("editMessageText")
    assert message.text == "Picked pick:b"
    assert message.reply_markup is None  # an edit without reply_markup drops the keyboard
    assert [v.text for v in message.history] == ["Pick one"]
    assert telegram_server.pending_updates == []  # PTB confirmed every update on stop
    assert {"getMe", "deleteWebhook", "getUpdates"} <= {m for m, _ in telegram_server.requests}


async def test_get_updates_offset_and_long_poll(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    first, second, third = (telegram_server.user_message(ANN.id, ANN, t) for t in "abc")
    assert [u.update_id for u in await bot.get_updates(limit=2)] == [
        first["update_id"], second["update_id"]
    ]
    updates = await bot.get_updates(offset=second["update_id"] + 1)
    assert [u.message.text for u in updates] == ["c"]
    assert telegram_server.pending_updates == [third]

    poll = asyncio.create_task(bot.get_updates(offset=third["update_id"] + 1, timeout=30))
    await telegram_server.wait_until(lambda: telegram_server.waiting_polls)
    started = time.monotonic()
    telegram_server.user_message(ANN.id, ANN, "/help")
    (update,) = await asyncio.wait_for(poll, timeout=HANG)
    assert time.monotonic() - started < 2
    assert update.message.text == "/help" and update.message.entities[0].type == "bot_command"

    assert await bot.get_updates(offset=update.update_id + 1, timeout=1) == ()


async def test_a_second_poller_ends_the_first_with_conflict(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=30))
    await telegram_server.wait_until(lambda: telegram_server.waiting_polls)
    async with Bot(telegram_server.token, base_url=telegram_server.base_url) as other_instance:
        second = asyncio.create_task(other_instance.get_updates(timeout=30))
        with pytest.raises(Conflict, match="terminated by other getUpdates"):
            await asyncio.wait_for(first, timeout=HANG)
        telegram_server.user_message(ANN.id, ANN, "hi")
        assert len(await asyncio.wait_for(second, timeout=HANG)) == 1


async def test_callback_query_is_answered_once(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    telegram_server.private_chat(ANN)
    sent = await bot.send_message(ANN.id, "Quiz", reply_markup=keyboard("a"))
    query_id = telegram_server.user_click(ANN.id, ANN, sent.message_id, "a")
    assert await bot.answer_callback_query(query_id, text="ok")
    with refused("query is too old"):
        await bot.answer_callback_query(query_id)
    late = telegram_server.user_click(ANN.id, ANN, sent.message_id, "a")
    telegram_server.expire_callback(late)
    with refused("query is too old"):
        await bot.answer_callback_query(late)
    with pytest.raises(LookupError):
        telegram_server.user_click(ANN.id, ANN, sent.message_id, "no-such-button")


async def test_telegram_limits(bot: Bot, telegram_server: FakeTelegramServer) -> None:  # noqa: F811
    telegram_server.private_chat(ANN)
    with refused("button_data_invalid"):
        await bot.send_message(ANN.id, "x", reply_markup=keyboard("é" * 32 + "a"))  # 65 bytes
    await bot.send_message(ANN.id, "x", reply_markup=keyboard("é" * 32))  # 64 bytes
    with refused("message is too long"):
        await bot.send_message(ANN.id, "a" * 4097)
    await bot.send_message(ANN.id, "<b>" + "&lt;" * 4096 + "</b>", parse_mode="HTML")
    with refused("message text is empty"):
        await bot.send_message(ANN.id, " \n ")


BAD_HTML = [
    ("<b>bold", 'end tag corresponding to start tag "b"'),
    ("<blink>x</blink>", 'unsupported start tag "blink"'),
    ("1 < 2", 'unsupported start tag ""'),
    ("Tom & Jerry", 'unescaped "&"'),
    ("<b><i>x</b></i>", 'expected "</i>", found "</b>"'),
    ('<span class="red">x</span>', "tg-spoiler"),
]


async def test_bad_html_is_refused(bot: Bot, telegram_server: FakeTelegramServer) -> None:  # noqa: F811
    telegram_server.private_chat(ANN)
    for text, reason in BAD_HTML:
        with refused("can't parse entities") as err:
            await bot.send_message(ANN.id, text, parse_mode="HTML")
        assert reason.lower() in str(err.value).lower(), text
    assert telegram_server.messages_in(ANN.id) == []


async def test_formatting_becomes_entities(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    telegram_server.private_chat(ANN)
    html = '<b>Q1</b> <a href="https://x.org/?a=1&amp;b=2">link</a> <tg-spoiler>42</tg-spoiler>'
    sent = await bot.send_message(ANN.id, html, parse_mode="HTML")
    assert sent.text == "Q1 link 42"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [
        ("bold", 0, 2), ("text_link", 3, 4), ("spoiler", 8, 2)
    ]
    assert sent.entities[1].url == "https://x.org/?a=1&b=2"
    sent = await bot.send_message(ANN.id, "*Score:* 3\\.5 _of_ 5", parse_mode="MarkdownV2")
    assert sent.text == "Score: 3.5 of 5"
    with refused("character '.' is reserved"):
        await bot.send_message(ANN.id, "Score: 3.5", parse_mode="MarkdownV2")


async def test_edits(bot: Bot, telegram_server: FakeTelegramServer) -> None:  # noqa: F811
    telegram_server.private_chat(ANN)
    sent = await bot.send_message(ANN.id, "Question", reply_markup=keyboard("a"))
    with refused("message is not modified"):
        await bot.edit_message_text("Question", ANN.id, sent.message_id, reply_markup=keyboard("a"))
    with refused("message is not modified"):
        await bot.edit_message_reply_markup(ANN.id, sent.message_id, reply_markup=keyboard("a"))
    await bot.edit_message_reply_markup(ANN.id, sent.message_id, reply_markup=None)
    with refused("message to edit not found"):
        await bot.edit_message_text("x", ANN.id, 999)
    assert await bot.delete_message(ANN.id, sent.message_id)
    with refused("message to edit not found"):
        await bot.edit_message_text("x", ANN.id, sent.message_id)
    assert telegram_server.messages_in(ANN.id) == []


async def test_replies_use_ptb_conveniences(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    asked = telegram_server.user_message(ANN.id, ANN, "what is 2+2?")["message"]
    sent = await bot.send_message(
        ANN.id, "4, see https://x.org", reply_to_message_id=asked["message_id"],
        disable_web_page_preview=True,
    )
    assert sent.reply_to_message.text == "what is 2+2?"
    params = telegram_server.calls("sendMessage")[-1]
    assert params["reply_parameters"] == {"message_id": asked["message_id"]}
    assert params["link_preview_options"] == {"is_disabled": True}
    with refused("message to be replied not found"):
        await bot.send_message(ANN.id, "x", reply_to_message_id=999)
    assert [m.text for m in telegram_server.messages_in(ANN.id, from_bot=None)] == [
        "what is 2+2?", "4, see https://x.org"
    ]


async def test_flood_control_with_rate_limiter(
    telegram_server: FakeTelegramServer,  # noqa: F811
) -> None:
    telegram_server.private_chat(ANN)
    telegram_server.fail_next("sendMessage", times=1, retry_after=1)
    app = (
        ApplicationBuilder().token(telegram_server.token).base_url(telegram_server.base_url)
        .rate_limiter(AIORateLimiter(max_retries=2)).build()
    )
    async with app:
        sent = await app.bot.send_message(ANN.id, "eventually")
    assert sent.text == "eventually"
    statuses = [e.status for e in telegram_server.log if e.method == "sendMessage"]
    assert statuses == [429, 200]
    assert telegram_server.log[-2].response["parameters"] == {"retry_after": 1}
    assert [m.text for m in telegram_server.messages_in(ANN.id)] == ["eventually"]


async def test_injected_generic_failure(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    telegram_server.private_chat(ANN)
    telegram_server.fail_next("sendmessage", code=500)
    with pytest.raises(NetworkError, match="Internal Server Error"):
        await bot.send_message(ANN.id, "x")
    telegram_server.fail_next("sendMessage", code=400, description="Bad Request: chat not found")
    with refused("chat not found"):
        await bot.send_message(ANN.id, "x")
    assert (await bot.send_message(ANN.id, "x")).message_id == 1


async def test_blocked_kicked_and_migrated_chats(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    telegram_server.private_chat(ANN)
    telegram_server.block_chat(ANN.id)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(ANN.id, "hello?")

    telegram_server.add_chat(GROUP)
    telegram_server.kick_bot(GROUP.id)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(GROUP.id, "hello?")

    telegram_server.user_message(FakeChat(-55, "group", title="Old"), ANN, "hi")
    telegram_server.migrate_group(-55, -1009999)
    with pytest.raises(ChatMigrated) as err:
        await bot.send_message(-55, "hello?")
    assert err.value.new_chat_id == -1009999
    assert (await bot.send_message(-1009999, "hello!")).chat.type == "supergroup"

    updates = await bot.get_updates()
    member_updates = [u.my_chat_member for u in updates if u.my_chat_member]
    assert [m.new_chat_member.status for m in member_updates] == ["kicked", "kicked"]
    service = [u.message for u in updates if u.message and not u.message.text]
    assert (service[0].migrate_to_chat_id, service[1].migrate_from_chat_id) == (-1009999, -55)


async def test_chat_members_commands_and_chat_calls(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    telegram_server.add_chat(GROUP)
    telegram_server.set_member_status(GROUP.id, ANN, "creator")
    telegram_server.set_member_status(GROUP.id, telegram_server.bot_user, "administrator")
    owner = await bot.get_chat_member(GROUP.id, ANN.id)
    assert isinstance(owner, ChatMemberOwner)
    admins = await bot.get_chat_administrators(GROUP.id)
    assert {a.status for a in admins} == {"creator", "administrator"}
    assert (await bot.get_chat(GROUP.id)).title == "Study group"
    assert await bot.send_chat_action(GROUP.id, "typing")

    scope = BotCommandScopeChat(GROUP.id)
    commands = [BotCommand("quiz", "Start a quiz"), BotCommand("score", "Show scores")]
    assert await bot.set_my_commands(commands, scope=scope, language_code="en")
    assert await bot.get_my_commands(scope=scope, language_code="en") == tuple(commands)
    assert await bot.get_my_commands() == ()
    assert telegram_server.my_commands({"type": "chat", "chat_id": GROUP.id}, "en")[0] == {
        "command": "quiz", "description": "Start a quiz"
    }
    with refused("bot_command_invalid"):
        await bot.set_my_commands([BotCommand("Quiz", "x")])
    assert await bot.delete_my_commands(scope=scope, language_code="en")
    assert telegram_server.my_commands({"type": "chat", "chat_id": GROUP.id}, "en") == []
    assert await bot.set_chat_menu_button(menu_button=MenuButtonCommands())


async def test_spec_violations_are_recorded(
    bot: Bot, telegram_server: FakeTelegramServer  # noqa: F811
) -> None:
    telegram_server.private_chat(ANN)
    with refused("unknown parameter colour"):
        await bot.send_message(ANN.id, "x", api_kwargs={"colour": "red"})
    button = InlineKeyboardButton("x", callback_data="x", api_kwargs={"colour": "red"})
    with refused("unknown field colour in InlineKeyboardButton"):
        await bot.send_message(ANN.id, "x", reply_markup=InlineKeyboardMarkup([[button]]))
    with refused("expected Boolean"):
        await bot.send_message(ANN.id, "x", api_kwargs={"disable_notification": "yes"})
    with refused("method not implemented"):
        await bot.pin_chat_message(ANN.id, 1)
    telegram_server.allow_method("pinChatMessage")
    assert await bot.pin_chat_message(ANN.id, 1)
    with pytest.raises(EndPointNotFound, match="fooBar"):  # PTB's reading of a 404
        await bot.do_api_request("fooBar")
    assert len(telegram_server.spec_violations) == 5
    assert "sendMessage: unknown parameter colour" in telegram_server.spec_violations
    with pytest.raises(AssertionError, match="Telegram spec violations"):
        telegram_server.assert_all_requests_valid()
    telegram_server.spec_violations.clear()


async def test_raw_http_answers(telegram_server: FakeTelegramServer) -> None:  # noqa: F811
    base = telegram_server.base_url
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{base}{telegram_server.token}/fooBar") as resp:
            assert resp.status == 404 and resp.content_type == "application/json"
            assert await resp.json() == {"ok": False, "error_code": 404, "description": "Not Found"}
        async with http.post(f"{base}1:wrong/getMe") as resp:
            assert resp.status == 401 and (await resp.json())["description"] == "Unauthorized"
        with pytest.raises(InvalidToken, match="rejected by the server"):
            async with Bot("1:wrong", base_url=base):
                pass
        async with http.post(f"{base}{telegram_server.token}/SENDMESSAGE",
                             data={"chat_id": "7"}) as resp:
            assert (await resp.json())["description"] == "Bad Request: text is empty"
        async with http.post(f"{base}{telegram_server.token}/getme") as resp:
            assert (await resp.json())["result"]["username"] == "studybot_test_bot"
        telegram_server.private_chat(ANN)
        async with http.post(f"{base}{telegram_server.token}/sendMessage",
                             json={"chat_id": ANN.id, "text": "json body"}) as resp:
            assert (await resp.json())["result"]["text"] == "json body"
    assert telegram_server.spec_violations == [
        "unknown method 'fooBar'", "request with a wrong bot token",
        "request with a wrong bot token", "sendMessage: text is empty",
    ]
    telegram_server.strict = False
