"""Daily questions and deadlines under a manual clock: posting, reveal, restarts, exactly once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.messages import SubmitAnswer
from bot.quiz import QuizError
from bot.records import ChatKind, ChatRef, Platform, RoundKind, RoundState, UserRef

CHAT = ChatRef(Platform.CONSOLE, "group-1", ChatKind.GROUP)
ALICE = UserRef(Platform.CONSOLE, "a", "Alice")
BOB = UserRef(Platform.CONSOLE, "b", "Bob")
CAROL = UserRef(Platform.CONSOLE, "c", "Carol")


async def test_daily_posts_at_local_time_and_reveals_at_the_deadline(make_app, clock):
    app = await make_app()
    await app.start()
    view = await app.dailies.set_daily(CHAT, "09:30", deadline_seconds=2 * 3600)
    assert view.next_post == datetime(2026, 12, 2, 1, 30, tzinfo=UTC)  # 09:30 Shanghai
    assert await app.scheduler.advance(29 * 60) == 0
    assert await app.scheduler.advance(60) == 1
    (question,) = app.port.of("question")
    assert question.kind is RoundKind.DAILY and question.closes_at - question.opened_at == timedelta(hours=2)
    round_ = await app.store.get_round(question.round_id)
    assert round_.message_ref == f"msg-{question.round_id}" and round_.daily_date == "2026-12-02"
    answer = "B" if question.number == 1 else "A"
    for user in (ALICE, BOB, CAROL):
        receipt = await app.quiz.submit(SubmitAnswer(question.round_id, user, answer))
        assert not receipt.graded  # no correctness before the deadline
    await app.scheduler.advance(2 * 3600)
    (reveal,) = app.port.of("reveal")
    assert reveal.round_id == question.round_id and reveal.total_answers == 3 and not reveal.late
    assert (await app.store.get_round(question.round_id)).state is RoundState.CLOSED
    await app.scheduler.advance(22 * 3600)  # the next day's daily
    assert len(app.port.of("question")) == 2


async def test_overdue_round_is_closed_at_start_up_and_marked_late(make_app, clock):
    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "09:30", deadline_seconds=3600)
    await app.scheduler.advance(30 * 60)
    (question,) = app.port.of("question")
    await app.quiz.submit(SubmitAnswer(question.round_id, ALICE, "A"))
    await app.close()  # the process dies; the deadline passes while it is down
    clock.advance(timedelta(hours=3))
    app2 = await make_app()
    await app2.start()
    (reveal,) = app2.port.of("reveal")
    assert reveal.round_id == question.round_id and reveal.late and reveal.total_answers == 1
    assert app2.port.of("question") == []  # today's daily was posted already


@pytest.mark.parametrize(("late_minutes", "posted"), [(20, True), (61, False)])
async def test_missed_daily_is_posted_within_grace_exactly_once(make_app, clock, late_minutes, posted):
    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "10:00")  # 09:00 now: due in an hour
    await app.close()
    clock.advance(timedelta(hours=1, minutes=late_minutes))
    app2 = await make_app()
    await app2.start()
    assert len(app2.port.of("question")) == int(posted)
    await app2.close()
    app3 = await make_app()  # and again: never twice for one date
    await app3.start()
    assert app3.port.of("question") == []


async def test_two_processes_racing_post_one_daily(make_app, clock):
    one, two = await make_app(), await make_app()
    await one.start()
    await two.start()
    await one.dailies.set_daily(CHAT, "09:30")
    await two.dailies.set_daily(CHAT, "09:30")
    clock.advance(timedelta(minutes=30))
    await one.scheduler.run_due()
    await two.scheduler.run_due()
    assert len(one.port.of("question")) + len(two.port.of("question")) == 1


async def test_a_daily_set_after_its_time_today_is_not_missed(make_app, clock):
    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "08:00")  # already past today
    await app.close()
    app2 = await make_app()
    await app2.start()
    assert app2.port.of("question") == []


async def test_daily_off_show_and_bad_input(make_app, clock):
    app = await make_app()
    await app.start()
    assert await app.dailies.show(CHAT) is None
    await app.dailies.set_daily(CHAT, "07:15", timezone="America/New_York", weekdays=(0, 2, 4))
    shown = await app.dailies.show(CHAT)
    assert (shown.local_time, shown.timezone, shown.weekdays) == ("07:15", "America/New_York", (0, 2, 4))
    assert shown.next_post == datetime(2026, 12, 2, 12, 15, tzinfo=UTC)  # Wednesday 07:15 EST
    off = await app.dailies.disable(CHAT)
    assert not off.enabled and "daily:1" not in app.scheduler.jobs
    for kwargs in ({"local_time": "25:00"}, {"timezone": "Mars/Base"}, {"tag": "astrology"}):
        with pytest.raises(QuizError):
            await app.dailies.set_daily(CHAT, **kwargs)


async def test_dst_day_in_new_york(make_app, clock):
    clock.set(datetime(2026, 3, 7, 15, 0, tzinfo=UTC))  # Saturday, 10:00 EST
    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "09:00", timezone="America/New_York")
    await app.scheduler.advance((datetime(2026, 3, 8, 12, 59, tzinfo=UTC) - clock.now()).total_seconds())
    assert app.port.of("question") == []  # 08:59 EDT on the change day
    await app.scheduler.advance(60)
    (question,) = app.port.of("question")
    assert question.opened_at == datetime(2026, 3, 8, 13, 0, tzinfo=UTC)  # 09:00 EDT


async def test_blocked_chat_pauses_its_daily_until_they_come_back(make_app, clock):
    from bot.messages import Ask
    from bot.ports import ChatGone

    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "09:30")
    app.port.fail_with.append(ChatGone("Forbidden: bot was blocked by the user"))
    await app.scheduler.advance(30 * 60)
    assert (await app.quiz.store.get_chat(1)).paused
    await app.scheduler.advance(24 * 3600)
    assert app.port.of("question") == []  # paused: nothing posted, nothing crashed
    await app.quiz.forget_chat_cache(1)
    await app.quiz.ask(Ask(CHAT, ALICE))  # they talk to the bot again
    assert not (await app.quiz.store.get_chat(1)).paused
    await app.scheduler.advance(24 * 3600)
    assert len(app.port.of("question")) == 1


async def test_moved_chat_is_followed(make_app, clock):
    from bot.ports import ChatMoved

    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "09:30")
    app.port.fail_with.append(ChatMoved("-100999"))
    await app.scheduler.advance(30 * 60)
    chat = next(c for k, c, _ in app.port.posted if k == "question")
    assert chat.ref.chat_key == "-100999"
    assert (await app.quiz.store.get_chat(1)).ref.chat_key == "-100999"
