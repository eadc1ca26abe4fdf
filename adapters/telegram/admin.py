"""Who is a group's admin: getChatMember, remembered a few minutes per (chat, user)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import Bot, ChatMember
from telegram import Chat as TgChat
from telegram import User as TgUser
from telegram.error import TelegramError

log = logging.getLogger("studybot.telegram")
ADMIN_STATUSES = (ChatMember.OWNER, ChatMember.ADMINISTRATOR)


class AdminCheck:
    """Admin status per (chat, user) from getChatMember, remembered for `ttl` seconds."""

    def __init__(
        self, bot: Callable[[], Bot], ttl: float = 300.0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._bot = bot
        self.ttl = ttl
        self._monotonic = monotonic
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}

    async def is_admin(self, chat: TgChat, user: TgUser | None, sender_chat: TgChat | None = None) -> bool:
        if chat.type == TgChat.PRIVATE:
            return True  # one's own private chat
        if sender_chat is not None and sender_chat.id == chat.id:
            return True  # an anonymous admin, posting as the group itself
        if user is None:
            return False
        key = (chat.id, user.id)
        now = self._monotonic()
        known = self._known.get(key)
        if known is not None and known[1] > now:
            return known[0]
        try:
            member = await self._bot().get_chat_member(chat.id, user.id)
        except TelegramError as exc:
            log.info("admin check in chat %s failed: %s", chat.id, exc)
            return False
        admin = member.status in ADMIN_STATUSES
        self._known[key] = (admin, now + self.ttl)
        if len(self._known) > 10_000:
            self._known = {k: v for k, v in self._known.items() if v[1] > now}
        return admin
