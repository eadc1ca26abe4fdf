"""A mock item's options in the order one person sees them: the bank's letters keep their
places on screen (A, B, C, D), the texts behind them are permuted.

`order` is the bank letters in display order ("CADB": the first option shown is the bank's C);
"" means the bank's own order (a question without options, or a mock sat in bank order). It is
stored with the mock's items, so a restart shows the same paper. Answers are kept in the bank's
letters, so grading, the notebook and FSRS never see the shuffle; only what is shown and read
on screen goes through `shown` / `to_bank` / `to_shown`. How a response's letters are renamed,
and whether an answer's letters are an order or a set, is the question type's (remap_letters,
ordered_answer in bot/domain/question_types).
"""

from __future__ import annotations

import random
from dataclasses import replace

from bot.domain.question_types import TYPES
from bot.domain.questions import Question


def draw_order(question: Question, rng: random.Random) -> str:
    """A random display order of the question's options ("" if it has none)."""
    if not TYPES[question.type].takes_options or len(question.options) < 2:
        return ""
    letters = list(question.letters)
    rng.shuffle(letters)
    return "".join(letters)


def valid(question: Question, order: str) -> bool:
    """Whether `order` is a permutation of the question's letters (a bank edited since the mock
    began may have changed them: then the bank's order is used)."""
    return bool(order) and sorted(order) == sorted(question.letters)


def shown(question: Question, order: str) -> Question:
    """The question as displayed: display letter i carries the text of bank letter order[i]; its
    answer is in display letters."""
    if not valid(question, order):
        return question
    to_shown = _mapping(question, order)
    options = tuple((letter, question.option_text(order[i])) for i, letter in enumerate(question.letters))
    mapped = [to_shown[a] for a in question.answer if a in to_shown]
    # A set of letters is kept in option order; letters that are an order stay in theirs.
    answer = tuple(mapped if TYPES[question.type].ordered_answer else sorted(mapped))
    return replace(question, options=options, answer=answer)


def to_bank(question: Question, order: str, response: str) -> str:
    """A response read against the displayed question, in the bank's letters."""
    if not valid(question, order):
        return response
    back = {shown_: bank for bank, shown_ in _mapping(question, order).items()}
    return TYPES[question.type].remap_letters(response, back)


def to_shown(question: Question, order: str, response: str) -> str:
    """A stored response (bank letters) in the letters the person saw."""
    if not valid(question, order):
        return response
    return TYPES[question.type].remap_letters(response, _mapping(question, order))


def _mapping(question: Question, order: str) -> dict[str, str]:
    """bank letter → display letter."""
    return {bank: question.letters[i] for i, bank in enumerate(order)}

