"""Daily questions and deadlines under a manual clock: posting, reveal, restarts, exactly once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.application.quiz import QuizError
from bot.application.requests import SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind, RoundState, UserRef

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
    assert app.dailies.next_post(1) == shown.next_post
    off = await app.dailies.disable(CHAT)
    assert not off.enabled and app.dailies.next_post(1) is None
    assert not [job for job in app.scheduler.jobs if job.startswith("daily:")]
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
    from bot.application.requests import Ask
    from bot.ports.chat import ChatGone

    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "09:30")
    app.port.fail_with.append(ChatGone("Forbidden: bot was blocked by the user"))
    await app.scheduler.advance(30 * 60)
    assert (await app.quiz.store.get_chat(1)).paused
    await app.scheduler.advance(24 * 3600)
    assert app.port.of("question") == []  # paused: nothing posted, nothing crashed
    await app.quiz.ask(Ask(CHAT, ALICE))  # they talk to the bot again
    assert not (await app.quiz.store.get_chat(1)).paused
    await app.scheduler.advance(24 * 3600)
    assert len(app.port.of("question")) == 1


async def test_moved_chat_is_followed(make_app, clock):
    from bot.ports.chat import ChatMoved

    app = await make_app()
    await app.start()
    await app.dailies.set_daily(CHAT, "09:30")
    app.port.fail_with.append(ChatMoved("-100999"))
    await app.scheduler.advance(30 * 60)
    chat = next(c for k, c, _ in app.port.posted if k == "question")
    assert chat.chat_key == "-100999"
    assert (await app.quiz.store.get_chat(1)).ref.chat_key == "-100999"


async def test_a_chat_moved_to_one_already_known_is_posted_there_and_nothing_breaks(make_app, clock):
    from bot.ports.chat import ChatMoved

    app = await make_app()
    await app.start()
    known = await app.quiz.chat(ChatRef(Platform.CONSOLE, "-100999", ChatKind.GROUP))  # seen before
    await app.dailies.set_daily(CHAT, "09:30")
    app.port.fail_with.append(ChatMoved("-100999"))
    await app.scheduler.advance(30 * 60)
    chat = next(c for k, c, _ in app.port.posted if k == "question")
    assert chat.chat_key == "-100999"
    moved = await app.quiz.chat(CHAT)
    assert moved.id != known.id and moved.ref.chat_key == CHAT.chat_key  # both records kept
    assert app.outbox.failures == 0


async def test_chats_with_the_same_daily_time_share_one_job(make_app, clock):
    app = await make_app()
    await app.start()
    chats = [ChatRef(Platform.CONSOLE, f"room-{i}", ChatKind.GROUP) for i in range(5)]
    for chat in chats[:4]:
        await app.dailies.set_daily(chat, "09:30")
    await app.dailies.set_daily(chats[4], "09:30", timezone="Europe/Berlin")  # another zone: its own job
    await app.dailies.set_daily(chats[3], "10:00")  # moves to a job of its own
    daily_jobs = sorted(job for job in app.scheduler.jobs if job.startswith("daily:"))
    assert daily_jobs == ["daily:09:30:Asia/Shanghai:0123456", "daily:09:30:Europe/Berlin:0123456",
                          "daily:10:00:Asia/Shanghai:0123456"]  # fmt: skip
    await app.dailies.disable(chats[2])
    assert await app.scheduler.advance(30 * 60) == 1  # one job posts both chats still at 09:30
    assert sorted(q.chat_id for q in app.port.of("question")) == [
        (await app.quiz.chat(chat)).id for chat in chats[:2]
    ]
    await app.scheduler.advance(30 * 60)
    assert [q.chat_id for q in app.port.of("question")][2:] == [(await app.quiz.chat(chats[3])).id]
    for chat in chats[:2]:
        await app.dailies.disable(chat)
    assert "daily:09:30:Asia/Shanghai:0123456" not in app.scheduler.jobs  # its last chat left
    assert app.dailies.scheduled_chats() == 2


async def test_one_chat_failing_does_not_stop_the_others_daily(make_app, clock, caplog):
    app = await make_app()
    await app.start()
    chats = [ChatRef(Platform.CONSOLE, f"room-{i}", ChatKind.GROUP) for i in range(3)]
    for chat in chats:
        await app.dailies.set_daily(chat, "09:30")
    broken = (await app.quiz.chat(chats[1])).id
    pick_question = app.quiz.pick_question

    async def failing(chat, **filters):
        if chat.id == broken:
            raise RuntimeError("boom")  # an unexpected failure escaping post_daily
        return await pick_question(chat, **filters)

    app.quiz.pick_question = failing
    assert await app.scheduler.advance(30 * 60) == 1
    assert len(app.port.of("question")) == 2
    assert "boom" in caplog.text
