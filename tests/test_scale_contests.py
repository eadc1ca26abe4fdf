"""A contest with two processes on one PostgreSQL database (two apps, each with its own hand-driven
scheduler, standing in for two processes): a process starting while another runs the contest
changes nothing the players see; when the contest's process dies, the other's sweep takes each
next step once; and a late timer in the first process does not step again."""

from __future__ import annotations

from datetime import timedelta

from tests.contract.conftest import fresh_database, pg_server  # noqa: F401  (fixture)
from tests.pg_server import PgServer
from tests.test_contests import ALICE, CHAT, bank, current_question, play  # noqa: F401  (fixture)


async def test_the_other_process_takes_the_contests_steps_once_when_its_process_dies(
    make_app,
    clock,
    pg_server: PgServer,  # noqa: F811
) -> None:
    dsn = await fresh_database(pg_server)
    first = await make_app(database_url=dsn)
    await first.start()
    await first.contests.start(CHAT, 3, 20)
    asked = current_question(first)
    await play(first, clock, [(2, ALICE, True)])

    second = await make_app(database_url=dsn)
    await second.start()  # the contest runs on in the first: nothing asked again, no timer restarted
    assert second.port.of("question") == []
    round_ = await second.store.get_round(asked.round_id)
    assert round_ is not None and round_.closes_at == asked.closes_at

    # The first process dies (its timers never fire); the second's sweep closes the question.
    clock.set(asked.closes_at + timedelta(seconds=3))
    await second._sweep_due()
    [reveal] = second.port.of("reveal")
    assert reveal.round_id == asked.round_id
    [standings] = second.port.of("standings")
    assert [(r.name, r.points) for r in standings.rows] == [("Alice", 950)]
    # ... and after the pause asks the next question, once.
    clock.advance(first.config.contest.pause_seconds + 3)
    await second._sweep_due()
    await second._sweep_due()
    [next_question] = second.port.of("question")
    assert next_question.number != asked.number or next_question.round_id != asked.round_id
    assert current_question(second).round_id == next_question.round_id

    # The first one's timer for the closed question fires late: it does nothing a second time.
    await first.scheduler.run_due()
    assert first.port.of("reveal") == [] and len(first.port.of("question")) == 1
    assert len(second.port.of("reveal")) == 1 and len(second.port.of("question")) == 1
