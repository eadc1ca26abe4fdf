"""Doubtful bank items (`doubt:` in docs/bank-format.md): the learner reads the note at the
reveal in every language, `bank check` lists them as notes, and the shipped bank's explanations
of items 2 and 15 agree with their keys."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from bank.check import default_bank_path, run_check
from bank.compiled import load_bank_report_cached
from bank.loader import load_bank, load_bank_text_report
from bank.yaml_io import dump_bank
from bot.application.app import Application
from bot.application.reply_text import render_reply
from bot.application.requests import Caller, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.views.quiz_text import render_receipt
from tests.conftest import make_bank
from tests.test_console import run_console

PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
ME = Caller(PRIVATE, UserRef(Platform.CONSOLE, "10", "Ann"))
NOTE = "选项B与D都说得通"
SHIPPED_DOUBTS = [2, 11, 17, 20, 23, 26, 28, 35, 46, 55]


@pytest.fixture
def bank():
    sample = make_bank()
    first = replace(sample.questions[0], doubt=NOTE)
    return replace(sample, questions=(first, *sample.questions[1:]))


@pytest.mark.parametrize(("language", "said"), [
    ("en", f"This item's answer is doubtful: {NOTE}"),
    ("zh-CN", f"此题答案存疑：{NOTE}"),
    ("zh-TW", "此題答案存疑：選項B與D都說得通"),
])  # fmt: skip
async def test_the_practice_reveal_and_the_memorise_card_show_the_note(make_app, language, said):
    app = await make_app(language=language)
    layer = Application(app.quiz, app.dailies, app.contests, study=app.study)
    view = (await layer.run_text("/quiz 1", ME)).view
    receipt = render_receipt(await app.quiz.submit(SubmitAnswer(view.round_id, ME.user, "B")))
    assert said in receipt and receipt.index(said) > receipt.index("4")  # after the explanation
    assert said in render_reply(await layer.run_text("/memorise 1", ME))
    # An item nobody doubts has no note.
    await layer.run_text("/quiz 3", ME)
    other = render_reply(await layer.run_text("/memorise 3", ME))
    assert "doubtful" not in other and "存疑" not in other


def test_the_console_shows_the_shipped_item_2_note_at_the_reveal(tmp_path):
    result = run_console(tmp_path, "/quiz 2\nD\n/quiz 1\nC\n/quit\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("此题答案存疑：") == 1
    assert "此题答案存疑：梯度长期接近零时" in out


@pytest.mark.parametrize(("language", "marker"), [("en", "is marked doubtful"), ("zh-CN", "答案存疑")])
def test_bank_check_lists_the_doubtful_items_as_notes(language, marker):
    out = io.StringIO()
    assert run_check([str(default_bank_path())], out=out, cache_dir=None, language=language) == 0
    noted = [line for line in out.getvalue().splitlines() if marker in line]
    ids = [f"[ait25-{n:03d}]" for n in SHIPPED_DOUBTS]
    assert len(noted) == len(ids) and all(i in line for i, line in zip(ids, noted, strict=True))


def test_a_blank_doubt_is_an_error_and_a_doubt_survives_a_round_trip():
    line = "  explanation: 2+2 is 4.\n"
    text = dump_bank(make_bank()).replace(line, line + "    doubt: ' '\n", 1)
    report = load_bank_text_report(text)
    assert report.bank is None and any(p.message == "doubt is empty" for p in report.errors)
    doubtful = replace(make_bank(), questions=(replace(make_bank().questions[0], doubt=NOTE),))
    again = load_bank_text_report(dump_bank(doubtful)).bank
    assert again is not None and again.questions[0].doubt == NOTE


def test_the_compiled_cache_follows_an_edited_doubt(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text(default_bank_path().read_text(encoding="utf-8"), encoding="utf-8")
    cache = tmp_path / "cache"
    first = load_bank_report_cached(path, cache).bank
    assert first is not None and first.question("ait25-002").doubt.startswith("梯度长期接近零时")
    assert load_bank_report_cached(path, cache).bank == first  # from the cache
    path.write_text(path.read_text(encoding="utf-8").replace("doubt: 梯度长期接近零时", "doubt: 改过的说明"),
                    encoding="utf-8")
    assert load_bank_report_cached(path, cache).bank.question("ait25-002").doubt.startswith("改过的说明")


def test_the_shipped_explanations_of_items_2_and_15_agree_with_their_keys():
    bank = load_bank(default_bank_path())
    adam, moe = bank.questions[1], bank.questions[14]
    assert (adam.number, adam.answer, moe.number, moe.answer) == (2, ("D",), 15, ("C",))
    # Item 2, key D (second moments make the rate fall): the explanation says when the step
    # shrinks, and that v_t→0 makes α/(√v̂_t+ε) grow — not that it "drops sharply".
    assert "学习率动态下降" in adam.explanation and "（D）" in adam.explanation
    assert "会急剧降低" not in adam.explanation and "反而增大" in adam.explanation
    # Item 15, key C: the explanation arrives at option C's expression, not at "≈2/N" (option B).
    assert moe.option_text("C") in moe.explanation and "（C）" in moe.explanation
    assert "占比≈2/N" not in moe.explanation
    for q in (adam, moe):
        assert any(e.field == "explanation" for e in q.errata)
    doubted = [q.number for q in bank.questions if q.doubt]
    assert doubted == SHIPPED_DOUBTS
