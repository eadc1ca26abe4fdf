"""Contract: the leaderboard read model — windows, ranks with ties, streaks, totals, mistakes."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.domain.kinds import RevealPolicy, RoundKind
from tests.contract.helpers import SETTINGS, T0, answer, chat_ref, new_round, user_ref


async def test_scores_count_when_the_round_closes_in_every_window_and_scope(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1", guild="g1"), SETTINGS)
    a, b, c = await store.ensure_users([user_ref("a"), user_ref("b"), user_ref("c")])
    rnd = await store.open_round(new_round(chat.id))
    await store.record_answers([
        answer(rnd.id, b, at=T0 + timedelta(minutes=2), points=2.0),
        answer(rnd.id, a, at=T0 + timedelta(minutes=1), points=2.0),
        answer(rnd.id, c, "A", right=False),
    ])  # fmt: skip
    assert await store.top_scores(f"c:{chat.id}", "all", 10) == []  # counted at the close
    await store.close_round(rnd.id, T0 + timedelta(hours=1))
    for scope in (f"c:{chat.id}", "g:discord:g1"):
        for window in ("all", "2026-W49", "2026-12"):
            board = await store.top_scores(scope, window, 10)
            assert [(r.user_id, r.points, r.rank) for r in board] == [(a, 2.0, 1), (b, 2.0, 2), (c, 0.0, 3)]
    assert (await store.score_of(f"c:{chat.id}", "all", b)).rank == 2
    assert (await store.score_of(f"c:{chat.id}", "2026-W49", c)).rank == 3
    assert await store.score_of(f"c:{chat.id}", "2026-W50", a) is None
    best = await store.top_scores(f"c:{chat.id}", "all", 1)
    assert best == (await store.top_scores(f"c:{chat.id}", "all", 3))[:1]
    totals = await store.totals(chat.id, c)
    assert (totals.answers, totals.correct, totals.points) == (1, 0, 0.0)
    assert await store.recent_mistakes(chat.id, c, 5) == ["s-1"]


async def test_practice_answers_score_at_once(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    (a,) = await store.ensure_users([user_ref("a")])
    rnd = await store.open_round(new_round(chat.id, kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE))
    await store.record_answers([answer(rnd.id, a, points=3.0, scored_now=True)])
    row = await store.score_of(f"c:{chat.id}", "all", a)
    assert (row.points, row.answers, row.correct, row.rank) == (3.0, 1, 1, 1)


async def test_practice_answers_of_one_user_in_one_batch_all_score(storage):
    """One group commit may hold several of a user's practice answers (two questions in one chat,
    two channels of one server): each counts once in every scope and window it touches."""
    store = storage.store
    one = await store.ensure_chat(chat_ref("c1", guild="g1"), SETTINGS)
    two = await store.ensure_chat(chat_ref("c2", guild="g1"), SETTINGS)
    a, b = await store.ensure_users([user_ref("a"), user_ref("b")])
    practice = {"kind": RoundKind.PRACTICE, "reveal": RevealPolicy.PRACTICE}
    first = await store.open_round(new_round(one.id, question="s-1", **practice))
    second = await store.open_round(new_round(one.id, question="s-2", **practice))
    third = await store.open_round(new_round(two.id, question="s-3", **practice))
    outcomes = await store.record_answers([
        answer(first.id, a, at=T0 + timedelta(minutes=1), points=2.0, scored_now=True),
        answer(second.id, a, "A", at=T0 + timedelta(minutes=2), right=False, scored_now=True),
        answer(third.id, a, at=T0 + timedelta(minutes=3), points=1.0, scored_now=True),
        answer(first.id, b, at=T0 + timedelta(minutes=4), points=2.0, scored_now=True),
    ])  # fmt: skip
    assert [str(o.status) for o in outcomes] == ["accepted"] * 4
    row = await store.score_of(f"c:{one.id}", "all", a)
    assert (row.points, row.answers, row.correct, row.rank) == (2.0, 2, 1, 1)
    row = await store.score_of("g:discord:g1", "2026-W49", a)
    assert (row.points, row.answers, row.correct, row.rank) == (3.0, 3, 2, 1)
    row = await store.score_of("g:discord:g1", "all", b)
    assert (row.points, row.answers, row.correct, row.rank) == (2.0, 1, 1, 2)
    assert [(r.user_id, r.points) for r in await store.top_scores(f"c:{two.id}", "2026-12", 5)] == [(a, 1.0)]


async def test_streaks_run_over_consecutive_dailies_and_reset(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    a, b = await store.ensure_users([user_ref("a"), user_ref("b")])
    for day in range(3):
        opened = T0 + timedelta(days=day)
        rnd = await store.open_round(new_round(chat.id, opened=opened, daily_date=f"2026-12-0{2 + day}"))
        b_right = day != 1
        await store.record_answers([
            answer(rnd.id, a, at=opened + timedelta(minutes=1)),
            answer(rnd.id, b, at=opened + timedelta(minutes=2), right=b_right),
        ])  # fmt: skip
        await store.close_round(rnd.id, opened + timedelta(hours=1))
    streak_a, streak_b = await store.streak(chat.id, a), await store.streak(chat.id, b)
    assert (streak_a.current, streak_a.best, streak_a.last_date) == (3, 3, "2026-12-04")
    assert (streak_b.current, streak_b.best) == (1, 1)
    assert await store.top_streaks(chat.id, rnd.id, 5) == [("user a", 3)]
    nobody = await store.streak(chat.id, a + b + 100)
    assert (nobody.current, nobody.best, nobody.last_date) == (0, 0, None)


async def test_ranks_from_buckets_match_a_full_sort(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), replace(SETTINGS))
    users = await store.ensure_users([user_ref(f"u{i}") for i in range(12)])
    for question in range(4):
        rnd = await store.open_round(new_round(chat.id, question=f"s-{question}"))
        await store.record_answers([
            answer(rnd.id, u, at=T0 + timedelta(seconds=i), right=(i + question) % 3 != 0, points=1.0 + i % 2)
            for i, u in enumerate(users)
        ])  # fmt: skip
        await store.close_round(rnd.id, T0 + timedelta(hours=1))
    board = await store.top_scores(f"c:{chat.id}", "all", 100)
    for row in board:
        assert (await store.score_of(f"c:{chat.id}", "all", row.user_id)).rank == row.rank
