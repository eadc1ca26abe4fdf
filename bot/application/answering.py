"""Answering use cases for every platform: a click (an option, a multiple-choice toggle or
Submit, a form, a self-grade, 下一题 ▶) and a typed answer, each checked once (bot/clicks) and
recorded once. Adapters turn a platform event into a `Click` or a typed text and render what
comes back.

A typed text is graded only when it is an answer to the open question: "next" (`n`, `next`,
下一题, an empty line) asks the person's next practice question instead (unless it is the right
answer of a fill-in item); after their practice answer was graded, more text is chit-chat and
gets a hint; while a short answer awaits its self-grade, only the self-grade words count (and
anything else is told them); a self-grade word goes to the person's answer awaiting it, even
when another question was asked since.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.application.clicks import UNSTAR, Act, Click, admitted
from bot.application.presenting import response_label
from bot.application.quiz import Quiz
from bot.application.quiz_cache import RoundContext
from bot.application.requests import SelfGrade, SubmitAnswer
from bot.domain import grading
from bot.domain.kinds import (
    SELF_GRADE_LEVELS,
    SELF_GRADE_WORDS,
    AnswerStatus,
    ChatRef,
    InputKind,
    RevealPolicy,
    RoundKind,
    UserRef,
)
from bot.domain.question_types import TYPES
from bot.domain.records import StoredAnswer
from bot.domain.verdicts import Verdict
from bot.locales.i18n import LANGUAGES, simplified, t
from bot.ports.storage import StoreFull, StoreUnavailable
from bot.views.quiz import ReceiptView

if TYPE_CHECKING:
    from bot.application.replies import Reply

# What a person may type to grade their own short answer: the level ids, the buttons' labels in
# every language (matched below), and the words and numbers of SELF_GRADE_WORDS.
_TYPED_LEVELS = {word: level.value for level, words in SELF_GRADE_WORDS.items() for word in words}
# What a person may type for "next" besides the button's label in every language (an empty
# line is the console's Enter).
_NEXT_WORDS = frozenset({"", "n", "next", "下一题", "下一題", "下一个", "下一個", "下一道"})


@dataclass(frozen=True, slots=True)
class TextReply:
    """A sentence in the chat's language (nothing was recorded, or nothing more to show)."""

    text: str
    language: str
    closed: bool = False  # the click names nothing that takes answers: adapters may drop buttons
    view: object | None = None  # the study view the text lays out (a mock item): adapters add its buttons
    failed: bool = False  # the database was away: nothing was recorded (a page must not show it done)


@dataclass(frozen=True, slots=True)
class SelectionReply:
    """The selection so far, as its answer would show ("" when empty): a multiple choice's
    options, or an ordering's order with how many options are `left` to place (an ordering is
    submitted only once every option is placed)."""

    chosen: str
    language: str
    input_kind: InputKind = InputKind.CHOOSE_MANY
    left: int = 0

    @property
    def text(self) -> str:
        """The sentence that tells it (a toast, an ephemeral line)."""
        if self.input_kind is InputKind.ORDER:
            if not self.chosen:
                return t(self.language, "order.none")
            key = "order.current" if self.left else "order.complete"
            return t(self.language, key, order=self.chosen, left=self.left)
        if not self.chosen:
            return t(self.language, "select.none")
        return t(self.language, "select.current", choice=self.chosen)


@dataclass(frozen=True, slots=True)
class FormReply:
    """Open a form for a typed answer to this round (long: a short-answer question)."""

    round_id: int
    long: bool
    language: str


@dataclass(frozen=True, slots=True)
class ReceiptReply:
    receipt: ReceiptView

    @property
    def language(self) -> str:
        return self.receipt.language

    @property
    def recorded(self) -> bool:
        """An answer was stored (a live count may change)."""
        return self.receipt.status in (AnswerStatus.ACCEPTED, AnswerStatus.CHANGED)

    @property
    def awaits_self_grade(self) -> bool:
        return self.receipt.verdict == "pending" and self.receipt.status == AnswerStatus.ACCEPTED

    @property
    def offers_next(self) -> bool:
        """A practice answer graded for good (or just self-graded): 下一题 ▶ goes under it."""
        receipt = self.receipt
        if str(receipt.status) == "self_graded":
            return True
        return receipt.graded and receipt.status == AnswerStatus.ACCEPTED and receipt.verdict != "pending"

    @property
    def offers_cause(self) -> bool:
        """A wrong practice answer graded for good (a mistake): its cause buttons go under it."""
        return self.offers_next and self.receipt.verdict == "wrong"


@dataclass(frozen=True, slots=True)
class NextReply:
    """What "next" brought: the person's next practice question (a command's reply, shown as
    /quiz's), or the summary of the run that had nothing left."""

    reply: Reply

    @property
    def language(self) -> str:
        return self.reply.language


AnswerReply = TextReply | SelectionReply | FormReply | ReceiptReply | NextReply


def typed_level(text: str) -> str | None:
    """The self-grade level a typed text names, in any catalog language; None if none."""
    word = text.strip().casefold()
    if word in SELF_GRADE_LEVELS:
        return word
    if word in _TYPED_LEVELS:
        return _TYPED_LEVELS[word]
    for language in LANGUAGES:
        for level in SELF_GRADE_LEVELS:
            if word == t(language, f"button.self_{level}").casefold():
                return level
    return None


def is_next_word(text: str) -> bool:
    """Whether a typed text asks for the next question (in any catalog language)."""
    word = text.strip().rstrip("▶").strip().casefold()
    if word in _NEXT_WORDS:
        return True
    return any(word == t(lang, "button.next").rstrip("▶").strip().casefold() for lang in LANGUAGES)


def self_grade_words(language: str) -> str:
    """The self-grade words a chat is offered: 全对 / 部分 / 不会."""
    return " / ".join(t(language, f"button.self_{level}") for level in SELF_GRADE_LEVELS)


# The study tools' hooks (bot/application/study/use_cases.py; Application sets them when it has the tools):
# a typed text for the person's open mock in this chat (None: not theirs to take), and the ☆ on
# a question or reveal.
MockTyped = Callable[[ChatRef, UserRef, str], Awaitable["TextReply | None"]]
Favourite = Callable[[ChatRef, UserRef, str, bool], Awaitable["TextReply"]]  # on: star, else unstar
# ... and the drilling loop's (bot/application/study/drill.py): the person's next practice question here,
# and their practice round here whose answer awaits a self-grade.
# (a click names the round whose receipt carried the button).
NextQuestion = Callable[[ChatRef, UserRef, "int | None"], Awaitable["Reply"]]
PendingSelfGrade = Callable[[ChatRef, UserRef], Awaitable["int | None"]]
# ... and a mistake's cause from the buttons under a wrong answer (bot/domain/mastery.py CAUSES).
MistakeCause = Callable[[ChatRef, UserRef, str, str], Awaitable["TextReply"]]


class Answering:
    def __init__(self, quiz: Quiz) -> None:
        self.quiz = quiz
        self.mock_typed: MockTyped | None = None
        self.favourite: Favourite | None = None
        self.next_question: NextQuestion | None = None
        self.pending_self_grade: PendingSelfGrade | None = None
        self.mistake_cause: MistakeCause | None = None

    async def _closed(self, chat: ChatRef) -> TextReply:
        language = (await self.quiz.chat(chat)).settings.language
        return TextReply(t(language, "receipt.closed"), language, closed=True)

    def _unavailable(self, chat: ChatRef, fault: StoreUnavailable, *, answer: bool = True) -> TextReply:
        """The database is away (or its disk full): nothing was recorded, and the person is
        asked to try again (told their answer was not kept, or for a ☆ that nothing was done)."""
        language = self.quiz.known_language(chat)
        if isinstance(fault, StoreFull):
            key = "error.store_full" if answer else "error.store_full_command"
        else:
            key = "error.store_unavailable" if answer else "error.store_unavailable_command"
        return TextReply(t(language, key), language, failed=True)

    async def click(self, click: Click, user: UserRef, chat: ChatRef) -> AnswerReply:
        """A button press or a form submit (`click.token` carries a form's text)."""
        try:
            return await self._click(click, user, chat)
        except StoreUnavailable as fault:
            return self._unavailable(chat, fault, answer=click.act is not Act.FAVOURITE)

    async def _click(self, click: Click, user: UserRef, chat: ChatRef) -> AnswerReply:
        context = await admitted(self.quiz, click)
        if context is None:
            return await self._closed(chat)
        if click.act is Act.SELF_GRADE:
            return await self._self_grade(context, user, click.token or "")
        if click.act is Act.FAVOURITE:  # open or closed: a reveal's star works too
            if self.favourite is None:
                return await self._closed(chat)
            return await self.favourite(chat, user, context.question.id, click.token != UNSTAR)
        if click.act is Act.CAUSE:  # on the receipt of a graded answer: the round may be closed
            if self.mistake_cause is None:
                return await self._closed(chat)
            return await self.mistake_cause(chat, user, context.question.id, click.token or "")
        if click.act is Act.NEXT:  # the round may have closed since: the run goes on
            if self.next_question is None:
                return await self._closed(chat)
            return NextReply(await self.next_question(chat, user, context.round.id))
        # The round is read once per click (admitted, above); a submit checks it still takes
        # answers itself (and the commit refuses a closed round), a tap or a form here.
        submits = click.act not in (Act.TOGGLE, Act.UNDO, Act.OPEN_FORM)
        if not submits and not context.round.takes_answers(self.quiz.clock.now()):
            return await self._closed(chat)
        round_id = context.round.id
        selections = self.quiz.selections
        if click.act is Act.TOGGLE:
            return _selection(context, await selections.toggle(round_id, user, click.token or ""))
        if click.act is Act.UNDO:
            return _selection(context, await selections.undo(round_id, user))
        if click.act is Act.SUBMIT:
            shown = _selection(context, await selections.get(round_id, user))
            if not shown.chosen or shown.left:  # nothing yet, or an order not finished: kept
                return shown
            chosen = await selections.take(round_id, user)
            if not chosen:  # taken meanwhile (a second Submit)
                return _selection(context, chosen)
            return await self._submit(round_id, user, ",".join(chosen), context)
        if click.act is Act.OPEN_FORM:
            self_graded = TYPES[context.question.type].input_kind is InputKind.SELF_GRADED
            return FormReply(round_id, self_graded, context.chat.settings.language)
        return await self._submit(round_id, user, click.token or "", context)

    async def typed(self, chat: ChatRef, user: UserRef, text: str, *, round_id: int | None = None,
                    reply_to: str | None = None) -> AnswerReply:  # fmt: skip
        """A typed answer in `chat`: to `round_id` (an adapter's own index of what it posted),
        to the question message `reply_to` answers, else to the person's mock exam open in this
        chat (unless a question was asked after it began), else to the chat's open question. A
        self-grade word after a short answer grades it instead of answering again."""
        try:
            return await self._typed(chat, user, text, round_id, reply_to)
        except StoreUnavailable as fault:
            return self._unavailable(chat, fault)

    async def _typed(
        self, chat: ChatRef, user: UserRef, text: str, round_id: int | None, reply_to: str | None
    ) -> AnswerReply:
        if round_id is None and reply_to is None and self.mock_typed is not None:
            taken = await self.mock_typed(chat, user, text)
            if taken is not None:
                return taken
        context = await self._round_for_text(chat, round_id, reply_to)
        own = await self._own_answer(context, user) if context is not None else None
        level = typed_level(text)
        if context is not None and own is not None and own.verdict == Verdict.PENDING:
            if level is not None:
                return await self._self_grade(context, user, level)
            language = context.chat.settings.language  # not an answer again: the words that grade it
            return TextReply(t(language, "selfgrade.how", words=self_grade_words(language)), language)
        # (a digit is no self-grade word here: it may well answer the question now open)
        if level is not None and self.pending_self_grade is not None and not text.strip().isdigit():
            pending = await self.pending_self_grade(chat, user)  # asked for another question since
            earlier = await self.quiz.round_context(pending) if pending is not None else None
            if earlier is not None and (context is None or earlier.round.id != context.round.id):
                return await self._self_grade(earlier, user, level)
        practice = context is None or context.round.kind is RoundKind.PRACTICE
        if self.next_question is not None and practice and is_next_word(text):
            if context is None or own is not None or not _right_typed_answer(context, text):
                return NextReply(await self.next_question(chat, user, None))
        if context is None:
            language = (await self.quiz.chat(chat)).settings.language
            return TextReply(t(language, "error.no_round"), language)
        if own is not None and context.round.reveal is RevealPolicy.PRACTICE:
            language = context.chat.settings.language  # graded already: more text is no answer
            return TextReply(t(language, "drill.answered_hint"), language)
        return await self._submit(context.round.id, user, text)

    async def _round_for_text(self, chat: ChatRef, round_id: int | None,
                              reply_to: str | None) -> RoundContext | None:  # fmt: skip
        if round_id is None and reply_to is not None:
            found = await self.quiz.round_for_message(chat, reply_to)
            round_id = found.id if found else None
            if round_id is None:
                return None
        if round_id is None:
            current = await self.quiz.current_round(chat)
            round_id = current.id if current else None
        context = await self.quiz.round_context(round_id) if round_id is not None else None
        where = context.chat.ref if context is not None else None
        if where is None or (where.platform, where.chat_key) != (chat.platform, chat.chat_key):
            return None
        return context

    async def _own_answer(self, context: RoundContext, user: UserRef) -> StoredAnswer | None:
        """The person's answer in a practice round or to a self-graded question (None: none yet,
        or a round whose answers may change, where it does not matter here)."""
        if context.round.kind is not RoundKind.PRACTICE and (
            TYPES[context.question.type].input_kind is not InputKind.SELF_GRADED
        ):
            return None
        return await self.quiz.store.user_answer(context.round.id, await self.quiz.user_id(user))

    async def _submit(
        self, round_id: int, user: UserRef, response: str, context: RoundContext | None = None
    ) -> ReceiptReply:
        return ReceiptReply(await self.quiz.submit(SubmitAnswer(round_id, user, response), context))

    async def _self_grade(self, context: RoundContext, user: UserRef, level: str) -> ReceiptReply:
        return ReceiptReply(await self.quiz.self_grade(SelfGrade(context.round.id, user, level)))


def _selection(context: RoundContext, chosen: tuple[str, ...]) -> SelectionReply:
    """The selection as its answer would show (read as the type reads a typed answer: a multiple
    choice's letters in option order, an ordering's in the order tapped), and for an ordering
    how many options are still to place."""
    question, language = context.question, context.chat.settings.language
    rules = TYPES[question.type]
    label = response_label(question, rules.read(question, ",".join(chosen)), language) if chosen else ""
    ordered = rules.input_kind is InputKind.ORDER
    left = len(question.options) - len(chosen) if ordered else 0
    return SelectionReply(label, language, rules.input_kind, left)


def _right_typed_answer(context: RoundContext, text: str) -> bool:
    """A "next" word that is the right answer of the open fill-in item (its answer may be `n`)."""
    if TYPES[context.question.type].input_kind is not InputKind.TYPED:
        return False
    try:
        grade = grading.grade(context.question, simplified(text), partial_credit=context.round.partial_credit)
    except grading.InvalidResponse:
        return False
    return grade.verdict is Verdict.CORRECT
