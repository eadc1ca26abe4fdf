"""Contract: due firings are claimed once, outbox deliveries leased per chat, processes counted —
on both backends, with a second storage on the same database standing in for a second process."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from adapters.storage.backends import PostgresStorage, SqliteStorage
from bot.views.quiz import notice
from tests.contract.helpers import SETTINGS, T0, chat_ref, new_round, user_ref


async def second_process(storage: SqliteStorage | PostgresStorage) -> SqliteStorage | PostgresStorage:
    """Another storage on the same database (another process's)."""
    if isinstance(storage, PostgresStorage):
        return await PostgresStorage.open(storage.store.dsn)
    return await SqliteStorage.open(storage.store.path, synchronous="NORMAL")


async def test_a_firing_is_claimed_once_and_old_claims_are_forgotten(storage):
    assert await storage.firings.claim_firing("daily:1:2026-12-02", "a", T0)
    assert not await storage.firings.claim_firing("daily:1:2026-12-02", "b", T0)
    assert await storage.firings.claim_firing("daily:1:2026-12-03", "b", T0 + timedelta(days=1))
    assert await storage.firings.forget_firings(T0 + timedelta(hours=1)) == 1
    assert await storage.firings.claim_firing("daily:1:2026-12-02", "b", T0)  # forgotten: free again


async def test_a_claim_rolled_back_with_its_work_leaves_the_firing_free(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    with pytest.raises(RuntimeError):
        async with storage.unit_of_work():
            assert await storage.firings.claim_firing("contest:1:ask:0", "a", T0)
            await storage.store.open_round(new_round(chat.id))
            raise RuntimeError("the process died before its commit")
    assert await storage.store.open_rounds() == []
    assert await storage.firings.claim_firing("contest:1:ask:0", "b", T0)


async def test_two_processes_claiming_at_once_one_wins_and_the_other_waits_for_its_commit(storage):
    other = await second_process(storage)
    try:
        won: list[str] = []
        claimed = asyncio.Event()

        async def first() -> None:
            async with storage.unit_of_work():
                assert await storage.firings.claim_firing("remind:7:2026-12-02", "a", T0)
                won.append("a")
                claimed.set()
                for _ in range(20):  # the other claims meanwhile: it must wait for this commit
                    await asyncio.sleep(0)

        async def second() -> None:
            await claimed.wait()
            async with other.unit_of_work():
                if await other.firings.claim_firing("remind:7:2026-12-02", "b", T0):
                    won.append("b")

        await asyncio.gather(first(), second())
        assert won == ["a"]
        # Truly at the same time, many keys each: every key goes to exactly one of them.
        keys = [f"daily:{n}:2026-12-02" for n in range(40)]

        async def claim_all(store, owner: str) -> list[str]:
            got = []
            for key in keys:
                async with store.unit_of_work():
                    if await store.firings.claim_firing(key, owner, T0):
                        got.append(key)
            return got

        a, b = await asyncio.gather(claim_all(storage, "a"), claim_all(other, "b"))
        assert sorted(a + b) == sorted(keys) and not set(a) & set(b)
    finally:
        await other.close()


async def test_an_outbox_lease_keeps_others_out_until_it_runs_out_or_is_released(storage):
    one = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    two = await storage.store.ensure_chat(chat_ref("c2"), SETTINGS)
    for chat in (one, two):
        await storage.outbox.add_post(chat.id, notice("contest.started", "en", count=3, seconds=20), None, T0)
    later = T0 + timedelta(seconds=10)
    until = T0 + timedelta(seconds=15)
    assert await storage.outbox.hold_chat(one.id, "a", T0, until)
    assert await storage.outbox.hold_chat(one.id, "a", T0, until)  # its own: kept
    assert not await storage.outbox.hold_chat(one.id, "b", later, later + timedelta(seconds=15))
    # b's sweep sees only the chat nobody holds; a's sees both (its own lease included)
    assert await storage.outbox.unheld_chats("b", later, later, 10) == [two.id]
    assert await storage.outbox.unheld_chats("a", later, later, 10) == [one.id, two.id]
    assert await storage.outbox.unheld_chats("b", later, T0, 10) == []  # nothing owed before T0
    assert await storage.outbox.renew_chats("a", T0 + timedelta(seconds=30)) == 1
    expired = T0 + timedelta(seconds=31)
    assert await storage.outbox.unheld_chats("b", expired, expired, 10) == [one.id, two.id]
    assert await storage.outbox.hold_chat(one.id, "b", expired, expired + timedelta(seconds=15))  # taken over
    assert not await storage.outbox.hold_chat(one.id, "a", expired, expired + timedelta(seconds=15))
    await storage.outbox.release_chat(one.id, "a")  # not a's any more: nothing happens
    assert not await storage.outbox.hold_chat(one.id, "a", expired, expired + timedelta(seconds=15))
    await storage.outbox.release_chat(one.id, "b")
    assert await storage.outbox.hold_chat(one.id, "a", expired, expired + timedelta(seconds=15))


async def test_processes_are_counted_while_their_heartbeat_runs_and_leaving_frees_their_leases(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    assert await storage.firings.heartbeat("a", T0, T0 + timedelta(seconds=10)) == 1
    assert await storage.firings.heartbeat("b", T0, T0 + timedelta(seconds=10)) == 2
    assert await storage.firings.heartbeat("a", T0 + timedelta(seconds=5), T0 + timedelta(seconds=15)) == 2
    # b stopped beating (killed): gone once its time ran out
    assert await storage.firings.heartbeat("a", T0 + timedelta(seconds=11), T0 + timedelta(seconds=21)) == 1
    assert await storage.outbox.hold_chat(chat.id, "a", T0, T0 + timedelta(hours=1))
    await storage.firings.leave("a")
    assert await storage.outbox.hold_chat(chat.id, "c", T0, T0 + timedelta(seconds=15))
    assert await storage.firings.heartbeat("c", T0 + timedelta(seconds=12), T0 + timedelta(seconds=22)) == 1


async def test_overdue_dailies_are_the_open_daily_rounds_past_their_deadline(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    due = await storage.store.open_round(new_round(chat.id, minutes=10, daily_date="2026-12-02"))
    await storage.store.open_round(new_round(chat.id, minutes=90, daily_date="2026-12-03"))
    closed = await storage.store.open_round(new_round(chat.id, minutes=5, daily_date="2026-12-04"))
    await storage.store.close_round(closed.id, T0)
    assert await storage.schedules.overdue_dailies(T0 + timedelta(minutes=30)) == [due.id]


async def test_a_selection_is_built_by_toggles_from_any_process_and_taken_once(storage):
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    round_ = await storage.store.open_round(new_round(chat.id, question="s-2"))
    other = await second_process(storage)
    try:
        ann, bob = user_ref("ann"), user_ref("bob")
        assert await storage.selections.toggle(round_.id, ann, "C") == ("C",)
        assert await other.selections.toggle(round_.id, ann, "A") == ("C", "A")  # another process; tap order
        assert await storage.selections.toggle(round_.id, ann, "C") == ("A",)
        # An ordering's taps: the order kept, a tapped one out again, undo takes the last one out.
        for token in "DBE":
            await other.selections.toggle(round_.id, ann, token)
        assert await storage.selections.toggle(round_.id, ann, "B") == ("A", "D", "E")
        assert await other.selections.undo(round_.id, ann) == ("A", "D")
        assert await storage.selections.undo(round_.id, ann) == ("A",)
        assert await other.selections.undo(round_.id, bob) == ()  # nothing to undo
        assert await other.selections.toggle(round_.id, bob, "B") == ("B",)
        assert await storage.selections.get(round_.id, ann) == ("A",)
        assert await other.selections.take(round_.id, ann) == ("A",)
        assert await storage.selections.take(round_.id, ann) == ()  # taken once
        await storage.selections.forget_round(round_.id)
        assert await other.selections.get(round_.id, bob) == ()
    finally:
        await other.close()


async def test_a_limit_counted_in_the_database_holds_for_all_processes_together(storage):
    other = await second_process(storage)
    try:
        t0 = T0.timestamp()
        assert await storage.throttles.hit("ask:group:discord:ann", 2, 60.0, t0) == 0
        assert await other.throttles.hit("ask:group:discord:ann", 2, 60.0, t0 + 1) == 0
        assert await storage.throttles.hit("ask:group:discord:ann", 2, 60.0, t0 + 10) == 50.0
        assert await other.throttles.hit("ask:group:discord:bob", 2, 60.0, t0 + 10) == 0  # per key
        assert await other.throttles.hit("ask:group:discord:ann", 2, 60.0, t0 + 60) == 0  # a new window
        assert await storage.throttles.forget_throttles(t0 + 30) == 1  # bob's
    finally:
        await other.close()
