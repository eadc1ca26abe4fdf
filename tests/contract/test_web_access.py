"""Contract: the web app's one-time links are taken once, only before they expire, and sessions
are read back until they expire or end — on both backends."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.domain.kinds import ChatKind, Platform
from bot.ports.storage import WebGrant
from tests.contract.helpers import T0

GRANT = WebGrant(Platform.DISCORD, "dm-1", "u-1", "阿明", T0 + timedelta(minutes=10), ChatKind.PRIVATE)


async def test_a_link_is_taken_once_and_not_after_it_expires(storage):
    await storage.web.add_web_link("h1", GRANT)
    await storage.web.add_web_link("h2", GRANT)
    assert await storage.web.take_web_link("h1", T0) == GRANT
    assert await storage.web.take_web_link("h1", T0) is None  # spent
    assert await storage.web.take_web_link("nope", T0) is None
    assert await storage.web.take_web_link("h2", T0 + timedelta(minutes=11)) is None  # expired


async def test_racing_requests_take_a_link_once_between_them(storage):
    await storage.web.add_web_link("h", GRANT)
    taken = await asyncio.gather(*(storage.web.take_web_link("h", T0) for _ in range(8)))
    assert [g for g in taken if g is not None] == [GRANT]


async def test_a_session_lasts_until_it_expires_or_ends(storage):
    await storage.web.add_web_session("s1", GRANT)
    await storage.web.add_web_session("s2", GRANT)
    assert await storage.web.web_session("s1", T0) == GRANT
    assert await storage.web.web_session("s1", T0 + timedelta(minutes=11)) is None
    await storage.web.end_web_session("s1")
    assert await storage.web.web_session("s1", T0) is None
    assert await storage.web.forget_web_access(T0 + timedelta(minutes=11)) == 1  # s2
    assert await storage.web.web_session("s2", T0) is None
