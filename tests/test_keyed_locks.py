"""KeyedLocks: one holder per key, even across a release with a waiter queued; idle keys are dropped."""

from __future__ import annotations

import asyncio

from bot.application.keyed_locks import KeyedLocks


async def test_one_holder_per_key_and_idle_keys_are_dropped():
    locks = KeyedLocks()
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    first_in = asyncio.Event()
    release_first = asyncio.Event()

    async def worker(name: str) -> None:
        async with locks.hold("round-1"):
            inside.append(name)
            if len(inside) > 1:
                overlaps.append(tuple(inside))
            if name == "a":
                first_in.set()
                await release_first.wait()
            await asyncio.sleep(0)
            inside.remove(name)

    a = asyncio.create_task(worker("a"))
    await first_in.wait()
    b = asyncio.create_task(worker("b"))  # queued behind a
    await asyncio.sleep(0)
    release_first.set()
    await asyncio.sleep(0)  # a releases; b is woken but has not run yet
    c = asyncio.create_task(worker("c"))  # arrives in that gap: must still wait for b
    async with locks.hold("other"):  # another key is independent
        assert len(locks) == 2
    await asyncio.gather(a, b, c)
    assert overlaps == []
    assert len(locks) == 0
