"""Practice modes, review reminders, typed answers to an open mock and the ☆ click, on the real
SQLite store through the application layer (what a text platform shows)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.application.answering import NextReply, ReceiptReply, TextReply
from bot.application.app import Application
from bot.application.clicks import Act, Click
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, SubmitAnswer
from bot.application.study.reminders import reminder_job
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind, UserRef
from bot.locales.i18n import t
from bot.views.quiz import QuestionView

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
    outside = "Question {} is not in this bank: its questions are 1–5."
    assert render_reply(await ask(app, "/quiz 52")) == outside.format(52)
    assert render_reply(await ask(app, "/quiz 0")) == outside.format(0)  # no 1–9999 of the parser


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
        assert text.endswith(
            "\n\nAnother: /memorise again (with a type or tag if you like); a given one: /memorise N"
        )
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


# ---------------------------------------------------------------- the drilling loop


async def typed(app, text: str, chat: ChatRef = PRIVATE):
    return await app.app_layer.answering.typed(chat, ANN, text)


async def test_quiz_n_moves_the_sequential_place_and_shows_it(app, clock):
    view = (await ask(app, "/quiz 2")).view
    assert view.place == (2, 5) and "· 2 / 5" in render_reply(await ask(app, "/quiz 2"))
    after = (await ask(app, "/quiz next")).view
    assert isinstance(after, QuestionView) and after.number == 3 and after.place == (3, 5)


async def test_next_asks_in_the_runs_mode_and_random_never_repeats_before_the_pool_is_used_up(
    app, make_app, clock
):
    first = (await ask(app, "/quiz")).view
    numbers = [first.number]
    for word in ("n", "next", "下一题"):  # typed "next", in any language: never an answer
        reply = await typed(app, word)
        assert isinstance(reply, NextReply) and isinstance(reply.reply.view, QuestionView)
        assert reply.reply.view.lead.startswith(f"⏭ Skipped question {numbers[-1]} ")
        numbers.append(reply.reply.view.number)
        clock.advance(5)
    assert await app.store.round_answers(first.round_id) == []
    await app.close()  # the served items and the run survive a restart
    again = await make_app()
    again.app_layer = Application(again.quiz, again.dailies, again.contests, study=again.study)
    last = await again.app_layer.answering.typed(PRIVATE, ANN, "")  # an empty line is "next" too
    assert isinstance(last, NextReply) and isinstance(last.reply.view, QuestionView)
    numbers.append(last.reply.view.number)
    assert sorted(numbers) == [1, 2, 3, 4, 5]  # each once
    done = await again.app_layer.answering.typed(PRIVATE, ANN, "n")  # the pool is used up
    assert isinstance(done, NextReply)
    text = render_reply(done.reply)
    # the question left unanswered is told with its answer, above the summary
    skipped = text.split("\n\n")[0]
    assert skipped.startswith(f"⏭ Skipped question {numbers[-1]} (not graded, not a mistake). Answer: ")
    assert "📋 Practice summary · random" in text and "every question of this set" in text
    restarted = await again.app_layer.answering.typed(PRIVATE, ANN, "n")  # a new pass begins
    assert isinstance(restarted, NextReply) and isinstance(restarted.reply.view, QuestionView)


async def test_a_run_of_a_type_keeps_to_it_and_mistakes_are_asked_once_each(app, clock):
    view = (await ask(app, "/quiz 单选")).view
    assert view.number == 1
    done = await typed(app, "n")  # the one single-choice item: the run is finished
    assert isinstance(done, NextReply) and "focused · Single choice" in render_reply(done.reply)
    for number, response in ((1, "A"), (2, "A"), (3, "true")):
        asked = (await ask(app, f"/quiz {number}")).view
        await app.quiz.submit(SubmitAnswer(asked.round_id, ANN, response))
        clock.advance(5)
    practice = (await ask(app, "/mistakes practice")).view
    assert practice.number in (1, 2)
    following = await typed(app, "n")
    assert isinstance(following, NextReply) and {practice.number, following.reply.view.number} == {1, 2}
    summary = await typed(app, "n")
    assert isinstance(summary, NextReply) and render_reply(summary.reply).startswith(
        f"⏭ Skipped question {following.reply.view.number} "  # left unanswered: its answer first
    )
    assert "\n\n📋 Practice summary · mistakes\n" in render_reply(summary.reply)


async def test_quiz_stop_gives_the_one_screen_summary(app, clock):
    assert render_reply(await ask(app, "/quiz stop")) == t("en", "drill.no_run")
    one = (await ask(app, "/quiz 1")).view
    clock.advance(30)
    await app.quiz.submit(SubmitAnswer(one.round_id, ANN, "A"))  # wrong: a new mistake
    two = (await typed(app, "n")).reply.view
    clock.advance(95)
    await app.quiz.submit(SubmitAnswer(two.round_id, ANN, "A,B,D"))  # right
    summary = render_reply(await ask(app, "/quiz stop"))
    assert summary.splitlines() == [
        "📋 Practice summary · in order",
        "Answered 2 · right 1 (50%)",
        "1 new mistake",
        "Time: 2 min 5 s",
        t("en", "drill.summary_how"),
    ]
    assert render_reply(await ask(app, "/quiz stop")) == t("en", "drill.no_run")


async def test_text_that_is_no_answer_is_not_graded(app, clock):
    view = (await ask(app, "/quiz 4")).view  # fill-in: any text would be read as an answer
    skipped = await typed(app, "下一题")
    assert isinstance(skipped, NextReply)
    assert await app.store.round_answers(view.round_id) == []
    judge = (await ask(app, "/quiz 3")).view
    graded = await typed(app, "true")
    assert isinstance(graded, ReceiptReply) and graded.offers_next
    chat = await typed(app, "nice, thanks")  # after the grade: chit-chat, not a second answer
    assert isinstance(chat, TextReply) and chat.text == t("en", "drill.answered_hint")
    [stored] = await app.store.round_answers(judge.round_id)
    assert stored.response == "true"


async def test_self_grading_takes_its_words_and_says_them_and_survives_a_review_between(app, clock):
    await ask(app, "/quiz 5")  # a short answer
    pending = await typed(app, "It relates tokens.")
    assert isinstance(pending, ReceiptReply) and pending.awaits_self_grade
    vague = await typed(app, "so-so I guess")
    assert isinstance(vague, TextReply)
    words = "Got it all / Partly / Missed it"
    assert vague.text == f"Grade yourself against the reference: reply {words} (or 1 / 2 / 3)."
    assert "Because it relates tokens." not in vague.text  # no second copy of the reference
    # a question asked in between does not take the self-grade word as its answer
    between = (await ask(app, "/quiz 4")).view
    graded = await typed(app, "Missed it")
    assert isinstance(graded, ReceiptReply) and graded.receipt.status == "self_graded"
    assert await app.store.round_answers(between.round_id) == []
    # the traditional-character words in a zh-TW chat
    await ask(app, "/lang zh-TW")
    await ask(app, "/quiz 5")
    await typed(app, "它關聯詞元")
    hint = await typed(app, "還行吧")
    assert isinstance(hint, TextReply) and "全對 / 部分 / 不會" in hint.text
    done = await typed(app, "全對")
    assert isinstance(done, ReceiptReply) and done.receipt.verdict == "correct"


async def test_no_matching_items_names_the_filter_in_the_chats_language(app):
    await ask(app, "/lang zh-CN")
    zh = render_reply(await ask(app, "/quiz multi nosuch"))
    assert zh == "题库中没有符合条件的题目（nosuch / 多选题）。"
    await ask(app, "/lang en")
    en = render_reply(await ask(app, "/quiz multi nosuch"))
    assert en == "No questions in the bank match nosuch / Multiple choice."


async def test_the_next_click_is_admitted_only_from_a_practice_rounds_chat(app, clock):
    view = (await ask(app, "/quiz 1")).view
    click = Click(view.round_id, Platform.CONSOLE, "10", "receipt-1", Act.NEXT, None, "n1", None)
    reply = await app.app_layer.answering.click(click, ANN, PRIVATE)
    assert isinstance(reply, NextReply) and reply.reply.view.number == 2
    # pressed again (a Discord receipt keeps its button): question 2 is named, none skipped
    twice = await app.app_layer.answering.click(click, ANN, PRIVATE)
    assert isinstance(twice, NextReply)
    assert render_reply(twice.reply) == t("en", "drill.already_next", number=2)
    assert (await app.store.last_round((await app.quiz.chat(PRIVATE)).id)).id == reply.reply.view.round_id
    forged = Click(view.round_id, Platform.CONSOLE, "-20", "receipt-1", Act.NEXT, None, "n1", None)
    assert (await app.app_layer.answering.click(forged, ANN, GROUP)).closed
    chat = await app.quiz.chat(PRIVATE)
    now = clock.now()
    daily = await app.quiz.open_round(chat, app.quiz.bank_for(chat).questions[0], RoundKind.DAILY, now,
                                      now + timedelta(hours=1))  # fmt: skip
    not_practice = Click(daily.id, Platform.CONSOLE, "10", "receipt-2", Act.NEXT, None, "n1", None)
    assert (await app.app_layer.answering.click(not_practice, ANN, PRIVATE)).closed
