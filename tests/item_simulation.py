"""Simulated answers for the question statistics: learners with abilities answer a bank's items
with difficulties by a 3PL-style logistic model (a guessing floor of one in the options), seeded.
A wrong answer picks a distractor, the first distractor more often (an attractive one), so a
deliberately swapped key shows as strong learners picking an option outside the key.

The bank is built with its true keys; `swap_key` gives the same bank with one item's key set to
one of its distractors, the typo a teacher may make."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.domain.questions import Bank, Question, QuestionType
from bot.domain.study_records import ItemAnswer

LETTERS = ("A", "B", "C", "D")


def simulated_bank(items: int = 30, *, seed: int = 7, bank_id: str = "sim") -> Bank:
    rng = random.Random(seed)
    questions = []
    for number in range(1, items + 1):
        key = rng.choice(LETTERS)
        options = tuple((letter, f"选项{letter}{number}") for letter in LETTERS)
        questions.append(Question(f"q{number}", number, QuestionType.SINGLE, f"模拟题 {number}", (key,),
                                  options=options))  # fmt: skip
    return Bank(bank_id, "模拟题库", "zh-CN", "simulated", tuple(questions))


def swap_key(bank: Bank, number: int) -> tuple[Bank, str]:
    """The bank with item `number`'s key replaced by its first distractor (and that letter)."""
    question = bank.questions[number - 1]
    wrong = next(letter for letter in LETTERS if letter not in question.answer)
    swapped = replace(question, answer=(wrong,))
    questions = tuple(swapped if q.number == number else q for q in bank.questions)
    return replace(bank, questions=questions), wrong


def simulate(
    truth: Bank,
    learners: int = 300,
    *,
    seed: int = 11,
    answered: float = 0.8,
    repeats: float = 0.3,
    user_base: int = 1,
    shown: Bank | None = None,
) -> list[ItemAnswer]:
    """Answers of `learners` to the items of `truth`, graded against the keys of `shown` (the
    bank as the bot has it; `truth` itself by default). Each learner answers each item with
    chance `answered`, and again later with chance `repeats`, then giving the key the reveal
    showed them (`shown`'s)."""
    shown = shown or truth
    rng = random.Random(seed)
    start = datetime(2026, 11, 1, 8, tzinfo=UTC)
    difficulty = {q.id: rng.gauss(0.0, 0.8) for q in truth.questions}
    sources = ("practice", "daily", "contest", "mock")
    out: list[ItemAnswer] = []
    for index in range(learners):
        user = user_base + index
        theta = rng.gauss(0.0, 1.0)
        for step, question in enumerate(truth.questions):
            if rng.random() > answered:
                continue
            p = 0.25 + 0.75 / (1.0 + math.exp(-1.7 * 1.2 * (theta - difficulty[question.id])))
            key = question.answer[0]
            distractors = [letter for letter in LETTERS if letter != key]
            if rng.random() < p:
                response = key
            else:  # the first distractor draws 40 % of the wrong answers
                response = distractors[0] if rng.random() < 0.4 else rng.choice(distractors[1:])
            at = start + timedelta(hours=index % 24, minutes=step)
            out.append(ItemAnswer(user, question.id, response, "", 0.0, at, rng.choice(sources)))
            if rng.random() < repeats:
                again = shown.question(question.id).answer[0]
                out.append(ItemAnswer(user, question.id, again, "", 0.0, at + timedelta(days=3), "practice"))
    return regrade(shown, out)


def regrade(bank: Bank, answers: list[ItemAnswer]) -> list[ItemAnswer]:
    """The answers graded against `bank`'s keys (what the bot would have stored)."""
    keys = {q.id: q.answer for q in bank.questions}
    return [
        replace(a, verdict="correct" if (a.response,) == keys[a.question_id] else "wrong",
                fraction=1.0 if (a.response,) == keys[a.question_id] else 0.0)
        for a in answers
    ]  # fmt: skip
