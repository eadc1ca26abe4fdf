"""Contests under a manual clock: Kahoot scoring, early close, standings, stop, restart and resume."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.application.quiz import QuizError
from bot.application.requests import SubmitAnswer
from bot.domain.kahoot import PlayerState, answer_points, score_question, streak_bonus
from bot.domain.kinds import ChatKind, ChatRef, Platform, RoundKind, UserRef
from bot.domain.questions import Bank, Question, QuestionType

CHAT = ChatRef(Platform.CONSOLE, "contest-room", ChatKind.GROUP)
ALICE, BOB, CAROL = (
    UserRef(Platform.CONSOLE, k, n) for k, n in (("a", "Alice"), ("b", "Bob"), ("c", "Carol"))
)


@pytest.fixture
def bank() -> Bank:
    letters = (("A", "one"), ("B", "two"), ("C", "three"), ("D", "four"))
    questions = (
        *(
            Question(
                f"c-{i}",
                i,
                QuestionType.SINGLE,
                f"Question {i}?",
                ("ABCD"[i % 4],),
                1.0,
                letters,
                f"Because {i}.",
            )
            for i in range(1, 8)
        ),
        Question("c-fill", 8, QuestionType.FILL, "Fill?", ("x",), 1.0),
    )
    return Bank("sample", "Contest bank", "en", "tests", questions)


@pytest.mark.parametrize(
    ("elapsed", "points"), [(0, 1000), (3, 950), (15, 750), (30, 500), (40, 500), (-2, 1000), (0.3, 995)]
)
def test_kahoot_points(elapsed, points):
    assert answer_points(elapsed, 30) == points


def test_streak_bonus_and_reset():
    assert [streak_bonus(n) for n in range(1, 9)] == [0, 100, 200, 300, 400, 500, 500, 500]
    state = PlayerState()
    for correct in (True, True, False, True):
        state = score_question(state, answered=True, correct=correct, elapsed=0, timer=30)
    assert (state.points, state.correct, state.answered, state.streak) == (3100, 3, 4, 1)
    missed = score_question(state, answered=False, correct=False, elapsed=0, timer=30)
    assert (missed.points, missed.answered, missed.streak) == (3100, 4, 0)


def current_question(app):
    return app.port.of("question")[-1]


async def play(app, clock, answers: list[tuple[float, UserRef, bool]]) -> None:
    """Answer the current question at the given seconds after it opened (right or wrong)."""
    view = current_question(app)
    correct = app.banks["sample"].question(f"c-{view.number}").answer[0]
    wrong = "A" if correct != "A" else "B"
    for at, user, right in sorted(answers, key=lambda a: a[0]):
        clock.set(view.opened_at + timedelta(seconds=at))
        await app.quiz.submit(SubmitAnswer(view.round_id, user, correct if right else wrong))
        await app.quiz.flush()


async def next_step(app) -> None:
    """Move the clock to the next scheduled job and run it (a close, or the next question)."""
    when = min(j.when for j in app.scheduler.jobs.values() if j.when is not None)
    app.scheduler.clock.set(max(when, app.scheduler.clock.now()))
    await app.scheduler.run_due()


async def until_next_question_or_end(app) -> None:
    count = len(app.port.of("question"))
    while (await app.contests.status(CHAT)).running and len(app.port.of("question")) == count:
        await next_step(app)


async def test_five_questions_three_players_score_as_the_formula_says(make_app, clock):
    app = await make_app()
    await app.start()
    status = await app.contests.start(CHAT, 5, 30)
    assert (status.running, status.position, status.total, status.seconds) == (True, 1, 5, 30)
    assert app.port.of("notice")[0].key == "contest.started"
    script = [
        [(3, ALICE, True), (15, BOB, True), (0, CAROL, True)],
        [(3, ALICE, True), (15, BOB, True)],  # Carol misses: the timer runs out
        [(3, ALICE, True), (15, BOB, False), (6, CAROL, True)],
        [(3, ALICE, True), (15, BOB, True), (6, CAROL, True)],
        [(3, ALICE, True), (15, BOB, True), (6, CAROL, False)],
    ]
    for question in script:
        assert current_question(app).kind is RoundKind.CONTEST
        await play(app, clock, question)
        await until_next_question_or_end(app)
    alice = 5 * 950 + (100 + 200 + 300 + 400)
    bob = 750 + (750 + 100) + 0 + 750 + (750 + 100)
    carol = 1000 + 0 + 900 + (900 + 100) + 0
    final = app.port.of("standings")[-1]
    assert final.final and not final.stopped and final.position == 5
    assert [(r.name, r.points, r.correct) for r in final.rows] == [
        ("Alice", alice, 5), ("Bob", bob, 4), ("Carol", carol, 3),
    ]  # fmt: skip
    assert len(app.port.of("reveal")) == 5
    after_q1 = app.port.of("standings")[0]
    assert [r.name for r in after_q1.rows] == ["Carol", "Alice", "Bob"]
    after_q2 = app.port.of("standings")[1]
    assert [(r.name, r.moved_up) for r in after_q2.rows][:2] == [("Alice", 1), ("Bob", 1)]
    assert not (await app.contests.status(CHAT)).running


async def test_questions_close_early_once_every_player_answered(make_app, clock):
    app = await make_app()
    await app.start()
    await app.contests.start(CHAT, 2, 30)
    await play(app, clock, [(1, ALICE, True), (2, BOB, True)])
    await until_next_question_or_end(app)  # the first question runs its timer: nobody has joined yet
    second = current_question(app)
    await play(app, clock, [(1, ALICE, True), (2, BOB, False)])
    final = app.port.of("standings")[-1]
    assert final.final and clock.now() == second.opened_at + timedelta(seconds=2)


async def test_a_newcomer_does_not_close_a_question_a_joined_player_has_not_answered(make_app, clock):
    app = await make_app()
    await app.start()
    await app.contests.start(CHAT, 3, 30)
    await play(app, clock, [(1, ALICE, True), (2, BOB, True)])
    await until_next_question_or_end(app)
    second = current_question(app)
    await play(app, clock, [(1, ALICE, True), (2, CAROL, True)])  # Carol joins now; Bob is still out
    assert current_question(app) == second and len(app.port.of("standings")) == 1
    await play(app, clock, [(4, ALICE, False), (5, BOB, True)])  # Alice's second click counts once
    assert len(app.port.of("standings")) == 2 and clock.now() == second.opened_at + timedelta(seconds=5)
    await until_next_question_or_end(app)
    third = current_question(app)
    await play(app, clock, [(1, ALICE, True), (2, BOB, True)])
    assert len(app.port.of("standings")) == 2  # Carol joined at the second question: waited for
    await play(app, clock, [(3, CAROL, False)])
    final = app.port.of("standings")[-1]
    assert final.final and clock.now() == third.opened_at + timedelta(seconds=3)


async def test_stop_posts_results_and_one_contest_per_chat(make_app, clock):
    app = await make_app()
    await app.start()
    await app.contests.start(CHAT, 4, 20)
    with pytest.raises(QuizError) as err:
        await app.contests.start(CHAT, 2, 20)
    assert err.value.key == "contest.already_running"
    await play(app, clock, [(2, ALICE, True)])
    assert await app.contests.stop(CHAT)
    final = app.port.of("standings")[-1]
    assert final.final and final.stopped and final.position == 1
    assert [(r.name, r.points) for r in final.rows] == [("Alice", 950)]
    assert not await app.contests.stop(CHAT)
    periodic = {"sweep:practice", "outbox:age", "cluster:beat", "cluster:due", "cluster:forget",
                "fsrs-fit"}  # the weekly fit of each learner's FSRS parameters
    assert app.scheduler.jobs.keys() <= periodic


async def test_typed_items_are_left_out_unless_asked(make_app, clock):
    app = await make_app()
    await app.start()
    await app.contests.start(CHAT, 8, 10)
    assert (await app.contests.status(CHAT)).total == 7  # the fill item is not in


async def test_contest_interrupted_by_a_restart_resumes_and_finishes(make_app, clock):
    app = await make_app()
    await app.start()
    await app.contests.start(CHAT, 3, 30)
    await play(app, clock, [(3, ALICE, True), (15, BOB, True)])
    await until_next_question_or_end(app)
    second = current_question(app)
    await play(app, clock, [(3, ALICE, True)])
    await app.close()  # killed mid-question
    clock.advance(120)

    app2 = await make_app()
    await app2.start()
    resumed = current_question(app2)
    assert resumed.round_id == second.round_id and resumed.contest_position == (2, 3)
    assert resumed.closes_at == clock.now() + timedelta(seconds=30)  # the timer starts again
    assert resumed.replaces == f"msg-{second.round_id}"  # the copy posted before: its buttons go
    await play(app2, clock, [(15, BOB, True)])  # Alice's earlier answer still counts
    await until_next_question_or_end(app2)
    await play(app2, clock, [(3, ALICE, False), (6, BOB, True)])
    await until_next_question_or_end(app2)
    final = app2.port.of("standings")[-1]
    assert final.final and final.position == 3
    # Alice answered Q2 before the restart: clamped to the start of the restarted timer (1000).
    alice = 950 + (1000 + 100) + 0
    bob = 750 + (750 + 100) + (900 + 200)
    assert {r.name: r.points for r in final.rows} == {"Alice": alice, "Bob": bob}


async def test_a_question_that_can_never_be_posted_is_given_up_said_and_the_contest_moves_on(
    make_app, clock, caplog
):
    """The platform fails on the first question every time (not flood control: that ends): the
    outbox gives up after a bound instead of retrying it for ever (which stalled the contest at
    it), logs it once, the chat is told the question was skipped, and the contest goes on."""
    import logging

    from bot.application.outbox import QUESTION_ATTEMPTS
    from tests.fakes.ports import RecordingPort

    class FailsOnTheFirstQuestion(RecordingPort):
        tries = 0
        failing: int | None = None  # the first question's round

        async def post_question(self, chat, view) -> str:
            self.failing = self.failing or view.round_id
            if view.round_id == self.failing:
                self.tries += 1
                raise ConnectionError("502 Bad Gateway")
            return await super().post_question(chat, view)

    caplog.set_level(logging.INFO)
    app = await make_app()
    app.port = FailsOnTheFirstQuestion()
    app.outbox.ports.clear()
    app.add_port(app.port)
    app.outbox.base_delay = 0.001  # the backoff, shortened: the bound is in attempts
    await app.start()
    await app.contests.start(CHAT, 2, 30)
    skipped = await app.port.wait_for("notice", 2)
    assert [n.key for n in skipped] == ["contest.started", "contest.question_skipped"]
    assert skipped[1].param_dict() == {"number": 1}
    assert app.port.tries == QUESTION_ATTEMPTS
    standings = await app.port.wait_for("standings", 1)
    assert standings[0].position == 1 and not app.port.of("reveal")  # no reveal of a question never seen
    await next_step(app)  # the pause: then the second question
    [second] = await app.port.wait_for("question", 1)
    assert second.round_id != app.port.failing
    await until_next_question_or_end(app)
    assert app.port.of("standings")[-1].final
    given_up = [r for r in caplog.records if "given up" in r.getMessage()]
    assert len(given_up) == 1 and given_up[0].levelno == logging.ERROR and given_up[0].exc_info is None
    said = given_up[0].getMessage()
    assert "502 Bad Gateway" in said and f"after {QUESTION_ATTEMPTS} attempts" in said
