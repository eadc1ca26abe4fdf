"""The live answer count under a group's daily question ("3 answered so far"), edited at most once
per interval, and never after the question became its reveal."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from telegram import InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

from bot.i18n import t
from bot.kinds import AnswerStatus
from bot.records import Round
from bot.text import HTML

if TYPE_CHECKING:
    from adapters.telegram.adapter import TelegramAdapter

log = logging.getLogger("studybot.telegram")


@dataclass
class _Posted:
    chat_id: int
    message_id: int
    html: str
    markup: InlineKeyboardMarkup | None
    language: str
    shown: int = 0
    last_edit: float = float("-inf")
    closed: bool = False
    later: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class LiveCounts:
    def __init__(self, adapter: TelegramAdapter, interval: float) -> None:
        self.adapter = adapter
        self.interval = interval
        self._posted: dict[int, _Posted] = {}
        self._stopped = False

    def track(
        self, round_id: int, chat_id: int, message_id: int, html: str,
        markup: InlineKeyboardMarkup | None, language: str,
    ) -> None:  # fmt: skip
        self._posted[round_id] = _Posted(chat_id, message_id, html, markup, language)

    async def on_answer(self, round_: Round, status: AnswerStatus, user_id: int) -> None:
        """An answer was committed: show the new count now, or once the interval has passed."""
        posted = self._posted.get(round_.id)
        if self._stopped or posted is None or posted.closed:
            return
        if posted.later is not None and not posted.later.done():
            return  # the pending edit will show the latest count
        wait = posted.last_edit + self.interval - asyncio.get_running_loop().time()
        if wait <= 0:
            await self._edit(round_.id, posted)
        else:
            posted.later = asyncio.create_task(self._edit_later(round_.id, posted, wait))

    async def _edit_later(self, round_id: int, posted: _Posted, wait: float) -> None:
        await asyncio.sleep(wait)
        await self._edit(round_id, posted)

    async def _edit(self, round_id: int, posted: _Posted) -> None:
        async with posted.lock:
            if posted.closed:
                return
            count = await self.adapter.app.quiz.store.answer_count(round_id)
            if count == posted.shown:
                return
            line = HTML.italic(HTML.escape(t(posted.language, "question.answers_so_far", n=count)))
            try:
                await self.adapter.bot.edit_message_text(
                    f"{posted.html}\n{line}", chat_id=posted.chat_id, message_id=posted.message_id,
                    parse_mode=ParseMode.HTML, reply_markup=posted.markup,
                )  # fmt: skip
            except BadRequest as exc:
                if "not modified" not in exc.message.lower():
                    posted.closed = True  # deleted or too long: stop counting there
                    log.info("answer count of round %s not shown: %s", round_id, exc.message)
            except TelegramError as exc:  # flood control or network: the next answer tries again
                log.info("answer count of round %s not updated: %s", round_id, exc)
                return
            posted.shown = count
            posted.last_edit = asyncio.get_running_loop().time()

    @contextlib.asynccontextmanager
    async def closing(self, round_id: int) -> AsyncIterator[None]:
        """Held while the question is turned into its reveal: no count edit runs or follows."""
        posted = self._posted.pop(round_id, None)
        if posted is None:
            yield
            return
        posted.closed = True
        if posted.later is not None:
            posted.later.cancel()
        async with posted.lock:
            yield

    async def stop(self) -> None:
        self._stopped = True
        tasks = [p.later for p in self._posted.values() if p.later is not None and not p.later.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
