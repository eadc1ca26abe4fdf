"""FSRS that learns the learner (bot/application/study/memory_fit.py): a learner's own parameters are fitted
once their history reaches the threshold and then schedule their next review and give /ready's
retrievability; the weekly fit fires on the real scheduler (APScheduler, the real optimizer in its
child process); `/review retention` is read totally, every refusal a catalog sentence."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.application.app import Application
from bot.application.commands.catalog import RETENTION
from bot.application.commands.parsing import parse
from bot.application.quiz_settings import QuizError
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.application.study.memory_fit import (
    FIT_JOB,
    MIN_REVIEWS,
    RETENTION_HIGH,
    RETENTION_LOW,
    LearnerFitting,
    parse_retention,
)
from bot.domain.clock import SystemClock
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.readiness import retrievability
from bot.domain.records import DailySchedule
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import LearnerMemory, Outcome, StudyAnswer
from bot.locales.i18n import LANGUAGES, keys
from studybot.bootstrap import bootstrap
from studybot.config import Config
from tests.contract.helpers import answer, new_round
from tests.fakes.ports import ManualScheduler

PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
ANN = UserRef(Platform.CONSOLE, "10", "Ann")
ME = Caller(PRIVATE, ANN)
QUESTIONS = tuple(f"q-{n}" for n in range(1, 121))  # the history's; q-121 is new after the fit


@pytest.fixture
def bank() -> Bank:
    """A bank of 121 single-choice items (a history of hundreds of answers spreads over many)."""
    items = tuple(
        Question(f"q-{n}", n, QuestionType.SINGLE, f"item {n}", ("B",), options=(("A", "a"), ("B", "b")))
        for n in range(1, 122)
    )
    return Bank("sample", "Sample bank", "zh-CN", "tests", items)


def forgetful_history(count: int, end: datetime, seed: int = 7) -> list[tuple[str, datetime, bool]]:
    """`count` answers ending before `end` by a learner who forgets within about three days (FSRS's
    defaults expect a right answer to hold for longer): each question comes back after 1 to 20
    days, and is right when it came back within three (and now and then by luck). A new question
    every 8 hours, a first answer right half the time."""
    rng = random.Random(seed)
    out: list[tuple[str, datetime, bool]] = []
    start = end - timedelta(days=200)
    due = {q: start + timedelta(hours=8 * i) for i, q in enumerate(QUESTIONS)}
    gap: dict[str, int] = {}
    while len(out) < count:
        qid = min(due, key=due.__getitem__)
        right = rng.random() < 0.5 if qid not in gap else gap[qid] <= 3 or rng.random() < 0.1
        out.append((qid, due[qid], right))
        gap[qid] = rng.randint(1, 20)
        due[qid] += timedelta(days=gap[qid])
    assert out[-1][1] < end
    return out


async def seed(app, history: list[tuple[str, datetime, bool]]) -> int:
    """The answers, each in a closed round of its own in the learner's private chat."""
    chat = await app.quiz.chat(PRIVATE)
    user_id = await app.quiz.user_id(ANN)
    batch = []
    for qid, at, right in history:
        opened = at - timedelta(seconds=20)
        round_ = await app.store.open_round(new_round(chat.id, question=qid, opened=opened, minutes=1))
        batch.append(answer(round_.id, user_id, "B", at=at, right=right))
    await app.store.record_answers(batch)
    return user_id


async def test_the_fit_is_used_once_the_history_passes_the_threshold(make_app, clock):
    app = await make_app()
    app.app_layer = Application(app.quiz, app.dailies, app.contests, study=app.study)
    assert app.fitting is not None and app.fitting.optimizer is not None  # fsrs-rs-python installed
    history = forgetful_history(MIN_REVIEWS, clock.now())
    user_id = await seed(app, history[:-1])
    await app.feed.catch_up()
    assert await app.fitting.refit() == 0  # one answer short: the defaults stay
    assert await app.storage.memory.memories([user_id]) == {}
    shown = render_reply(await app.app_layer.run_text("/review retention", ME))
    assert shown == (
        "Desired retention: 90% (change it with /review retention 0.85).\n"
        f"Your memory model: FSRS's defaults until you have {MIN_REVIEWS} answers "
        f"(you have {MIN_REVIEWS - 1}); from then on it is fitted on your own answers every week."
    )

    await seed(app, history[-1:])
    await app.feed.catch_up()
    clock.advance(timedelta(days=7))  # next week's fit
    assert await app.fitting.refit() == 1
    memory = (await app.storage.memory.memories([user_id]))[user_id]
    assert memory.parameters is not None and memory.fitted_reviews == MIN_REVIEWS
    assert memory.parameters != tuple(SpacedRepetition().scheduler(None).parameters)
    shown = render_reply(await app.app_layer.run_text("/review retention", ME))
    assert shown.endswith(
        f"Your memory model: fitted on your own {MIN_REVIEWS} answers on {clock.now().date()}, "
        "fitted again every week."
    )

    # A new question after the fit, right the first time and again three days later: its next
    # interval is the learner's own, shorter than the defaults' (they forget faster).
    key = (user_id, "sample", "q-121")
    answers = [("q-121", clock.now() - timedelta(days=3), True), ("q-121", clock.now(), True)]
    await seed(app, answers)
    await app.feed.catch_up()
    after = (await app.study.store.cards([key]))[key]
    spaced = SpacedRepetition(slow_seconds=app.config.study.slow_seconds)
    own = with_defaults = None
    for qid, at, _ in answers:
        new = StudyAnswer(user_id, "sample", qid, Outcome.RIGHT, at, 20.0)
        own, with_defaults = spaced.review(own, new, memory), spaced.review(with_defaults, new)
    assert own is not None and with_defaults is not None
    assert after.due == own.due
    assert after.due - after.last_review < with_defaults.due - with_defaults.last_review

    # /ready's retrievability uses them too.
    seen = await app.study.drill.evidence(user_id, app.quiz.bank_for(await app.quiz.chat(PRIVATE)))
    assert seen.parameters == memory.parameters
    later = clock.now() + timedelta(days=5)
    assert retrievability(after, later, seen.parameters) != retrievability(after, later)


async def test_the_retention_a_learner_sets_schedules_their_reviews(make_app, clock):
    app = await make_app()
    app.app_layer = Application(app.quiz, app.dailies, app.contests, study=app.study)
    said = render_reply(await app.app_layer.run_text("/review retention 85%", ME))
    assert said == (
        "Desired retention set to 85%: your next reviews are scheduled for it "
        "(cards already scheduled keep their date)."
    )
    user_id = await app.quiz.user_id(ANN)
    assert (await app.storage.memory.memories([user_id]))[user_id].desired_retention == 0.85
    said = render_reply(await app.app_layer.run_text("/复习 保持率 ０.８", ME))  # full-width, by its aliases
    assert said.startswith("Desired retention set to 80%")
    assert (await app.storage.memory.memories([user_id]))[user_id].desired_retention == 0.8
    refused = render_reply(await app.app_layer.run_text("/review retention 0.5", ME))
    assert "70% to 97%" in refused
    # A lower retention: the same right answers come back later.
    history = [("q-1", clock.now() - timedelta(days=d), True) for d in (30, 26, 15)]
    await seed(app, history)
    await app.feed.catch_up()
    card = (await app.study.store.cards([(user_id, "sample", "q-1")]))[(user_id, "sample", "q-1")]
    spaced = SpacedRepetition(slow_seconds=app.config.study.slow_seconds)
    at_90 = None
    for qid, at, _ in history:
        at_90 = spaced.review(at_90, StudyAnswer(user_id, "sample", qid, Outcome.RIGHT, at))
    assert card.due > at_90.due


async def test_without_the_optimizer_the_defaults_stay_and_the_log_says_so_once(store, clock, caplog):
    scheduler = ManualScheduler(clock)
    fitting = LearnerFitting(None, None, scheduler, clock, store)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="studybot.study"):
        fitting.schedule()
    said = [r.getMessage() for r in caplog.records if r.name == "studybot.study"]
    assert said == ["FSRS optimizer fsrs-rs-python not installed: all learners keep the default parameters"]
    assert FIT_JOB not in scheduler.jobs
    assert await fitting.refit() == 0


async def test_the_weekly_fit_is_a_monday_job_on_the_scheduler(make_app):
    app = await make_app()
    await app.start()
    run = app.scheduler.jobs[FIT_JOB].when
    assert (run.weekday(), run.hour, run.minute) == (0, 3, 30) and run.tzinfo is not None


async def test_the_weekly_fit_fires_on_the_real_scheduler(tmp_path, bank):
    config = Config(data_dir=tmp_path, default_bank="sample", language="en", sqlite_synchronous="NORMAL")
    app = await bootstrap(config, clock=SystemClock(), rng=random.Random(3), banks={bank.id: bank})
    try:
        now = datetime.now(UTC)
        user_id = await seed(app, forgetful_history(60, now))
        assert app.fitting is not None
        app.fitting.min_reviews = 60
        fire_at = now.replace(microsecond=0) + timedelta(seconds=3)
        weekday = (fire_at.weekday(),)
        app.fitting.when = DailySchedule(0, fire_at.strftime("%H:%M:%S"), "UTC", 0, weekdays=weekday)
        fitted = asyncio.Event()
        refit = app.fitting.refit

        async def refit_and_tell() -> int:  # what the scheduler's job calls, seen from here
            count = await refit()
            fitted.set()
            return count

        app.fitting.refit = refit_and_tell  # type: ignore[method-assign]
        await app.start()
        assert app.scheduler.next_run(FIT_JOB) == fire_at
        async with asyncio.timeout(60):  # the fit runs in a child process started on the first fit
            await fitted.wait()
        memory = (await app.storage.memory.memories([user_id]))[user_id]
        assert memory.parameters is not None and memory.fitted_reviews == 60
    finally:
        await app.close()


# ---------------------------------------------------------------- the retention argument


CATALOG_KEYS = frozenset(keys())


@given(st.text(max_size=40) | st.from_regex(r"[0-9０-９.,%％ \t]{0,9}", fullmatch=True))
@example("0.85")
@example("85%")
@example("８５％")
@example("0,9")
@example("1")
@example("NaN")
@example("1e-1")
@example("97.0001%")
@example("")
def test_any_retention_is_taken_or_refused_with_a_catalog_sentence(text):
    try:
        value = parse_retention(str(RETENTION.read(text)))
    except QuizError as refusal:
        assert refusal.key in CATALOG_KEYS
        for language in LANGUAGES:
            sentence = refusal.render(language)
            assert sentence and refusal.key not in sentence
    else:
        assert RETENTION_LOW <= value <= RETENTION_HIGH


@given(st.text(max_size=40))
def test_any_line_after_review_retention_is_taken_or_refused_with_a_catalog_sentence(rest):
    """The whole line as a text platform reads it: the parser, then the use case's reading."""
    try:
        parsed = parse(f"/review retention {rest}")
        raw = parsed.args.get("retention")
        value = parse_retention(str(raw)) if raw is not None else None
    except QuizError as refusal:
        assert refusal.key in CATALOG_KEYS
        for language in LANGUAGES:
            assert refusal.render(language).strip()
    else:
        assert parsed.command.name == "review retention"
        assert value is None or RETENTION_LOW <= value <= RETENTION_HIGH


def test_retentions_as_people_write_them():
    assert [parse_retention(s) for s in ("0.85", "85%", "８５％", "85", "0,9", " 0.7 ", "97%")] == [
        0.85, 0.85, 0.85, 0.85, 0.9, 0.7, 0.97,
    ]  # fmt: skip
    for bad, key in (("0.5", "review.retention_range"), ("1", "review.retention_range"),
                     ("99%", "review.retention_range"), ("abc", "review.retention_bad"),
                     ("NaN", "review.retention_bad"), ("0.8.5", "review.retention_bad")):  # fmt: skip
        try:
            parse_retention(bad)
        except QuizError as refusal:
            assert refusal.key == key, bad
        else:
            raise AssertionError(bad)
    refusal = QuizError("review.retention_range", low=70, high=97)
    assert refusal.render("zh-CN").startswith("期望记忆保持率只能在 70%–97% 之间")
    assert refusal.render("zh-TW").startswith("期望記憶保持率只能在 70%–97% 之間")


def test_a_learner_memory_is_a_plain_record():
    memory = LearnerMemory(1)
    assert (memory.desired_retention, memory.parameters, memory.fitted_reviews) == (0.9, None, 0)


def test_a_chinese_console_sets_and_shows_the_retention_in_chinese_only(tmp_path):
    """The console as a real process, in zh-CN: the retention shown, refused, set, shown again."""
    from bot.locales.check import english_runs
    from tests.test_console_languages import console

    script = "/review retention\n/review retention 0.5\n/review retention 八五\n"
    script += "/复习 保持率 85%\n/review retention\n"
    out = console(tmp_path, "zh-CN", script)
    for shown in (
        "期望记忆保持率：90%（用 /review 保持率 0.85 修改）。",
        f"记忆参数：默认值，满 {MIN_REVIEWS} 次作答后（你已作答 0 次）每周按你自己的作答拟合。",
        "期望记忆保持率只能在 70%–97% 之间",
        "期望记忆保持率应为 70%–97% 之间的比例或百分比，例如 0.85 或 85%。",
        "期望记忆保持率已设为 85%：之后的复习按它安排（已排定的卡片日期不变）。",
        "期望记忆保持率：85%（用 /review 保持率 0.85 修改）。",
    ):
        assert shown in out, shown
    assert english_runs(out) == []


def test_a_history_of_same_day_reviews_is_refused_not_a_panic():
    """fsrs-rs panics (a BaseException) on items with no review a day after another: such cards
    are left out, and a history of nothing else is a ValueError the weekly job logs and skips."""
    from adapters.optimizer.fsrs_rs import fit_parameters

    try:
        fit_parameters([[(3, 0), (3, 0), (1, 0)], [(3, 0), (2, 0)]])
    except ValueError as refusal:
        assert "nothing to fit" in str(refusal)
    else:
        raise AssertionError("fitted on same-day reviews")
    mixed = [[(3, 0), (3, 0)], *([(3, 0), (3, d), (1, 2 * d)] for d in range(1, 30))]
    assert len(fit_parameters(mixed)) == 21
