"""Agreement of key-point grading with learners' self-grades (issue 22, item 6).

Job: grade every labelled answer in benchmarks/key_points_answers.yaml (50 typed answers to the
shipped bank's two short items and three items of our own, benchmarks/key_points_bank.yaml:
right, partly right, wrong,
off-topic, with typos, in traditional characters, in English) by its item's key points
(bot/domain/key_points.py), read the score as the self-grade it stands for (full / half / zero), and
compare with the label a careful learner would give. Prints each answer's row, the confusion
matrix, exact agreement and Cohen's kappa, by kind of answer too, against a baseline measured
in the same run: the answer's similarity to the reference answer (rapidfuzz's partial token
set ratio, read with the same thresholds), the obvious grader without key points.

Usage: PYTHONPATH=. python benchmarks/key_points.py [--rows]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import yaml

from bank.loader import load_bank
from bot.domain import key_points
from bot.domain.questions import Question
from bot.domain.verdicts import Verdict
from bot.locales.i18n import simplified

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


class Labelled(NamedTuple):
    item: str  # question id
    kind: str
    label: str  # full / half / zero
    text: str


_ROWS = yaml.safe_load((HERE / "key_points_answers.yaml").read_text("utf-8"))["answers"]
ANSWERS = tuple(Labelled(**row) for row in _ROWS)
LEVELS = ("full", "half", "zero")
_LEVEL = {Verdict.CORRECT: "full", Verdict.PARTIAL: "half", Verdict.WRONG: "zero"}


@dataclass(frozen=True)
class Agreement:
    name: str
    predicted: tuple[str, ...]
    labels: tuple[str, ...]
    seconds: float

    @property
    def matrix(self) -> dict[tuple[str, str], int]:
        """(label, predicted) -> count."""
        return Counter(zip(self.labels, self.predicted, strict=True))

    @property
    def exact(self) -> float:
        return sum(a == b for a, b in zip(self.labels, self.predicted, strict=True)) / len(self.labels)

    @property
    def kappa(self) -> float:
        """Cohen's kappa: agreement beyond what the two marginals give by chance."""
        n = len(self.labels)
        said, given = Counter(self.labels), Counter(self.predicted)
        chance = sum(said[level] * given[level] for level in LEVELS) / (n * n)
        return (self.exact - chance) / (1 - chance) if chance < 1 else 1.0


def questions() -> dict[str, Question]:
    shipped = load_bank(ROOT / "bank" / "ai_trainer_2025.yaml")
    own = load_bank(HERE / "key_points_bank.yaml")
    return {q.id: q for q in (*shipped.questions, *own.questions) if q.key_points}


def by_key_points(question: Question, text: str) -> str:
    return _LEVEL[key_points.cover(question, text).verdict]


def by_reference(question: Question, text: str) -> str:
    """Baseline: similarity of the whole answer to the reference answer, as a share."""
    from rapidfuzz import fuzz

    share = fuzz.token_set_ratio(simplified(text), question.answer[0]) / 100
    return _LEVEL[key_points.level_of(share)]


def run(
    name: str, grader: Callable[[Question, str], str], answers: Sequence[Labelled], items: dict[str, Question]
) -> Agreement:
    start = time.perf_counter()
    predicted = tuple(grader(items[a.item], a.text) for a in answers)
    return Agreement(name, predicted, tuple(a.label for a in answers), time.perf_counter() - start)


def evaluate() -> tuple[Agreement, Agreement, dict[str, Question]]:
    items = questions()
    key_points.segment("预热")  # the dictionary loads once, outside the timings
    graded = run("key points", by_key_points, ANSWERS, items)
    return graded, run("reference", by_reference, ANSWERS, items), items


def without_jieba(items: dict[str, Question]) -> Agreement:
    """The same grading with the answer's words taken as runs of letters and single Chinese
    characters (what bot/domain/key_points.py falls back to when jieba is missing)."""
    loaded = key_points._cut
    key_points._cut = key_points._characters
    key_points._content_words.cache_clear()
    try:
        return run("key points, no jieba", by_key_points, ANSWERS, items)
    finally:
        key_points._cut = loaded
        key_points._content_words.cache_clear()


def table(result: Agreement, baseline: Agreement, *others: Agreement) -> str:
    lines = [f"confusion matrix ({result.name}): rows the self-grade, columns the grader's"]
    lines.append("self-grade \\ grader " + "".join(f"{level:>7}" for level in LEVELS) + "  total")
    matrix = result.matrix
    for label in LEVELS:
        row = [matrix.get((label, p), 0) for p in LEVELS]
        lines.append(f"{label:<20}" + "".join(f"{c:>7}" for c in row) + f"{sum(row):>7}")
    lines.append("")
    heads = f"{'exact':>8}{'kappa':>8}{'ms/answer':>11}{'exact ratio':>13}{'kappa ratio':>13}"
    lines.append(f"{'grader':<26}" + heads)
    for r in (result, *others, baseline):
        per = 1000 * r.seconds / len(r.labels)
        exact_ratio = r.exact / baseline.exact if baseline.exact else float("inf")
        kappa_ratio = r.kappa / baseline.kappa if baseline.kappa > 0 else float("inf")
        lines.append(
            f"{r.name:<26}{r.exact:>8.1%}{r.kappa:>8.3f}{per:>11.2f}{exact_ratio:>13.2f}{kappa_ratio:>13.2f}"
        )
    lines.append("")
    lines.append(f"{'kind of answer':<16}{'answers':>8}{'agree':>8}")
    kinds: dict[str, list[bool]] = {}
    for answer, p in zip(ANSWERS, result.predicted, strict=True):
        kinds.setdefault(answer.kind, []).append(answer.label == p)
    for kind, agreed in kinds.items():
        lines.append(f"{kind:<16}{len(agreed):>8}{sum(agreed):>8}")
    return "\n".join(lines)


def rows(result: Agreement, items: dict[str, Question]) -> str:
    lines = [f"{'item':<10}{'kind':<14}{'self':<6}{'graded':<7}{'score':>6}  answer"]
    for answer, p in zip(ANSWERS, result.predicted, strict=True):
        score = key_points.cover(items[answer.item], answer.text).fraction
        mark = " " if p == answer.label else "≠"
        text = answer.text if len(answer.text) <= 40 else answer.text[:39] + "…"
        lines.append(f"{answer.item:<10}{answer.kind:<14}{answer.label:<6}{p:<6}{mark}{score:>6.2f}  {text}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="store_true", help="print every answer's grade too")
    args = parser.parse_args(argv)
    result, baseline, items = evaluate()
    plain = without_jieba(items)
    print(f"{len(ANSWERS)} labelled answers over {len(items)} short items "
          f"(full from {key_points.FULL:.0%} of the points, half from {key_points.HALF:.0%})")  # fmt: skip
    print(table(result, baseline, plain))
    if args.rows:
        print()
        print(rows(result, items))
    return 0


if __name__ == "__main__":
    sys.exit(main())
