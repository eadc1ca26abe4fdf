"""The question statistics (bot/domain/item_statistics.py): a swapped key found among simulated
answers, a point-biserial worked by hand, and properties over any answer set."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wcwidth import wcswidth

from bot.domain.item_statistics import MIN_LEARNERS, Flag, compute, pearson, sign_test
from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.study_records import ItemAnswer
from bot.views.item_statistics_text import chat_text, csv_bytes
from studybot.bank_stats import table_lines
from tests.item_simulation import simulate, simulated_bank, swap_key

T0 = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.mark.parametrize("number", [4, 17, 26])
def test_a_swapped_key_is_flagged_first(number: int) -> None:
    truth = simulated_bank(30)
    bank, _ = swap_key(truth, number)
    stats = compute(bank, simulate(truth, 300, shown=bank))
    first = stats.items[0]
    assert first.question.number == number
    assert first.flags == (Flag.KEY,)
    assert first.rival == truth.question(f"q{number}").answer[0]  # the true key
    assert [i.question.number for i in stats.flagged] == [number]
    assert first.discrimination is not None and first.discrimination < 0


def test_true_keys_raise_no_flag() -> None:
    truth = simulated_bank(30)
    stats = compute(truth, simulate(truth, 300))
    assert stats.flagged == ()
    assert stats.learners == 300
    assert [i.question.number for i in stats.items] == list(range(1, 31))
    assert all(i.discrimination is not None and i.discrimination > 0 for i in stats.items)


def _single(number: int, key: str = "A") -> Question:
    return Question(f"q{number}", number, QuestionType.SINGLE, f"题 {number}", (key,),
                    options=(("A", "甲"), ("B", "乙"), ("C", "丙"), ("D", "丁")))  # fmt: skip


def _answer(user: int, qid: str, response: str, right: bool, minutes: int = 0) -> ItemAnswer:
    return ItemAnswer(user, qid, response, "correct" if right else "wrong", 1.0 if right else 0.0,
                      T0 + timedelta(minutes=minutes), "practice")  # fmt: skip


def test_point_biserial_worked_by_hand() -> None:
    """Five kinds of learner: kind k answers k of five other items right (rest score k/5) and
    the item X right for k = 3 and 5. By hand: p = 0.4, M1 = (0.6 + 1.0)/2 = 0.8,
    M0 = (0.2 + 0.4 + 0.8)/3 = 0.4667, s = sqrt(0.08) = 0.2828 (over all five), so
    r = (M1 − M0)/s · sqrt(pq) = 0.3333/0.2828 · 0.4899 = 0.5774 (1/√3). Each kind four times
    over (20 learners, the minimum) changes no mean, share or correlation."""
    x = _single(6)
    bank = Bank("hand", "手算", "zh-CN", "test", (*(_single(n) for n in range(1, 6)), x))
    answers = []
    for copy in range(4):
        for k in range(1, 6):
            user = copy * 10 + k
            for n in range(1, 6):
                answers.append(_answer(user, f"q{n}", "A" if n <= k else "B", n <= k))
            answers.append(_answer(user, "q6", "A" if k in (3, 5) else "B", k in (3, 5)))
    assert pearson([0, 0, 1, 0, 1], [0.2, 0.4, 0.6, 0.8, 1.0]) == pytest.approx(1 / math.sqrt(3))
    item = next(i for i in compute(bank, answers).items if i.question.id == "q6")
    assert item.learners == 20 and item.rest_learners == 20
    assert item.difficulty == pytest.approx(0.4)
    assert item.discrimination == pytest.approx(0.57735, abs=1e-5)
    # The strong group: ceil(0.27 × 20) = 6 learners, all of rest score 1.0 (kind 5, then a
    # kind-4 learner by user id): they pick A, the key, 4 times to B's 2: no flag.
    assert item.top_group == 6 and item.flags == ()


def test_the_key_flag_needs_a_lead_chance_does_not_explain() -> None:
    # By hand: P(X >= 4 | n = 7, 1/2) = (35 + 21 + 7 + 1)/128 = 0.5; P(X >= 6 | 6) = 1/64.
    assert sign_test(4, 3) == 0.5 and sign_test(6, 0) == 1 / 64
    assert sign_test(27, 12) < 0.05 < sign_test(21, 15)
    # 20 learners of equal rest score: the strong group is 6 (ceil 0.27 × 20); 4 of them pick
    # C against the key's 2 (p = 22/64): not flagged. All 6 picking C (p = 1/64): flagged.
    for rivals, flagged in ((4, False), (6, True)):
        bank = Bank("b", "t", "zh-CN", "test", tuple(_single(n) for n in range(1, 8)))
        answers = [_answer(u, f"q{n}", "A", True) for u in range(20) for n in range(2, 8)]
        answers += [_answer(u, "q1", "C" if u < rivals else "A", u >= rivals) for u in range(20)]
        item = next(i for i in compute(bank, answers).items if i.question.id == "q1")
        assert item.top_group == 6 and (Flag.KEY in item.flags) is flagged


def test_only_the_first_answer_of_each_learner_counts() -> None:
    bank = Bank("b", "t", "zh-CN", "test", (_single(1),))
    answers = [_answer(1, "q1", "B", False, 0), _answer(1, "q1", "A", True, 5),
               _answer(2, "q1", "A", True, 1)]  # fmt: skip
    item = compute(bank, answers).items[0]
    assert (item.answers, item.learners, item.difficulty) == (3, 2, 0.5)
    assert [(o.token, o.picks) for o in item.options] == [("A", 1), ("B", 1), ("C", 0), ("D", 0)]


def test_nobody_right_is_flagged_and_too_few_is_not() -> None:
    bank = Bank("b", "t", "zh-CN", "test", (_single(1), _single(2)))
    answers = [_answer(u, "q1", "B", False) for u in range(MIN_LEARNERS)]
    answers += [_answer(u, "q2", "B", False) for u in range(MIN_LEARNERS - 1)]
    stats = compute(bank, answers)
    assert stats.items[0].question.number == 1 and stats.items[0].flags == (Flag.NONE_RIGHT,)
    assert stats.items[1].flags == () and not stats.items[1].enough


def test_answers_to_items_left_out_of_the_bank_are_counted_apart() -> None:
    bank = Bank("b", "t", "zh-CN", "test", (_single(1),))
    stats = compute(bank, [_answer(1, "q1", "A", True), _answer(1, "gone", "A", True)])
    assert (stats.answers, stats.left_out, stats.learners) == (1, 1, 1)


# ---------------------------------------------------------------- properties

MIXED = Bank("mixed", "混合", "zh-CN", "test", (
    _single(1, "B"),
    Question("q2", 2, QuestionType.MULTI, "多选", ("A", "C"), options=(("A", "a"), ("B", "b"), ("C", "c"))),
    Question("q3", 3, QuestionType.JUDGE, "判断", ("true",)),
    Question("q4", 4, QuestionType.FILL, "填空", ("梯度",)),
    Question("q5", 5, QuestionType.SHORT, "简答", ("参考",)),
))  # fmt: skip
RESPONSES = {"q1": st.sampled_from(["A", "B", "C", "D", "", "Z"]),
             "q2": st.sampled_from(["A", "A,C", "B", "A,B,C", "C", ""]),
             "q3": st.sampled_from(["true", "false", ""]),
             "q4": st.text(max_size=5), "q5": st.text(max_size=5),
             "gone": st.just("A")}  # fmt: skip


@st.composite
def answer_sets(draw: st.DrawFn) -> list[ItemAnswer]:
    users = draw(st.integers(1, 40))
    out = []
    for _ in range(draw(st.integers(0, 300))):
        qid = draw(st.sampled_from(sorted(RESPONSES)))
        fraction = draw(st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(allow_nan=True)))
        out.append(ItemAnswer(
            draw(st.integers(1, users)), qid, draw(RESPONSES[qid]), "wrong", fraction,
            T0 + timedelta(seconds=draw(st.integers(0, 10_000))),
            draw(st.sampled_from(["daily", "mock", "x"])),
        ))  # fmt: skip
    return out


def _in_range(answers: list[ItemAnswer]) -> None:
    stats = compute(MIXED, answers)
    assert sorted(i.question.id for i in stats.items) == ["q1", "q2", "q3", "q4", "q5"]
    assert stats.answers + stats.left_out == len(answers)
    assert sum(n for _, n in stats.by_source) == stats.answers
    for item in stats.items:
        assert 0 <= item.learners <= item.answers
        assert (item.difficulty is None) == (item.learners == 0)
        assert item.difficulty is None or 0.0 <= item.difficulty <= 1.0
        assert item.discrimination is None or -1.0 <= item.discrimination <= 1.0
        assert item.top_group <= item.rest_learners <= item.learners
        assert all(0 <= o.top_picks <= o.picks <= item.learners for o in item.options)
        if not item.enough:
            assert item.flags == ()
        assert (Flag.KEY in item.flags) == (item.rival is not None and item.enough)
    # Every way it is shown reads any such set too: the table within 80 columns.
    for language in ("zh-CN", "zh-TW", "en"):
        assert chat_text(stats, [], language)
        assert csv_bytes(stats, [], language).decode("utf-8-sig").count("\n") == len(stats.items) + 1
        assert all(wcswidth(line) <= 80 for line in table_lines(stats, [], language))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer_sets())
def test_any_answer_set_stays_in_range(answers: list[ItemAnswer]) -> None:
    _in_range(answers)


def test_edge_sets_stay_in_range() -> None:
    everyone = [(u, q.id) for u in range(1, 31) for q in MIXED.questions]
    key = {"q1": "B", "q2": "A,C", "q3": "true", "q4": "梯度", "q5": "参考"}
    all_right = [ItemAnswer(u, q, key[q], "correct", 1.0, T0, "mock") for u, q in everyone]
    all_wrong = [ItemAnswer(u, q, "", "wrong", 0.0, T0, "mock") for u, q in everyone]
    for answers in ([], all_right, all_wrong, all_right[:1], [a for a in all_right if a.user_id == 1]):
        _in_range(answers)
    right = compute(MIXED, all_right)
    assert all(i.difficulty == 1.0 and i.discrimination is None and i.flags == () for i in right.items)
    wrong = compute(MIXED, all_wrong)
    assert all(i.flags == (Flag.NONE_RIGHT,) for i in wrong.items)
