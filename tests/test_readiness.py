"""The readiness model (bot/domain/readiness.py): the score's Poisson-binomial distribution, by
hand and against brute force; the prior; the chance of an item; the paper's forecast."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.domain.questions import Bank, Paper, PaperSection, Question, QuestionType
from bot.domain.readiness import (
    MIN_ANSWERS,
    Prior,
    chance_at_least,
    evidence,
    fit_prior,
    forecast,
    forecasts,
    item_chance,
    quantile,
    score_distribution,
)
from bot.domain.spaced import SpacedRepetition
from bot.domain.study_records import Outcome, StudyAnswer

NOW = datetime(2026, 12, 3, 8, tzinfo=UTC)


def test_a_hand_computed_poisson_binomial_with_half_points():
    # 1 point at 1/2, 2 points at 1/2, half a point at 1/5. The first two give 0, 1, 2, 3 at 1/4
    # each; the third splits each score s into s (4/5) and s + 0.5 (1/5).
    dist = score_distribution([(1, 0.5), (2, 0.5), (0.5, 0.2)])
    expected = {0: 0.2, 0.5: 0.05, 1: 0.2, 1.5: 0.05, 2: 0.2, 2.5: 0.05, 3: 0.2, 3.5: 0.05}
    assert [s for s, _ in dist] == list(expected)
    for (score, p), want in zip(dist, expected.values(), strict=True):
        assert p == pytest.approx(want), score
    assert sum(s * p for s, p in dist) == pytest.approx(1.6)  # 0.5 + 1 + 0.1
    assert chance_at_least(dist, 2) == pytest.approx(0.5)  # 0.2 + 0.05 + 0.2 + 0.05
    assert chance_at_least(dist, 2.5) == pytest.approx(0.3)
    assert quantile(dist, 0.1) == 0  # 0 alone holds 0.2
    assert quantile(dist, 0.9) == 3  # up to 2.5: 0.75; up to 3: 0.95


def test_certain_items_and_no_items():
    assert score_distribution([]) == [(0.0, 1.0)]
    dist = score_distribution([(2, 1.0), (1.5, 0.0)])
    assert dist == [(2.0, 1.0)]
    assert chance_at_least(dist, 2) == 1.0


@given(st.lists(st.tuples(st.sampled_from([0.5, 1, 1.5, 2, 0.25, 3]), st.floats(0, 1)), max_size=8))
def test_the_dp_is_the_sum_over_every_outcome(items):
    brute: dict[float, float] = {}
    for outcome in itertools.product((0, 1), repeat=len(items)):
        p = 1.0
        score = 0.0
        for right, (points, chance) in zip(outcome, items, strict=True):
            p *= chance if right else 1 - chance
            score += points * right
        brute[round(score, 6)] = brute.get(round(score, 6), 0.0) + p
    dist = dict((round(s, 6), p) for s, p in score_distribution(items))
    for score, p in brute.items():
        assert dist.get(score, 0.0) == pytest.approx(p, abs=1e-9)
    assert sum(dist.values()) == pytest.approx(1.0)


def test_the_prior_is_fitted_on_first_answers_over_a_flat_beta():
    assert fit_prior([]).mean == 0.5
    prior = fit_prior([1, 1, 1, 0, 0.5])
    assert (prior.alpha, prior.beta) == (4.5, 2.5)
    assert prior.mean == pytest.approx(4.5 / 7)


def _question(number: int, qtype: QuestionType = QuestionType.SINGLE, tags: tuple[str, ...] = ()) -> Question:
    answer = ("A",) if qtype is not QuestionType.SHORT else ("参考答案",)
    options = (("A", "甲"), ("B", "乙")) if qtype is not QuestionType.SHORT else ()
    return Question(id=f"q{number}", number=number, type=qtype, stem=f"题 {number}", options=options,
                    answer=answer, tags=tags)  # fmt: skip


def test_an_item_counts_with_its_recall_which_fades_and_unseen_ones_with_the_prior():
    spaced = SpacedRepetition()
    question = _question(1)
    card = spaced.review(None, StudyAnswer(1, "b", "q1", Outcome.RIGHT, NOW))
    prior = Prior(3, 1)
    soon = item_chance(question, card, [1.0], prior, NOW + timedelta(hours=1))
    later = item_chance(question, card, [1.0], prior, NOW + timedelta(days=30))
    assert 0.9 < soon <= 1.0 and later < soon
    assert item_chance(question, None, [], prior, NOW) == 0.75
    short = _question(2, QuestionType.SHORT)
    assert item_chance(short, None, [1.0, 0.5, 0.0], prior, NOW) == pytest.approx(0.5)  # its self-grades


def test_a_paper_forecast_by_section_and_the_pass_chance():
    questions = (*[_question(n) for n in range(1, 5)], _question(5, QuestionType.SHORT))
    paper = Paper(
        (PaperSection(QuestionType.SINGLE, 2, 2.0), PaperSection(QuestionType.SHORT, 1, 6.0)), 60, 6
    )
    bank = Bank(id="b", title="t", language="zh-CN", source="test", questions=questions, paper=paper)
    # Nothing answered but the short answer, self-graded full twice: singles at the prior 1/2.
    seen = evidence({}, {"q5": [1.0, 1.0]})
    assert seen.prior.mean == pytest.approx(2 / 3)  # Beta(1, 1) and one first answer right
    day = forecast(bank, paper, seen, NOW)
    single, short = day.sections
    assert (single.count, single.full, short.full) == (2, 4.0, 6.0)
    assert single.expected == pytest.approx(2 * 2 * 2 / 3)  # two slots at the pool's mean
    assert short.expected == pytest.approx(6.0)
    # 6 is certain from the short answer: the pass mark of 6 is always reached.
    assert day.pass_chance == pytest.approx(1.0)
    assert len(forecasts(bank, paper, seen, NOW, None)) == 31
    assert len(forecasts(bank, paper, seen, NOW, NOW + timedelta(days=10))) == 11
    assert MIN_ANSWERS == 20


async def test_ready_for_a_learner_with_a_few_hundred_answers(tmp_path):
    """Three weeks of practice and review through the real application on SQLite (the learner
    of tests/stats_session.py), then /ready: the text says what it rests on, its sections add up
    to the expected score inside its band, and the chart is drawn from the same forecast."""
    import re

    from bot.application.reply_text import render_reply
    from bot.views.charts import ReadinessChart
    from tests.stats_session import run
    from tests.study_e2e import PNG

    session = await run(tmp_path, "zh-CN", "/ready")
    text = render_reply(session.reply)
    rests = re.search(r"依据你的 (\d+) 次作答。", text)
    assert rests is not None and 200 <= int(rests.group(1)) <= 1000, text
    score = re.search(r"预计得分 ([\d.]+) / 100（80% 区间 ([\d.]+)–([\d.]+)）", text)
    assert score is not None, text
    expected, low, high = (float(g) for g in score.groups())
    assert low <= expected <= high
    sections = [float(m) for m in re.findall(r"×\d+：([\d.]+) / ", text)]
    assert len(sections) == 5 and abs(sum(sections) - expected) < 0.3  # each rounded to 0.1
    assert re.search(r"达到及格线 60 的概率：\d+%", text)
    (chart,) = [c for c in session.charts if isinstance(c, ReadinessChart)]
    assert len(chart.days) == 31 and chart.expected[0] == pytest.approx(expected, abs=0.05)
    assert all(lo <= e <= hi for lo, e, hi in zip(chart.low, chart.expected, chart.high, strict=True))
    assert chart.expected[-1] <= chart.expected[0]  # without review, memory fades
    (png,) = session.reply.files
    assert png.image and png.data.startswith(PNG)
