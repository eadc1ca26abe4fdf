"""Practice modes, review reminders, typed answers to an open mock and the ☆ click, on the real
SQLite store through the application layer (what a text platform shows)."""

from __future__ import annotations

import pytest

from bot.answering import TextReply
from bot.application import Application, Caller
from bot.clicks import Act, Click
from bot.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.messages import QuestionView, SubmitAnswer
from bot.reply_text import render_reply
from bot.study.reminders import reminder_job

PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
GROUP = ChatRef(Platform.CONSOLE, "-20", ChatKind.GROUP, title="group")
ANN = UserRef(Platform.CONSOLE, "10", "Ann")
ME = Caller(PRIVATE, ANN)


@pytest.fixture
async def app(make_app):
    built = await make_app()
    built.app_layer = Application(built.quiz, built.dailies, built.contests, study=built.study)
    return built


async def ask(app, line: str, caller: Caller = ME):
    return await app.app_layer.run_text(line, caller)


async def test_a_question_by_its_number_and_a_clear_refusal_past_the_end(app):
    view = (await ask(app, "/quiz 3")).view
    assert isinstance(view, QuestionView) and view.number == 3
    assert render_reply(await ask(app, "/quiz 52")) == "There is no question 52 in this bank (it has 5)."
    assert "bad" in render_reply(await ask(app, "/quiz 0")).lower()


async def test_sequential_practice_remembers_the_position_across_a_restart(app, make_app, clock):
    numbers = []
    for _ in range(2):
        view = (await ask(app, "/quiz next")).view
        numbers.append(view.number)
        clock.advance(60)
    await app.close()
    again = await make_app()
    again.app_layer = Application(again.quiz, again.dailies, again.contests, study=again.study)
    for _ in range(4):
        view = (await ask(again, "/quiz next")).view
        numbers.append(view.number)
        clock.advance(60)
    assert numbers == [1, 2, 3, 4, 5, 1]
    # In order within a type too: the multiple-choice questions only.
    assert (await ask(again, "/quiz 顺序 multi")).view.number == 2


async def test_several_tags_by_words_or_commas(app, clock):
    seen = set()
    for line in ("/quiz math physics", "/quiz tag=math,physics", "/quiz judge math physics") * 3:
        view = (await ask(app, line)).view
        assert isinstance(view, QuestionView), line
        seen.add(view.number)
        clock.advance(60)
    assert seen <= {1, 2, 3} and 3 in seen
    assert render_reply(await ask(app, "/quiz nope other")) == "No question has the tag nope, other."


async def test_memorise_mode_shows_the_answer_at_once_and_records_nothing(app):
    for line in ("/quiz memorise 1", "/memorise 1", "/背题 1"):
        text = render_reply(await ask(app, line))
        assert text.startswith("Memorise mode — nothing is recorded.")
        assert "2+2=?" in text and "B. 4" in text and "Answer: B" in text and "Explanation: 2+2 is 4." in text
    assert await app.store.last_round((await app.quiz.chat(PRIVATE)).id) is None


async def test_review_reminder_posts_the_number_due_and_survives_a_restart(app, make_app, clock):
    assert "private chat only" in render_reply(await ask(app, "/review remind on", Caller(GROUP, ANN)))
    view = (await ask(app, "/quiz 1")).view
    await app.quiz.submit(SubmitAnswer(view.round_id, ANN, "A"))
    await app.quiz.flush()
    on = render_reply(await ask(app, "/review remind on 09:30"))
    assert on == "Daily review reminder on: 09:30 (Asia/Shanghai), here in this private chat."
    await app.close()
    again = await make_app()
    await again.start()
    assert reminder_job(await again.quiz.user_id(ANN)) in again.scheduler.jobs
    await again.scheduler.advance(24 * 3600)
    told = again.port.of("notice")
    assert told and told[-1].key == "review.reminder" and dict(told[-1].params)["count"] == 1
    again.app_layer = Application(again.quiz, again.dailies, again.contests, study=again.study)
    assert render_reply(await ask(again, "/review remind off")) == "Daily review reminder off."
    assert reminder_job(await again.quiz.user_id(ANN)) not in again.scheduler.jobs


async def test_a_plain_typed_answer_goes_to_the_open_mock(app, clock):
    await ask(app, "/mock")
    typed = await app.app_layer.answering.typed(PRIVATE, ANN, "B")
    assert isinstance(typed, TextReply)
    sheet = render_reply(await ask(app, "/mock sheet"))
    assert "1/5" in sheet or "answered 1" in sheet.lower(), sheet
    # A question asked after the mock began takes the typed text instead.
    clock.advance(5)
    view = (await ask(app, "/quiz 3")).view
    taken = await app.app_layer.answering.typed(PRIVATE, ANN, "true")
    assert not isinstance(taken, TextReply) and view.number == 3


async def test_the_star_click_favourites_the_rounds_question_for_the_clicker(app):
    view = (await ask(app, "/quiz 2")).view
    await app.app_layer.question_posted(view.round_id, "m-1")
    click = Click(view.round_id, Platform.CONSOLE, "10", "m-1", Act.FAVOURITE, None, "fav", None)
    reply = await app.app_layer.answering.click(click, ANN, PRIVATE)
    assert isinstance(reply, TextReply) and reply.text == "⭐ Question 2 starred"
    assert "1 starred question" in render_reply(await ask(app, "/favorites"))
    forged = Click(view.round_id, Platform.CONSOLE, "-20", "m-1", Act.FAVOURITE, None, "fav", None)
    assert (await app.app_layer.answering.click(forged, ANN, GROUP)).closed
