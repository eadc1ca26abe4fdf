"""The mock exam as an exam, through the application and the real SQLite store on the shipped
bank (62 items): options shuffled per paper and kept across a restart with answers graded in the
bank's letters, a random draw when the bank has more than the paper (the same paper in bank order
with `ordered`), /mock N to jump, hand-in asking when items are blank, a compact sheet and a
one-screen report whose items open one by one, banks named as /bank list names them, and an
empty hand-in that is no result. The console's typed letters go to the mock item on screen."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import unicodedata
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.console.files import open_file
from bank.loader import load_bank
from bot.application.commands.catalog import StudyUseCase
from bot.application.commands.parsing import parse
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain import option_shuffle as shuffle
from bot.domain.clock import ManualClock
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.paper import draw, paper_of
from bot.domain.question_types import TYPES
from bot.domain.questions import Question, QuestionType
from bot.locales.i18n import LANGUAGES, t
from studybot.bootstrap import PACKAGED_BANKS, bootstrap
from studybot.config import Config
from tests.fakes.ports import ManualScheduler, RecordingPort

SHIPPED = load_bank(PACKAGED_BANKS / "ai_trainer_2025.yaml")
ME = Caller(
    ChatRef(Platform.CONSOLE, "me", ChatKind.PRIVATE), UserRef(Platform.CONSOLE, "me", "Me"), admin=True
)
ROOT = Path(__file__).resolve().parent.parent


def display_width(line: str) -> int:
    """Columns on a screen: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


UPLOADS = Path(__file__).parent / "banks" / "upload"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2025, 3, 1, 9, 0, tzinfo=UTC))


@pytest.fixture
async def make(tmp_path, clock):
    apps = []

    async def build(language: str = "zh-CN", seed: int = 7):
        cfg = Config(
            data_dir=tmp_path, default_bank=SHIPPED.id, language=language, sqlite_synchronous="NORMAL"
        )
        app = await bootstrap(cfg, clock=clock, rng=random.Random(seed), banks={SHIPPED.id: SHIPPED},
                              scheduler=ManualScheduler(clock))  # fmt: skip
        app.port = RecordingPort()
        app.add_port(app.port)
        await app.start()
        apps.append(app)
        return app

    yield build
    for app in apps:
        if app.store._db is not None:
            await app.close()


async def run(app, line: str, caller: Caller = ME) -> str:
    return render_reply(await app.application.run_text(line, caller, open_file=open_file))


async def open_mock(app):
    return await app.mocks.store.open_mock(await app.quiz.user_id(ME.user))


def shown_key(question: Question, order: str) -> str:
    seen = shuffle.shown(question, order)
    return "".join(seen.answer) if question.type is QuestionType.MULTI else seen.answer[0]


# ---------------------------------------------------------------- the paper


async def test_options_are_shuffled_per_paper_and_a_restart_shows_the_same_order(make):
    app = await make()
    first = await run(app, "/mock")
    mock = await open_mock(app)
    choice = [i for i in mock.items if TYPES[SHIPPED.question(i.question_id).type].takes_options]
    shuffled = [i for i in choice if i.order != "".join(SHIPPED.question(i.question_id).letters)]
    assert len(shuffled) > len(choice) // 2  # most choice items show their options in another order
    item = mock.items[0]
    seen = shuffle.shown(SHIPPED.question(item.question_id), item.order)
    assert all(f"{letter}. {text}" in first for letter, text in seen.options)
    await app.close()
    again = await make()
    resumed = await run(again, "/mock 1")
    assert all(f"{letter}. {text}" in resumed for letter, text in seen.options)
    # answered in the letters shown, kept and graded in the bank's
    await run(again, f"/mock 1 {shown_key(SHIPPED.question(item.question_id), item.order)}")
    assert (await again.mocks.store.answers(mock.id))[0].response == SHIPPED.question(
        item.question_id
    ).answer[0]
    report = await run(again, "/mock submit confirm")
    assert t("zh-CN", "mock.score", score="1", total="100") in report


@given(st.permutations("ABCD"), st.sets(st.sampled_from("ABCD"), min_size=1))
def test_a_shuffled_answer_maps_back_to_the_banks_letters(order, chosen):
    question = Question("q", 1, QuestionType.MULTI, "?", ("A", "C"), 2.0,
                        (("A", "a"), ("B", "b"), ("C", "c"), ("D", "d")))  # fmt: skip
    order = "".join(order)
    seen = shuffle.shown(question, order)
    response = ",".join(sorted(chosen))
    assert shuffle.to_shown(question, order, shuffle.to_bank(question, order, response)) == response
    # the right options as shown carry the right texts
    assert {seen.option_text(letter) for letter in seen.answer} == {"a", "c"}
    assert shuffle.to_bank(question, order, ",".join(seen.answer)) == "A,C"


def test_a_bank_larger_than_the_paper_draws_at_random_and_ordered_sits_it_in_bank_order():
    from bot.domain.questions import Paper, PaperSection

    paper = Paper((PaperSection(QuestionType.SINGLE, 10, 1), PaperSection(QuestionType.JUDGE, 5, 1)), 15, 9)
    bank = replace(SHIPPED, paper=paper)
    _, one = draw(bank, paper, random.Random(1))
    _, two = draw(bank, paper, random.Random(2))
    assert {i.question_id for i in one} != {i.question_id for i in two}
    _, ordered = draw(bank, paper, random.Random(1), ordered=True)
    singles = [
        q.id for q in sorted(SHIPPED.questions, key=lambda q: q.number) if q.type is QuestionType.SINGLE
    ]
    assert [i.question_id for i in ordered[:10]] == singles[:10] and all(i.order == "" for i in ordered)
    _, again = draw(bank, paper, random.Random(2), ordered=True)
    assert again == ordered  # the same paper, whatever the draw
    # a paper as large as the bank: every item, in random order, in both
    full = paper_of(SHIPPED)
    _, shuffled = draw(SHIPPED, full, random.Random(5))
    assert [i.question_id for i in shuffled] != [i.question_id for i in draw(SHIPPED, full, random.Random(5),
                                                                               ordered=True)[1]]  # fmt: skip


async def test_mock_start_ordered_gives_the_bank_order_with_options_as_written(make):
    app = await make()
    text = await run(app, "/mock start 顺序")
    first = sorted((q for q in SHIPPED.questions if q.type is QuestionType.SINGLE), key=lambda q: q.number)[0]
    assert first.stem in text and all(f"{letter}. {body}" in text for letter, body in first.options)


# ---------------------------------------------------------------- sitting it


def test_the_new_arguments_are_in_the_catalog():
    assert parse("/mock 6").command.name == "mock answer" and parse("/mock 6").args == {"number": 6}
    assert parse("/mock 6 B").args == {"number": 6, "response": "B"}
    assert parse("/mock start ordered").args == {"order": "ordered"}
    assert parse("/mock start paper3").args == {"bank": "paper3"}
    assert parse("/mock start 顺序 paper3").args == {"order": "ordered", "bank": "paper3"}
    assert parse("/mock submit confirm").args == {"confirm": "confirm"}
    assert parse("/模拟考试 交卷 确认").args == {"confirm": "confirm"}
    assert parse("/mock review 3").command.use_case is StudyUseCase.MOCK_REVIEW


async def test_mock_n_jumps_and_saving_is_not_a_tick(make):
    app = await make()
    await run(app, "/mock")
    mock = await open_mock(app)
    sixth = SHIPPED.question(mock.items[5].question_id)
    shown = await run(app, "/mock 6")
    qtype = t("zh-CN", f"type.{sixth.type}")
    header = t("zh-CN", "mock.question_header", number=6, count=62, qtype=qtype, points="1", left="1:30:00")
    assert shown.startswith(header)
    assert sixth.stem in shown
    kept = await run(app, "/mock 6 A")
    assert "✅" not in kept.splitlines()[0] and kept.startswith(t("zh-CN", "mock.kept", number=6))
    for language in LANGUAGES:
        assert "✅" not in t(language, "mock.kept", number=1)


async def test_hand_in_asks_when_items_are_blank(make):
    app = await make()
    await run(app, "/mock")
    mock = await open_mock(app)
    for number, item in enumerate(mock.items[:7], 1):
        await run(app, f"/mock {number} {shown_key(SHIPPED.question(item.question_id), item.order)}")
    asked = await run(app, "/mock submit")
    assert asked.splitlines()[0] == t("zh-CN", "mock.confirm_title", count=55, total=62)
    assert "8–62" in asked and len(asked.splitlines()) <= 4
    assert await open_mock(app) is not None  # not handed in
    report = await run(app, "/mock 交卷 确认")
    lines = report.splitlines()
    assert len(lines) <= 10, report  # one screen, not ~200 lines
    assert lines[0] == t("zh-CN", "mock.score", score="7", total="100")
    assert t("zh-CN", "mock.failed", pass_mark="60") in report
    assert t("zh-CN", "mock.time_used", minutes=0, seconds=0) in report
    assert t("zh-CN", "mock.blank_numbers", count=55, numbers="8–62") in report


async def test_the_sheet_fits_a_phone_screen(make):
    app = await make()
    await run(app, "/mock")
    for number in (1, 2, 3, 9, 31, 33, 50):
        await run(app, f"/mock {number} 对" if 41 <= number <= 50 else f"/mock {number} A")
    await run(app, "/mock flag 12")
    sheet = await run(app, "/mock sheet")
    lines = sheet.splitlines()
    assert len(lines) <= 16 and max(display_width(line) for line in lines) <= 46, sheet
    assert t("zh-CN", "mock.sheet_blank", numbers="4–8、10–30、32、34–49、51–62") in sheet
    assert t("zh-CN", "mock.sheet_flagged", numbers="12") in sheet


async def test_a_wrong_item_opens_with_its_option_texts_and_the_right_one(make):
    app = await make()
    await run(app, "/mock")
    mock = await open_mock(app)
    item = mock.items[0]
    question = SHIPPED.question(item.question_id)
    seen = shuffle.shown(question, item.order)
    wrong = next(letter for letter in seen.letters if letter not in seen.answer)
    await run(app, f"/mock 1 {wrong}")
    await run(app, "/mock submit confirm")
    opened = await run(app, "/mock review 1")
    right = seen.answer[0]
    assert all(f"{letter}. {text}" in opened for letter, text in seen.options)
    assert t("zh-CN", "mock.right_answer", answer=f"{right}（{seen.option_text(right)}）") in opened
    assert t("zh-CN", "mock.your_answer", answer=wrong) in opened
    assert t("zh-CN", "mock.review_next", number=2) in opened


async def test_an_empty_hand_in_is_no_result(make):
    app = await make()
    await run(app, "/mock")
    assert (await run(app, "/mock submit confirm")) == t("zh-CN", "mock.empty_hand_in")
    user_id = await app.quiz.user_id(ME.user)
    assert await app.mocks.store.history(user_id, 5) == []
    assert "0 / 100" not in await run(app, "/stats")
    assert await run(app, "/mock report") == t("zh-CN", "mock.no_report")


async def test_a_blank_paper_whose_time_ran_out_is_no_result_either(make, clock):
    from datetime import timedelta

    app = await make()
    await run(app, "/mock")
    clock.advance(timedelta(minutes=91))
    assert await run(app, "/mock 1 A") == t("zh-CN", "mock.time_up_empty")
    assert await app.mocks.store.history(await app.quiz.user_id(ME.user), 5) == []


async def test_banks_are_named_as_bank_list_names_them(make, tmp_path):
    app = await make()
    paper = tmp_path / "paper3.csv"
    shutil.copy(UPLOADS / "physics.csv", paper)
    await run(app, f"/bank import {paper}")
    await run(app, "/bank confirm")
    await run(app, f"/bank use {SHIPPED.id}")
    assert "paper3" in await run(app, "/bank list")
    started = await run(app, "/mock start paper3")
    assert "Which unit measures force?" in started or "Light travels" in started, started
    mock = await open_mock(app)
    assert mock.bank_id.endswith("paper3") and mock.bank_id != "paper3"
    await run(app, "/mock quit")
    refused = await run(app, "/mock start nope")
    assert refused == t("zh-CN", "error.unknown_bank", bank="nope", banks=f"{SHIPPED.id}, paper3")


# ---------------------------------------------------------------- the console


def test_a_letter_typed_in_the_console_answers_the_mock_not_an_earlier_question(tmp_path):
    script = "/quiz single\n/mock\nC\n/mock sheet\n/quit\n"
    result = subprocess.run(
        [sys.executable, "-m", "studybot"], input=script, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "STUDYBOT_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
    )  # fmt: skip
    out = result.stdout
    assert result.returncode == 0, result.stderr
    for graded in ("✅ 正确", "❌ 错误", "解析"):  # no practice receipt, no explanation shown
        assert graded not in out, out
    assert "答题卡：已答 1/62" in out
    assert t("zh-CN", "mock.kept", number=1) in out
