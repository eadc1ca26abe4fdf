"""Shared harness for the Telegram tests (no tests of its own): the real app and the real PTB
Application through TelegramAdapter, against the fake Bot API server, under a ManualClock (or, given
a SystemClock, on the real clock and the real APScheduler).

Import the fixtures in a test module:
``from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401`` and
``from tests.test_telegram_harness import tg_fixture  # noqa: F401`` (the fixture is named `tg`;
the function's other name keeps linters from reading a `tg` parameter as a redefinition);
`tg_live_fixture` (named `tg_live`) is the same on the real clock.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from adapters.telegram import TelegramAdapter
from bot.domain.clock import ManualClock, SystemClock
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind
from bot.domain.questions import Bank
from bot.locales.i18n import LANGUAGES, t
from studybot.bootstrap import App, bootstrap
from studybot.config import Config, Secret
from studybot.runner import telegram_settings
from tests.fakes.charts import shared_charts
from tests.fakes.ports import ManualScheduler
from tests.fakes.telegram_model import FakeChat, FakeMessage, FakeUser
from tests.fakes.telegram_server import FakeTelegramServer
from tests.waits import HANG

ANN = FakeUser(7, "Ann", "ann", "en")
BOB = FakeUser(8, "Bob", "bob", "en")
CAT = FakeUser(9, "Cat <&>", "cat", "zh-hans")
BOSS = FakeUser(10, "Boss", "boss", "en")
GROUP = FakeChat(-1001234, "supergroup", title="Study group")
GROUP_REF = ChatRef(Platform.TELEGRAM, str(GROUP.id), ChatKind.GROUP)  # GROUP as the core knows it


class TelegramHarness:
    """Builds (and rebuilds, for restarts) app + adapter over one database and one fake server."""

    def __init__(
        self, server: FakeTelegramServer, data_dir: Path, bank: Bank, clock: ManualClock | SystemClock
    ) -> None:
        self.server = server
        self.data_dir = data_dir
        self.bank = bank
        self.clock = clock
        self.app: App | None = None
        self.adapter: TelegramAdapter | None = None
        self._config: dict[str, Any] = {}
        self._adapter_options: dict[str, Any] = {}

    async def start(self, *, max_retries: int = 2, live_count_seconds: float = 60.0, **config: Any) -> App:
        """Bootstrap the app, add the Telegram adapter as its port, start both (as `studybot run`)."""
        self._config = self._config or {"language": "en", **config}
        self._adapter_options = {"max_retries": max_retries, "live_count_seconds": live_count_seconds}
        cfg = Config(
            data_dir=self.data_dir, default_bank="sample", sqlite_synchronous="NORMAL",
            telegram_api_base=self.server.base_url, telegram_token=Secret(self.server.token),
            **self._config,
        )  # fmt: skip
        app = await bootstrap(
            cfg, clock=self.clock, rng=random.Random(3), banks={self.bank.id: self.bank},
            scheduler=ManualScheduler(self.clock) if isinstance(self.clock, ManualClock) else None,
            charts=shared_charts(),
        )  # fmt: skip
        settings = replace(telegram_settings(cfg), poll_timeout=5, **self._adapter_options)
        adapter = TelegramAdapter(app.application, settings)
        app.add_port(adapter)
        self.app, self.adapter = app, adapter
        await adapter.start()
        await app.start()
        return app

    async def stop(self) -> None:
        if self.app is not None:
            await self.app.quiz.flush()  # posts set off by answers finish while the bot is up
        if self.adapter is not None:
            await self.adapter.stop()
            self.adapter = None
        if self.app is not None:
            await self.app.close()
            self.app = None

    async def restart(self) -> App:
        await self.stop()
        return await self.start(**self._adapter_options)

    @property
    def scheduler(self) -> ManualScheduler:
        assert self.app is not None
        return self.app.scheduler  # type: ignore[return-value]

    async def advance(self, seconds: float) -> None:
        """Move the clock on and run the jobs that fall due (dailies, deadlines, contest steps),
        after the work answers set off (a contest question closed early schedules the next)."""
        assert self.app is not None
        await self.app.quiz.flush()
        await self.scheduler.advance(seconds)

    async def settle(self) -> None:
        """Wait until every update the fake has queued was fetched and fully handled."""
        await self.server.wait_until(lambda: not self.server.pending_updates)
        assert self.adapter is not None
        await self.adapter.application.update_queue.join()

    # ------------------------------------------------------------ users

    async def say(
        self, chat: FakeChat | int, user: FakeUser, text: str, reply_to: int | None = None,
        timeout: float = HANG,
    ) -> dict[str, Any]:  # fmt: skip
        """A user writes; returns the bot's next message into that chat (sendMessage params)."""
        chat_id = chat if isinstance(chat, int) else chat.id
        self.server.user_message(chat, user, text, reply_to_message_id=reply_to)
        return await self.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == chat_id,
                                                  timeout=timeout)  # fmt: skip

    async def click(
        self, chat: FakeChat | int, user: FakeUser, message_id: int, data: str, *, check: bool = True,
        inaccessible: bool = False,
    ) -> str:  # fmt: skip
        """A user presses a button; returns the toast the bot answered with (`inaccessible`: the
        update carries the message as one Telegram no longer shows the bot)."""
        query_id = self.server.user_click(
            chat, user, message_id, data, check=check, inaccessible=inaccessible
        )
        answer = await self.server.wait_for_callback_answer(query_id)
        return answer.get("text", "")

    async def question(self, chat_id: int, timeout: float = HANG) -> FakeMessage:
        """The next question the bot posts into the chat (a message starting with a round header)."""
        params = await self.server.wait_for_request(
            "sendMessage", lambda p: p["chat_id"] == chat_id and _is_question(p["text"]), timeout=timeout
        )
        return next(m for m in reversed(self.server.messages_in(chat_id)) if m.params is params)

    async def reveal(self, message: FakeMessage, timeout: float = HANG) -> dict[str, Any]:
        """Wait for the edit that turns a question message into its reveal."""
        return await self.server.wait_for_request(
            "editMessageText",
            lambda p: p["message_id"] == message.message_id and p["text"].startswith("<b>Answer revealed"),
            timeout=timeout,
        )

    async def round_id(self, message: FakeMessage) -> int:
        """The round a question message carries, as the adapter recorded it."""
        await self.settle()
        assert self.adapter is not None
        found = self.adapter.rounds.by_message(message.chat_id, message.message_id)
        assert found is not None, f"message {message.message_id} is not a question"
        return found


_KINDS = tuple(t(lang, f"kind.{kind}") + " · " for lang in LANGUAGES for kind in RoundKind)


def _is_question(text: str) -> bool:
    return text.startswith(_KINDS) or text.startswith(tuple(f"<b>{k}" for k in _KINDS))


def round_of(message: FakeMessage) -> int:
    """The round id carried by a question message's buttons."""
    return int(message.callback_data[0].split(":")[1])


def buttons(message: FakeMessage) -> dict[str, str]:
    """Button text → callback_data."""
    return {b["text"]: b["callback_data"] for b in message.buttons if "callback_data" in b}


@pytest.fixture(name="tg")
async def tg_fixture(telegram_server: FakeTelegramServer, tmp_path: Path, bank: Bank, clock: ManualClock):
    harness = TelegramHarness(telegram_server, tmp_path, bank, clock)
    yield harness
    await harness.stop()


@pytest.fixture(name="tg_live")
async def tg_live_fixture(telegram_server: FakeTelegramServer, tmp_path: Path, bank: Bank):
    """The harness on the real clock and the real APScheduler: for timers (deadlines, contest
    steps, a mock's hand-in) with short real durations, waited for with timeouts."""
    harness = TelegramHarness(telegram_server, tmp_path, bank, SystemClock())
    yield harness
    await harness.stop()
