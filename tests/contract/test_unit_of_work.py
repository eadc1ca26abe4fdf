"""Contract: a unit of work commits writes to several aggregates together, or none of them."""

from __future__ import annotations

import asyncio

import pytest

from bot.domain.records import DailySchedule
from tests.contract.helpers import SETTINGS, T0, chat_ref


async def test_writes_to_several_aggregates_commit_together(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    schedule = DailySchedule(chat.id, "09:00", "Asia/Shanghai", 3600, since=T0)
    async with storage.unit_of_work():
        await storage.store.set_chat_paused(chat.id, True)
        await storage.schedules.save_daily(schedule)
        assert (await storage.store.get_chat(chat.id)).paused  # the unit reads its own writes
        # Another task does not see them before the commit.
        assert not (await asyncio.create_task(storage.store.get_chat(chat.id))).paused
    assert (await storage.store.get_chat(chat.id)).paused
    assert await storage.schedules.get_daily(chat.id) == schedule


async def test_an_error_inside_rolls_every_write_back(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    with pytest.raises(RuntimeError):
        async with storage.unit_of_work():
            await storage.store.set_chat_paused(chat.id, True)
            schedule = DailySchedule(chat.id, "09:00", "Asia/Shanghai", 3600, since=T0)
            await storage.schedules.save_daily(schedule)
            async with storage.unit_of_work():  # nested: part of the outer unit
                await storage.store.move_chat(chat.id, "elsewhere")
            raise RuntimeError("fail after the writes")
    assert not (await storage.store.get_chat(chat.id)).paused
    assert await storage.store.find_chat("discord", "c1") is not None
    assert await storage.schedules.get_daily(chat.id) is None
