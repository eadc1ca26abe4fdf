"""Own rank from score buckets equals the rank counted the slow way, whatever the scores do."""

from __future__ import annotations

import random

from bot.domain.kinds import Platform, UserRef


async def test_rank_from_buckets_matches_brute_force(store):
    rng = random.Random(5)
    users = [await store.ensure_user(UserRef(Platform.CONSOLE, str(n), f"u{n}")) for n in range(60)]
    for step in range(400):
        user = rng.choice(users)
        points = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0])
        at = f"2026-12-02T00:{step // 60:02d}:{step % 60:02d}.000000+00:00"
        async with store.transaction() as db:
            await db.execute(
                "INSERT INTO scores (scope, win, user_id, points, answers, correct, reached_at) "
                "VALUES ('c:1', 'all', ?, ?, 1, 0, ?) ON CONFLICT (scope, win, user_id) DO UPDATE SET "
                "points = points + excluded.points, reached_at = CASE WHEN excluded.points > 0 "
                "THEN excluded.reached_at ELSE reached_at END",
                (user, points, at),
            )
            if step % 97 == 0:
                await db.execute("DELETE FROM scores WHERE user_id = ?", (rng.choice(users),))
    rows = await store.all("SELECT user_id, points, reached_at FROM scores WHERE scope = 'c:1'")
    expected = {
        user: rank
        for rank, (user, _, _) in enumerate(sorted(rows, key=lambda r: (-r[1], r[2], r[0])), start=1)
    }
    for user, rank in expected.items():
        mine = await store.score_of("c:1", "all", user)
        assert mine.rank == rank
    top = await store.top_scores("c:1", "all", 10)
    assert [r.user_id for r in top] == [u for u, r in sorted(expected.items(), key=lambda x: x[1])][:10]
