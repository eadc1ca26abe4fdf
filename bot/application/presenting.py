"""Building views from domain records: option buttons, answer labels and the reveal of a round.

What differs by question type (buttons, labels, tallies) comes from its module in
bot/domain/question_types; the functions here are the entry points the rest of the core calls.

Bank text in a view is shown in the chat's script (`bank_text`: traditional for zh-TW); user
names never are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from bot.domain.doubts import explanation_text
from bot.domain.kinds import AnswerStatus, OptionView, RevealPolicy, RoundKind
from bot.domain.question_types import TYPES
from bot.domain.questions import Bank, Question
from bot.domain.records import Chat, Round, StoredAnswer
from bot.locales.i18n import bank_text, t
from bot.ports.storage import Store
from bot.views.quiz import QuestionView, ReceiptView, RevealView


def build_question(
    round_: Round, chat: Chat, question: Question, bank_title: str, position: tuple[int, int] | None = None
) -> QuestionView:
    lang = chat.settings.language
    return QuestionView(
        round_id=round_.id,
        chat_id=chat.id,
        kind=round_.kind,
        qtype=question.type,
        input_kind=TYPES[question.type].input_kind,
        number=question.number,
        stem=bank_text(lang, question.stem),
        options=option_views(question, lang),
        points=question.points,
        opened_at=round_.opened_at,
        closes_at=round_.closes_at,
        reveal=round_.reveal,
        answer_policy=round_.answer_policy,
        language=lang,
        timezone=chat.settings.timezone,
        bank_title=bank_text(lang, bank_title),
        contest_position=position,
        mode=str(round_.mode),
        bank_id=round_.bank_id,
        images=question.images,
        question_id=question.id,
    )


def build_receipt(
    round_: Round, question: Question, stored: StoredAnswer, status: AnswerStatus, language: str
) -> ReceiptView:
    """The receipt of a committed answer: graded at once in practice, only "recorded" otherwise."""
    receipt = ReceiptView(
        round_id=round_.id,
        status=status,
        language=language,
        response=stored.response,
        response_label=response_label(question, stored.response, language),
    )
    if round_.reveal is not RevealPolicy.PRACTICE:
        return receipt
    fields: dict[str, Any] = {"points": stored.points}
    if stored.verdict == "pending":
        fields |= key_point_fields(question, stored.response, language)
    return replace(
        receipt,
        graded=True,
        verdict=stored.verdict,
        correct_label=correct_label(question, language),
        explanation=explanation_text(language, question),
        reference=TYPES[question.type].reference(question, language),
        key_points=tuple(bank_text(language, p) for p in question.key_points),
        **fields,
    )


def key_point_fields(question: Question, response: str, language: str) -> dict[str, Any]:
    """The covered and missed key points of a response awaiting its self-grade, and the item's
    points, as ReceiptView fields (none for an item not scored by key points)."""
    coverage = TYPES[question.type].coverage(question, response)
    if coverage is None:
        return {}
    return {
        "covered": tuple(bank_text(language, question.key_points[i]) for i in coverage.covered),
        "missed": tuple(bank_text(language, question.key_points[i]) for i in coverage.missed),
        "out_of": question.points,
        "points": question.points * coverage.fraction,
    }


def option_views(question: Question, language: str) -> tuple[OptionView, ...]:
    return TYPES[question.type].option_views(question, language)


def correct_tokens(question: Question) -> tuple[str, ...]:
    return TYPES[question.type].correct_tokens(question)


def response_label(question: Question, response: str, language: str) -> str:
    return TYPES[question.type].response_label(question, response, language)


def correct_label(question: Question, language: str) -> str:
    return TYPES[question.type].correct_label(question, language)


async def build_reveal(
    store: Store, round_: Round, chat: Chat, question: Question, *, top_n: int
) -> RevealView:
    """The reveal of a closed round: correct answer, explanation, counts, who was right, streaks."""
    lang = chat.settings.language
    answers = await store.round_answers(round_.id)
    options = option_views(question, lang)
    option_counts = TYPES[question.type].tally(question, ((a.response, a.verdict) for a in answers), lang)
    right = tuple(a.display_name for a in answers if a.verdict == "correct")
    streaks: tuple[tuple[str, int], ...] = ()
    if round_.kind is RoundKind.DAILY:
        streaks = tuple(await store.top_streaks(chat.id, round_.id, top_n))
    return RevealView(
        round_id=round_.id,
        chat_id=chat.id,
        kind=round_.kind,
        qtype=question.type,
        number=question.number,
        stem=bank_text(lang, question.stem),
        options=options,
        correct_tokens=correct_tokens(question),
        correct_label=correct_label(question, lang),
        explanation=explanation_text(lang, question),
        counts=option_counts,
        total_answers=len(answers),
        right=right,
        streaks=streaks,
        language=lang,
        message_ref=round_.message_ref,
        key_points=tuple(bank_text(lang, p) for p in question.key_points),
    )


def tag_label(language: str, bank: Bank, tag: str) -> str:
    """A tag as a learner sees it: its display name (`tag_names:`), else its slug, in the chat's
    script like all the bank's text."""
    return bank_text(language, bank.tag_name(tag))


def tag_list(language: str, bank: Bank, tags: Iterable[str]) -> str:
    """Tags by their display names, joined as the language lists things (、 or ", ")."""
    return t(language, "exam.list_separator").join(tag_label(language, bank, tag) for tag in tags)
