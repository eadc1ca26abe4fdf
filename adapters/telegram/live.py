"""The live answer count under a group's daily question ("3 answered so far"): the message edit.

When to edit (at most once per interval, never after the reveal) is bot/live_counts, shared by
every platform; this module keeps what each counted message shows and edits it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

from bot.application.live_counts import Shown
from bot.locales.i18n import t
from bot.views.quiz_text import HTML

log = logging.getLogger("studybot.telegram")
REMEMBERED = 2000  # counted messages kept; an older one just stops showing new counts


@dataclass(frozen=True, slots=True)
class CountedMessage:
    chat_id: int
    message_id: int
    html: str
    markup: InlineKeyboardMarkup | None
    language: str


class CountEdits:
    def __init__(self, bot: Callable[[], Bot]) -> None:
        self._bot = bot
        self._messages: OrderedDict[int, CountedMessage] = OrderedDict()

    def remember(self, round_id: int, message: CountedMessage) -> None:
        self._messages[round_id] = message
        while len(self._messages) > REMEMBERED:
            self._messages.popitem(last=False)

    def forget(self, round_id: int) -> None:
        self._messages.pop(round_id, None)

    async def show(self, round_id: int, count: int) -> Shown:
        posted = self._messages.get(round_id)
        if posted is None:
            return Shown.STOP
        line = HTML.italic(HTML.escape(t(posted.language, "question.answers_so_far", n=count)))
        try:
            await self._bot().edit_message_text(
                f"{posted.html}\n{line}", chat_id=posted.chat_id, message_id=posted.message_id,
                parse_mode=ParseMode.HTML, reply_markup=posted.markup,
            )  # fmt: skip
        except BadRequest as exc:
            if "not modified" in exc.message.lower():
                return Shown.DONE
            log.info("answer count of round %s not shown: %s", round_id, exc.message)
            return Shown.STOP  # deleted or too long: stop counting there
        except TelegramError as exc:  # flood control or network: the next answer tries again
            log.info("answer count of round %s not updated: %s", round_id, exc)
            return Shown.RETRY
        return Shown.DONE
