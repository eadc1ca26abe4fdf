"""Contract: rounds and answers — the database holds the rules on every backend."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from adapters.storage.backends import PostgresStorage, SqliteStorage
from adapters.storage.sql import to_db
from bot.domain.kinds import AnswerPolicy, AnswerStatus, RevealPolicy, RoundKind, RoundState
from bot.ports.storage import DuplicateDaily
from tests.contract.helpers import SETTINGS, T0, answer, chat_ref, new_round, user_ref
from tests.waits import HANG


async def _chat_and_users(store, n: int = 3):
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    users = await store.ensure_users([user_ref(f"u{i}") for i in range(n)])
    return chat, users


async def test_rounds_open_are_found_and_close_once(storage):
    store = storage.store
    chat, _ = await _chat_and_users(store)
    first = await store.open_round(new_round(chat.id, daily_date="2026-12-02"))
    assert first.state is RoundState.OPEN and first.closes_at == T0 + timedelta(hours=1)
    with pytest.raises(DuplicateDaily):
        await store.open_round(new_round(chat.id, daily_date="2026-12-02"))
    second = await store.open_round(new_round(chat.id, question="s-2", kind=RoundKind.PRACTICE))
    await store.set_message_ref(first.id, "m-1")
    assert (await store.round_by_message(chat.id, "m-1")).id == first.id
    assert (await store.last_round(chat.id)).id == second.id
    assert [r.id for r in await store.open_rounds()] == [first.id, second.id]
    assert await store.question_counts(chat.id, "sample") == {"s-1": 1, "s-2": 1}
    await store.restart_round(first.id, T0 + timedelta(minutes=5), T0 + timedelta(hours=2))
    assert (await store.get_round(first.id)).closes_at == T0 + timedelta(hours=2)
    assert await store.close_round(first.id, T0 + timedelta(hours=2)) is True
    assert await store.close_round(first.id, T0 + timedelta(hours=3)) is False
    closed = await store.get_round(first.id)
    assert closed.state is RoundState.CLOSED and closed.closed_at == T0 + timedelta(hours=2)


async def test_100_concurrent_submissions_by_one_user_accept_one(storage):
    store = storage.store
    chat, users = await _chat_and_users(store, 1)
    rnd = await store.open_round(new_round(chat.id))
    tries = [answer(rnd.id, users[0], f"{i}") for i in range(100)]
    singles = await asyncio.gather(*(store.record_answers([a]) for a in tries[:50]))
    batch = await store.record_answers(tries[50:])
    statuses = [o[0].status for o in singles] + [o.status for o in batch]
    assert statuses.count(AnswerStatus.ACCEPTED) == 1
    assert statuses.count(AnswerStatus.DUPLICATE) == 99
    kept = await store.user_answer(rnd.id, users[0])
    duplicates = [o[0] for o in singles if o[0].status is AnswerStatus.DUPLICATE]
    assert all(o.answer.response == kept.response for o in duplicates)
    assert await store.answer_count(rnd.id) == 1


async def test_answers_after_close_or_deadline_and_to_unknown_rounds_are_refused(storage):
    store = storage.store
    chat, users = await _chat_and_users(store)
    closed = await store.open_round(new_round(chat.id))
    await store.close_round(closed.id, T0 + timedelta(minutes=2))
    overdue = await store.open_round(new_round(chat.id, question="s-2", minutes=1))
    outcomes = await store.record_answers([
        answer(closed.id, users[0]),
        answer(overdue.id, users[1], at=T0 + timedelta(minutes=5)),
        answer(closed.id + 1000, users[2]),
    ])  # fmt: skip
    assert [o.status for o in outcomes] == [
        AnswerStatus.CLOSED, AnswerStatus.CLOSED, AnswerStatus.UNKNOWN_ROUND,
    ]  # fmt: skip
    assert await store.answer_count(closed.id) == 0 and await store.answer_count(overdue.id) == 0


async def test_a_changeable_round_keeps_the_last_answer(storage):
    store = storage.store
    chat, users = await _chat_and_users(store)
    rnd = await store.open_round(new_round(chat.id, policy=AnswerPolicy.CHANGEABLE))
    first = await store.record_answers([answer(rnd.id, users[0], "A", right=False)])
    later = await store.record_answers([
        answer(rnd.id, users[0], "C", right=False, at=T0 + timedelta(minutes=2)),
        answer(rnd.id, users[1], "B"),
        answer(rnd.id, users[0], "B", at=T0 + timedelta(minutes=3)),
    ])  # fmt: skip
    assert first[0].status is AnswerStatus.ACCEPTED
    assert [o.status for o in later] == [AnswerStatus.CHANGED, AnswerStatus.ACCEPTED, AnswerStatus.CHANGED]
    kept = await store.user_answer(rnd.id, users[0])
    assert (kept.response, kept.verdict) == ("B", "correct")
    names = [a.display_name for a in await store.round_answers(rnd.id)]
    assert sorted(names) == ["user u0", "user u1"]


async def test_a_self_graded_answer_is_graded_once(storage):
    store = storage.store
    chat, users = await _chat_and_users(store)
    rnd = await store.open_round(new_round(chat.id, kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE))
    pending = answer(rnd.id, users[0], "my words")
    pending = type(pending)(**{**{f: getattr(pending, f) for f in pending.__slots__}, "verdict": "pending",
                               "points": 0.0})  # fmt: skip
    await store.record_answers([pending])
    assert await store.self_grade(rnd.id, users[0], "correct", 1.0, 10.0) is True
    assert await store.self_grade(rnd.id, users[0], "wrong", 0.0, 0.0) is False
    board = await store.top_scores(f"c:{chat.id}", "all", 5)
    assert [(r.user_id, r.points) for r in board] == [(users[0], 10.0)]


async def test_a_close_racing_answers_scores_exactly_the_answers_it_let_in(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    users = await store.ensure_users([user_ref(f"u{i}") for i in range(60)])
    rnd = await store.open_round(new_round(chat.id))
    sends = [store.record_answers([answer(rnd.id, u)]) for u in users[:30]]
    close = store.close_round(rnd.id, T0 + timedelta(minutes=30))
    more = [store.record_answers([answer(rnd.id, u)]) for u in users[30:]]
    *outcomes, closed = await asyncio.gather(*sends, *more, close)
    assert closed is True
    accepted = [o[0] for o in outcomes if o[0].status is AnswerStatus.ACCEPTED]
    refused = [o[0] for o in outcomes if o[0].status is AnswerStatus.CLOSED]
    assert len(accepted) + len(refused) == 60
    assert await store.answer_count(rnd.id) == len(accepted)
    board = await store.top_scores(f"c:{chat.id}", "all", 100)
    assert sum(r.answers for r in board) == len(accepted)


async def test_two_processes_storing_answers_of_the_same_people_keep_one_each(storage):
    """Two processes on one database (a second backend opened on it), each with a batch for the
    same twenty people: everyone's answer is accepted once, and the process that lost is told it
    was a duplicate and shown the answer kept."""
    if isinstance(storage, PostgresStorage):
        other: SqliteStorage | PostgresStorage = await PostgresStorage.open(storage.store.dsn)
    else:
        other = await SqliteStorage.open(storage.store.path, synchronous="NORMAL")
    try:
        store = storage.store
        chat, users = await _chat_and_users(store, 20)
        rnd = await store.open_round(new_round(chat.id))
        mine, theirs = await asyncio.gather(
            store.record_answers([answer(rnd.id, u, "A") for u in users]),
            other.store.record_answers([answer(rnd.id, u, "B") for u in users]),
        )
        for one, two in zip(mine, theirs, strict=True):
            assert {one.status, two.status} == {AnswerStatus.ACCEPTED, AnswerStatus.DUPLICATE}
            assert one.answer == two.answer
        assert await store.answer_count(rnd.id) == 20
    finally:
        await other.close()


@pytest.mark.parametrize("practice", [False, True], ids=["daily", "practice"])
async def test_one_refused_answer_in_a_batch_of_open_rounds_leaves_the_others_stored_once(storage, practice):
    """A late answer, an unknown round and the same person twice, among good answers to open
    first-answer rounds: each is told apart, the good ones are stored (and, graded on the spot,
    scored) once."""
    store = storage.store
    chat, users = await _chat_and_users(store, 4)
    kind, reveal = (
        (RoundKind.PRACTICE, RevealPolicy.PRACTICE) if practice else (RoundKind.DAILY, RevealPolicy.ROUND)
    )
    rnd = await store.open_round(new_round(chat.id, kind=kind, reveal=reveal, minutes=10))
    other = await store.open_round(new_round(chat.id, question="s-2", kind=kind, reveal=reveal))
    outcomes = await store.record_answers([
        answer(rnd.id, users[0], scored_now=practice),
        answer(rnd.id, users[1], at=T0 + timedelta(minutes=20), scored_now=practice),
        answer(other.id, users[2], scored_now=practice),
        answer(other.id + 1000, users[3], scored_now=practice),
        answer(other.id, users[2], "C", scored_now=practice),
    ])  # fmt: skip
    assert [o.status for o in outcomes] == [
        AnswerStatus.ACCEPTED, AnswerStatus.CLOSED, AnswerStatus.ACCEPTED, AnswerStatus.UNKNOWN_ROUND,
        AnswerStatus.DUPLICATE,
    ]  # fmt: skip
    assert await store.answer_count(rnd.id) == 1 and await store.answer_count(other.id) == 1
    assert (await store.user_answer(other.id, users[2])).response == "B"
    board = await store.top_scores(f"c:{chat.id}", "all", 5)
    assert sorted((r.user_id, r.answers) for r in board) == (
        [(users[0], 1), (users[2], 1)] if practice else []
    )


async def test_a_due_close_leaves_a_round_whose_timer_was_restarted_open(storage):
    """The check-then-close race: a contest's timer read its round as due, then another process
    restarted the round's timer (its question posted late), then the close ran. The closing
    statement itself checks the time, so the restarted round stays open."""
    store = storage.store
    chat, _ = await _chat_and_users(store)
    rnd = await store.open_round(new_round(chat.id, kind=RoundKind.CONTEST))
    due = await store.get_round(rnd.id)
    now = T0 + timedelta(hours=1)
    assert due.closes_at <= now  # the timer's check: due
    await store.restart_round(rnd.id, now, now + timedelta(seconds=30))  # another process, meanwhile
    assert await store.close_round(rnd.id, now, due_by=now) is False
    assert (await store.get_round(rnd.id)).state is RoundState.OPEN
    later = now + timedelta(seconds=30)
    assert await store.close_round(rnd.id, later, due_by=later) is True  # its own timer, at its time
    assert (await store.get_round(rnd.id)).state is RoundState.CLOSED
    other = await store.open_round(new_round(chat.id, question="s-2"))
    assert await store.close_round(other.id, T0, due_by=None) is True  # early (everyone answered), or a stop


async def test_a_due_close_on_postgres_waits_for_a_restart_in_flight_and_sees_it(storage, backend, pg_server):
    """PostgreSQL, two connections: the restart's transaction holds the row when the close runs;
    the close waits for it, then reads the new time (READ COMMITTED re-checks the row) and
    leaves the round open."""
    if backend != "postgres":
        pytest.skip("SQLite has one writer: a restart cannot be in flight beside the close")
    store = storage.store
    chat, _ = await _chat_and_users(store)
    rnd = await store.open_round(new_round(chat.id, kind=RoundKind.CONTEST))
    now = T0 + timedelta(hours=1)
    async with store.pool.acquire() as other, other.transaction():
        await other.execute("UPDATE rounds SET closes_at = $1 WHERE id = $2",
                            to_db(now + timedelta(seconds=30)), rnd.id)  # fmt: skip
        closing = asyncio.create_task(store.close_round(rnd.id, now, due_by=now))
        await _blocked_on_a_lock(other)  # the close waits for the row until the restart commits
        assert not closing.done()
    assert await closing is False
    assert (await store.get_round(rnd.id)).state is RoundState.OPEN


async def _blocked_on_a_lock(conn) -> None:
    """Until another backend waits for a lock (the close, behind the restart's row lock), or HANG.

    PostgreSQL announces a lock wait nowhere but in its activity view (no NOTIFY, no hook), so
    this watches the view: each look asks the server afresh (inside a transaction the view is a
    snapshot) and gives way to the loop between looks. The close blocks within milliseconds, so
    the wait ends as soon as it does; HANG only decides when a close that never blocks is given up on.
    """
    waiting = (
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
    )

    async def blocked() -> bool:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        return bool(await conn.fetchval(waiting))

    try:
        async with asyncio.timeout(HANG):
            # No asyncio.Event can stand for a server-side lock wait (see above): a look per tick.
            while not await blocked():  # noqa: ASYNC110
                await asyncio.sleep(0.005)
    except TimeoutError:
        raise AssertionError(f"the close never waited for the row in {HANG:.0f} s") from None
