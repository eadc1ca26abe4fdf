"""Contract: the study data (cards, notebook, favourites) and the answers they are fed from."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.application.study.feed import StudyFeed
from bot.domain.kinds import AnswerPolicy, RevealPolicy, RoundKind
from bot.domain.records import NewAnswer
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Card, Outcome, Reminder
from tests.contract.helpers import SETTINGS, T0, answer, chat_ref, new_round, user_ref


async def test_final_answers_feed_cards_and_the_notebook_once(storage):
    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await store.ensure_users([user_ref("me")])
    practice = await store.open_round(
        new_round(chat.id, kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE)
    )
    changeable = await store.open_round(new_round(chat.id, question="s-3", policy=AnswerPolicy.CHANGEABLE))
    await store.record_answers([
        answer(practice.id, me, "A", right=False, at=T0 + timedelta(seconds=8)),
        answer(changeable.id, me, "true"),
    ])  # fmt: skip
    found = await study.unstudied(10)
    assert [(a.question_id, a.outcome, a.seconds) for _, a in found] == [("s-1", Outcome.WRONG, 8.0)]
    feed = StudyFeed(study, SpacedRepetition())
    assert await feed.catch_up() == 1
    assert await feed.catch_up() == 0
    await store.close_round(changeable.id, T0 + timedelta(hours=1))
    assert await feed.catch_up() == 1
    assert [m.question_id for m in await study.notebook(me, "sample")] == ["s-1"]
    cards = await study.cards([(me, "sample", "s-1"), (me, "sample", "s-3"), (me, "sample", "nope")])
    assert sorted(k[2] for k in cards) == ["s-1", "s-3"]
    assert list(await study.mistakes([(me, "sample", "s-1")])) == [(me, "sample", "s-1")]
    later = T0 + timedelta(days=60)
    due = await study.due_cards(me, "sample", later, 10)
    assert sorted(c.question_id for c in due) == ["s-1", "s-3"]
    assert await study.next_due(me, "sample") == min(c.due for c in due)
    assert await study.due_counts(me, "sample", [T0 - timedelta(days=1), later]) == [0, 2]
    assert await study.next_due(me + 1, "sample") is None


async def test_a_second_feeder_of_the_same_answers_stores_nothing(storage):
    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await store.ensure_users([user_ref("me")])
    rnd = await store.open_round(new_round(chat.id, kind=RoundKind.PRACTICE, reveal=RevealPolicy.PRACTICE))
    await store.record_answers([answer(rnd.id, me, "A", right=False)])
    ((answer_id, _),) = await study.unstudied(10)
    assert await study.save_study([answer_id], [], []) is True
    assert await study.save_study([answer_id], [], []) is False
    assert await study.unstudied(10) == []


async def test_favourites_are_added_once_and_removed(storage):
    study = storage.study
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    assert chat.id
    (me,) = await storage.store.ensure_users([user_ref("me")])
    assert await study.set_favourite(me, "sample", "s-2", True, T0) is True
    assert await study.set_favourite(me, "sample", "s-2", True, T0 + timedelta(minutes=1)) is False
    assert await study.set_favourite(me, "sample", "s-1", True, T0 + timedelta(minutes=2)) is True
    assert await study.favourites(me, "sample") == ["s-2", "s-1"]
    assert await study.set_favourite(me, "sample", "s-2", False, T0) is True
    assert await study.set_favourite(me, "sample", "s-2", False, T0) is False
    assert await study.favourites(me, "sample") == ["s-1"]


async def test_answered_counts_right_and_final_answers_per_question(storage):
    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    elsewhere = await store.ensure_chat(chat_ref("c2"), SETTINGS)
    me, you = await store.ensure_users([user_ref("me"), user_ref("you")])
    one = await store.open_round(new_round(chat.id, question="s-1"))
    two = await store.open_round(new_round(chat.id, question="s-1", opened=T0 + timedelta(days=1)))
    three = await store.open_round(new_round(chat.id, question="s-2"))
    away = await store.open_round(new_round(elsewhere.id, question="s-2"))
    await store.record_answers([
        answer(one.id, me), answer(two.id, me, "A", right=False), answer(three.id, me),
        answer(one.id, you, "A", right=False), answer(away.id, you),
    ])  # fmt: skip
    assert await study.answered(me, "sample") == {"s-1": (1, 2), "s-2": (1, 1)}
    assert await study.answered(you, "sample") == {"s-1": (0, 1), "s-2": (1, 1)}
    assert await study.answered(None, "sample", chat.id) == {"s-1": (1, 3), "s-2": (1, 1)}
    assert await study.answered(me, "other") == {}


async def test_answers_by_day_counts_final_and_right_answers_between_day_starts(storage):
    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await store.ensure_users([user_ref("me")])
    # Days starting at 16:00 UTC (midnight in Shanghai): 15:59 UTC is the day before, 16:00 the day.
    day = T0.replace(hour=16)
    times = [day - timedelta(days=2), day - timedelta(minutes=1), day, day + timedelta(hours=7, minutes=59),
             day + timedelta(hours=23, minutes=59), day + timedelta(days=1)]  # fmt: skip
    for i, when in enumerate(times):
        opened = when - timedelta(minutes=1)
        rnd = await store.open_round(new_round(chat.id, question=f"s-{i}", opened=opened))
        await store.record_answers([answer(rnd.id, me, at=when, right=i % 2 == 0)])
    pending = await store.open_round(new_round(chat.id, question="s-9", opened=day))
    await store.record_answers([
        NewAnswer(pending.id, me, "why", day + timedelta(hours=1), "pending", 0.0, 0.0, "2026-W49", "2026-12")
    ])  # fmt: skip
    starts = [day - timedelta(days=1), day, day + timedelta(days=1)]
    assert await study.answers_by_day(me, starts) == [(1, 0), (3, 2)]  # the pending answer is not final
    assert await study.answers_by_day(me + 1, starts) == [(0, 0), (0, 0)]
    assert await study.answers_by_day(me, starts[:1]) == []


async def test_due_by_day_counts_in_today_every_card_due_before_tomorrow(storage):
    study = storage.study
    await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await storage.store.ensure_users([user_ref("me")])
    today = T0.replace(hour=16)  # the chat's day starts at 16:00 UTC
    days = [today + timedelta(days=k) for k in range(4)]

    def card(question: str, due: timedelta, reviewed: timedelta | None) -> Card:
        last = today + reviewed if reviewed is not None else None
        return Card(me, "sample", question, 2, None, 3.0, 5.0, today + due, last, 1, 0)

    await study.save_study([], [
        card("overdue", -timedelta(days=3), -timedelta(days=5)),  # due before today: due today
        card("later-today", timedelta(hours=20), -timedelta(days=2)),
        card("done-today", timedelta(hours=2), timedelta(hours=1)),  # reviewed today, back later today
        card("tomorrow", timedelta(days=1), None),
        card("done-today-due-tomorrow", timedelta(days=1, hours=3), timedelta(minutes=5)),
        card("day-after", timedelta(days=2, hours=23, minutes=59), -timedelta(days=1)),
        card("too-late", timedelta(days=3), -timedelta(days=1)),
    ], [])  # fmt: skip
    assert await study.due_by_day(me, "sample", days) == [3, 2, 1]
    assert await study.due_by_day(me, "other", days) == [0, 0, 0]
    assert await study.due_by_day(me, "sample", days[:1]) == []


async def test_practice_positions_and_review_reminders_are_kept_per_person(storage):
    study = storage.study
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    me, you = await storage.store.ensure_users([user_ref("me"), user_ref("you")])
    assert await study.practice_position(me, "sample") == 0
    await study.set_practice_position(me, "sample", 7)
    await study.set_practice_position(me, "sample", 8)
    await study.set_practice_position(you, "sample", 2)
    assert await study.practice_position(me, "sample") == 8
    assert await study.practice_position(me, "other") == 0
    await study.set_reminder(Reminder(me, chat.id, "08:00", "Asia/Shanghai"), me)
    await study.set_reminder(Reminder(me, chat.id, "21:30", "Asia/Shanghai"), me)
    await study.set_reminder(Reminder(you, chat.id, "07:00", "UTC"), you)
    assert await study.reminders() == [
        Reminder(me, chat.id, "21:30", "Asia/Shanghai"),
        Reminder(you, chat.id, "07:00", "UTC"),
    ]
    await study.set_reminder(None, you)
    assert [r.user_id for r in await study.reminders()] == [me]
    assert await study.due_count(me, "sample", T0) == 0


async def test_practice_runs_items_tallies_and_served_pools(storage):
    """The drilling loop's storage: one open run per person and chat (a new one ends it), the
    rounds a run asked and its tally from their answers, the served items of a random pool, and
    the latest practice answer awaiting a self-grade."""
    from dataclasses import replace

    from bot.domain.study_records import PracticeRun

    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    other = await store.ensure_chat(chat_ref("c2"), SETTINGS)
    me, you = await store.ensure_users([user_ref("me"), user_ref("you")])
    assert await study.latest_run(me, chat.id) is None
    spec = PracticeRun(0, me, chat.id, "sample", "random", "single", ("ml", "cv"), T0)
    first = await study.start_run(spec)
    assert first.id and (await study.latest_run(me, chat.id)) == first
    assert first.tags == ("ml", "cv") and first.ended_at is None
    assert await study.latest_run(me, other.id) is None and await study.latest_run(you, chat.id) is None

    rounds = [
        await store.open_round(new_round(chat.id, question=q, kind=RoundKind.PRACTICE,
                                         reveal=RevealPolicy.PRACTICE, opened=T0 + timedelta(minutes=i)))
        for i, q in enumerate(("s-1", "s-2", "s-3"))
    ]  # fmt: skip
    for rnd, in_notebook in zip(rounds, (False, True, False), strict=True):
        await study.add_run_item(first.id, rnd.id, rnd.question_id, in_notebook)
    await study.add_run_item(first.id, rounds[0].id, "s-1", False)  # twice: kept once
    assert await study.run_questions(first.id) == {"s-1", "s-2", "s-3"}
    await store.record_answers([
        answer(rounds[0].id, me, "A", right=False, at=T0 + timedelta(minutes=2)),
        answer(rounds[1].id, me, "A", right=False, at=T0 + timedelta(minutes=3)),  # in the notebook already
        answer(rounds[2].id, me, "true", right=True, at=T0 + timedelta(minutes=7)),
        answer(rounds[2].id, you, "true", right=True),  # someone else's: not the run's
    ])  # fmt: skip
    tally = await study.run_tally(first.id)
    assert (tally.answered, tally.right, tally.new_mistakes) == (3, 1, 1)
    assert tally.first_at == T0 + timedelta(minutes=2) and tally.last_at == T0 + timedelta(minutes=7)

    second = await study.start_run(replace(spec, mode="sequential", qtype=None, tags=(),
                                           started_at=T0 + timedelta(hours=1)))  # fmt: skip
    assert (await study.latest_run(me, chat.id)) == second and second.id != first.id
    assert await study.end_run(first.id, T0) is False  # ended when the second started
    assert await study.end_run(second.id, T0 + timedelta(hours=2)) is True
    assert await study.end_run(second.id, T0 + timedelta(hours=3)) is False
    ended = await study.latest_run(me, chat.id)
    assert ended is not None and ended.ended_at == T0 + timedelta(hours=2)
    assert (await study.run_tally(second.id)).answered == 0

    assert await study.seen(me, "sample", "single|*") == set()
    await study.mark_seen(me, "sample", "single|*", "s-1")
    await study.mark_seen(me, "sample", "single|*", "s-1")
    await study.mark_seen(me, "sample", "*|*", "s-2")
    assert await study.seen(me, "sample", "single|*") == {"s-1"}
    await study.clear_seen(me, "sample", "single|*")
    assert await study.seen(me, "sample", "single|*") == set()
    assert await study.seen(me, "sample", "*|*") == {"s-2"}

    assert await study.pending_self_grade(me, chat.id) is None
    short = await store.open_round(new_round(chat.id, question="s-5", kind=RoundKind.PRACTICE,
                                             reveal=RevealPolicy.PRACTICE))  # fmt: skip
    pending = answer(short.id, me, "because", at=T0 + timedelta(minutes=9))
    await store.record_answers([replace(pending, verdict="pending", fraction=0.0, points=0.0)])
    assert await study.pending_self_grade(me, chat.id) == short.id
    assert await study.pending_self_grade(me, other.id) is None
    assert await store.self_grade(short.id, me, "partial", 0.5, 5.0)
    assert await study.pending_self_grade(me, chat.id) is None


async def test_two_runs_started_at_once_leave_one_open(storage):
    import asyncio

    from bot.domain.study_records import PracticeRun

    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await storage.store.ensure_users([user_ref("me")])
    spec = PracticeRun(0, me, chat.id, "sample", "random", None, (), T0)
    runs = await asyncio.gather(*(storage.study.start_run(spec) for _ in range(4)))
    latest = await storage.study.latest_run(me, chat.id)
    assert latest is not None and latest.ended_at is None and latest.id in {r.id for r in runs}


async def test_grades_are_each_final_answers_share_oldest_first(storage):
    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    me, you = await store.ensure_users([user_ref("me"), user_ref("you")])
    one = await store.open_round(new_round(chat.id, question="s-1"))
    two = await store.open_round(new_round(chat.id, question="s-1", opened=T0 + timedelta(days=1)))
    three = await store.open_round(new_round(chat.id, question="s-2"))
    await store.record_answers([
        answer(two.id, me, at=T0 + timedelta(days=1, minutes=1)), answer(one.id, me, "A", right=False),
        answer(three.id, me), answer(one.id, you),
    ])  # fmt: skip
    assert await study.grades(me, "sample") == {"s-1": [0.0, 1.0], "s-2": [1.0]}  # the miss came first
    assert await study.grades(you, "sample") == {"s-1": [1.0]}
    assert await study.grades(me, "other") == {}


async def test_ungraded_answers_are_the_responses_awaiting_a_self_grade(storage):
    store, study = storage.store, storage.study
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    me, you = await store.ensure_users([user_ref("me"), user_ref("you")])
    one = await store.open_round(new_round(chat.id, question="s-5"))
    two = await store.open_round(new_round(chat.id, question="s-5", opened=T0 + timedelta(days=1)))
    later = T0 + timedelta(days=1, minutes=1)
    pending = [
        replace(answer(r.id, me, text, at=at), verdict="pending", fraction=0.5, points=0.0)
        for r, text, at in ((two, "later", later), (one, "first", T0))
    ]
    await store.record_answers([*pending, answer(one.id, you)])
    assert await study.ungraded(me, "sample") == {"s-5": ["first", "later"]}
    assert await study.ungraded(you, "sample") == {}  # graded
    assert await study.grades(me, "sample") == {}  # nothing final yet
    assert await store.self_grade(one.id, me, "correct", 1.0, 5.0)
    assert await study.ungraded(me, "sample") == {"s-5": ["later"]}


async def test_a_mistakes_cause_is_kept_per_person_and_replaced(storage):
    study = storage.study
    await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    me, you = await storage.store.ensure_users([user_ref("me"), user_ref("you")])
    await study.set_mistake_cause(me, "sample", "s-1", "careless", T0)
    await study.set_mistake_cause(me, "sample", "s-2", "concept", T0)
    await study.set_mistake_cause(you, "sample", "s-1", "unseen", T0)
    await study.set_mistake_cause(me, "sample", "s-1", "misremembered", T0 + timedelta(hours=1))
    assert await study.mistake_causes(me, "sample") == {"s-1": "misremembered", "s-2": "concept"}
    assert await study.mistake_causes(you, "sample") == {"s-1": "unseen"}
    assert await study.mistake_causes(me, "other") == {}
