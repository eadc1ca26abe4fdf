"""Building views from domain records: option buttons, answer labels and the reveal of a round.

Bank text in a view is shown in the chat's script (`bank_text`: traditional for zh-TW); user
names never are.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from bot.i18n import bank_text, t
from bot.kinds import AnswerStatus, RevealPolicy, RoundKind
from bot.messages import OptionCount, OptionView, QuestionView, ReceiptView, RevealView
from bot.model import Question, QuestionType
from bot.ports import Store
from bot.records import Chat, Round, StoredAnswer


def build_question(
    round_: Round, chat: Chat, question: Question, bank_title: str, position: tuple[int, int] | None = None
) -> QuestionView:
    lang = chat.settings.language
    return QuestionView(
        round_id=round_.id,
        chat_id=chat.id,
        kind=round_.kind,
        qtype=question.type,
        input_kind=question.type.input_kind,
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
    return replace(
        receipt,
        graded=True,
        verdict=stored.verdict,
        points=stored.points,
        correct_label=correct_label(question, language),
        explanation=bank_text(language, question.explanation),
        reference=bank_text(language, question.answer[0]) if question.type is QuestionType.SHORT else "",
        key_points=tuple(bank_text(language, p) for p in question.key_points),
    )


def option_views(question: Question, language: str) -> tuple[OptionView, ...]:
    if question.type is QuestionType.JUDGE:
        return (
            OptionView("true", t(language, "judge.true"), ""),
            OptionView("false", t(language, "judge.false"), ""),
        )
    return tuple(OptionView(letter, letter, bank_text(language, text)) for letter, text in question.options)


def correct_tokens(question: Question) -> tuple[str, ...]:
    if question.type.is_choice:
        return question.answer
    return ()


def response_label(question: Question, response: str, language: str) -> str:
    if question.type is QuestionType.JUDGE:
        return t(language, f"judge.{response}") if response in ("true", "false") else response
    if question.type is QuestionType.MULTI:
        return "、".join(response.split(",")) if language != "en" else ", ".join(response.split(","))
    return bank_text(language, response)


def correct_label(question: Question, language: str) -> str:
    if question.type is QuestionType.MULTI:
        return response_label(question, ",".join(question.answer), language)
    if question.type is QuestionType.JUDGE:
        return response_label(question, question.answer[0], language)
    if question.type is QuestionType.FILL:
        return bank_text(language, " / ".join(question.answer))
    return bank_text(language, question.answer[0])


async def build_reveal(
    store: Store, round_: Round, chat: Chat, question: Question, *, top_n: int
) -> RevealView:
    """The reveal of a closed round: correct answer, explanation, counts, who was right, streaks."""
    lang = chat.settings.language
    answers = await store.round_answers(round_.id)
    counts: Counter[str] = Counter()
    for answer in answers:
        if question.type is QuestionType.MULTI:
            counts.update(answer.response.split(","))
        else:
            counts[answer.response] += 1
    options = option_views(question, lang)
    correct = set(correct_tokens(question))
    option_counts = tuple(
        OptionCount(o.token, o.label, counts.get(o.token, 0), o.token in correct) for o in options
    )
    if not question.type.is_choice:
        right_count = sum(1 for a in answers if a.verdict == "correct")
        option_counts = (OptionCount("correct", "✅", right_count, True),)
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
        explanation=bank_text(lang, question.explanation),
        counts=option_counts,
        total_answers=len(answers),
        right=right,
        streaks=streaks,
        language=lang,
        message_ref=round_.message_ref,
        key_points=tuple(bank_text(lang, p) for p in question.key_points),
    )
