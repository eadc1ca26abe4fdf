"""The live answer count on a question message: edited at most once per `delay` per round, and
never after the reveal replaced the question (both edits hold the round's lock)."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import aiohttp
import discord

from adapters.discord.render import question_embed
from adapters.discord.transient import describe
from bot.application.app import log_failure
from bot.application.keyed_locks import KeyedLocks
from bot.application.posted_rounds import PostedRounds
from bot.views.quiz import QuestionView

log = logging.getLogger("studybot.discord")
REMEMBERED = 2000  # question views kept for re-rendering; older ones are rebuilt from the store


class LiveCounts:
    def __init__(
        self, rounds: PostedRounds, client: Callable[[], discord.Client | None], delay: float
    ) -> None:
        self.rounds = rounds
        self._client = client
        self.delay = delay
        self._views: OrderedDict[int, QuestionView] = OrderedDict()
        self._pending: dict[int, asyncio.Task[None]] = {}  # rounds with an edit still waiting
        self._tasks: set[asyncio.Task[None]] = set()  # every edit not yet done, waiting or sending
        self._locks = KeyedLocks()
        self._revealed: OrderedDict[int, None] = OrderedDict()

    def remember(self, view: QuestionView) -> None:
        self._views[view.round_id] = view
        self._views.move_to_end(view.round_id)
        while len(self._views) > REMEMBERED:
            self._views.popitem(last=False)

    async def question_view(self, round_id: int) -> QuestionView | None:
        view = self._views.get(round_id)
        if view is not None:
            return view
        view = await self.rounds.question(round_id)
        if view is not None:
            self.remember(view)
        return view

    def lock(self, round_id: int) -> AbstractAsyncContextManager[None]:
        """Held by whoever edits the round's question message (count edits and the reveal)."""
        return self._locks.hold(round_id)

    def mark_revealed(self, round_id: int) -> None:
        """Call holding the round's lock: no count edit touches its message afterwards."""
        self._revealed[round_id] = None
        while len(self._revealed) > REMEMBERED:
            self._revealed.popitem(last=False)
        self._views.pop(round_id, None)

    def bump(self, round_id: int, channel_id: int, message_id: int) -> None:
        """An answer was recorded: schedule an edit unless one is already coming."""
        if round_id in self._pending or round_id in self._revealed:
            return
        task = asyncio.create_task(self._edit_later(round_id, channel_id, message_id))
        self._pending[round_id] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _edit_later(self, round_id: int, channel_id: int, message_id: int) -> None:
        try:
            await asyncio.sleep(self.delay)
        finally:
            self._pending.pop(round_id, None)
        client = self._client()
        try:
            view = await self.question_view(round_id)
            if view is None or client is None:
                return
            async with self.lock(round_id):
                count = None if round_id in self._revealed else await self.rounds.live(round_id)
                if count is None:  # revealed, or closed meanwhile
                    return
                message = client.get_partial_messageable(channel_id).get_partial_message(message_id)
                await message.edit(embed=question_embed(view, answers=count))
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.warning("answer count of round %s not updated: %s", round_id, describe(exc))
        except Exception:  # a count edit failing must never disturb answering
            log_failure(log, "answer count of round %s not updated", round_id)

    async def close(self) -> None:
        # Every edit, also one past its wait and being sent: the client closes next, and an edit
        # still sending then would fail with "Session is closed".
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._pending.clear()
