"""Whether a button press or a form submit may act on the round it names: the one rule every
chat platform applies before the core records, toggles or shows anything.

A platform's payload (a Discord custom_id, a Telegram callback_data) is written by the client
and can be forged, so what it names is believed only when the click also came from where the
bot put that button: the round's own chat, the round's own message (a self-grade or 下一题 button
sits on a receipt instead, in the same chat), and a message that really carries the control. The
adapters pass plain values; anything that does not fit is answered "closed" and changes nothing.

A mock exam's buttons (MockClick) name a paper and an item instead of a round: believed only when
the paper is the clicker's own and was sat in this chat, the message really carries the button,
and an answer or a move names the item the paper shows now (a button left on an older message is
stale). bot/application/study/mock_exam.py applies that rule (`Mocks.click`); anything else changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.application.presenting import option_views
from bot.application.quiz import Quiz
from bot.application.quiz_cache import RoundContext
from bot.domain.kinds import SELF_GRADE_LEVELS, InputKind, Platform, RoundKind
from bot.domain.mastery import CAUSES as CAUSES  # the cause buttons, for the chat adapters
from bot.domain.question_types import TYPES


@dataclass(frozen=True, slots=True)
class WeakClick:
    """The "practise these" button under /weak. It names no round and nobody's data: it starts
    the clicker's own weak-point run in the chat it was clicked in, as `/quiz weak` typed there
    would. Believed only from a message that carries it (`carried`)."""

    platform: Platform
    chat_key: str
    control: str
    controls: frozenset[str] | None  # the payloads the message carries; None: the platform cannot say

    @property
    def carried(self) -> bool:
        return self.controls is None or self.control in self.controls


class Act(StrEnum):
    ANSWER = "answer"  # a single-choice or true/false option
    TOGGLE = "toggle"  # an option added to the selection (a multiple choice's, an ordering's) or taken out
    UNDO = "undo"  # an ordering's last placed option taken out again
    SUBMIT = "submit"  # submit the selection
    OPEN_FORM = "open_form"  # open the form for a typed answer
    FORM = "form"  # the typed answer, submitted from that form
    SELF_GRADE = "self_grade"  # grade one's own short answer against the reference
    FAVOURITE = "favourite"  # ☆: star the round's question for the clicker (question or reveal)
    NEXT = "next"  # 下一题 ▶ under a graded practice answer: the clicker's next practice question
    CAUSE = "cause"  # a mistake's cause (概念不清 / 粗心 / …) under a wrong answer's receipt


# A ☆ click's token: none stars the question (the chats' ☆); UNSTAR takes the star off (the web
# app's ★, a toggle).
UNSTAR = "off"


# Which input kinds each act answers (a question's kind comes from its type's module).
_KINDS: dict[Act, tuple[InputKind, ...]] = {
    Act.ANSWER: (InputKind.CHOOSE_ONE, InputKind.TRUE_FALSE),
    Act.TOGGLE: (InputKind.CHOOSE_MANY, InputKind.ORDER),
    Act.UNDO: (InputKind.ORDER,),
    Act.SUBMIT: (InputKind.CHOOSE_MANY, InputKind.ORDER),
    # an order may be typed too (a form where the platform has one)
    Act.OPEN_FORM: (InputKind.TYPED, InputKind.SELF_GRADED, InputKind.ORDER),
    Act.FORM: (InputKind.TYPED, InputKind.SELF_GRADED, InputKind.ORDER),
    Act.SELF_GRADE: (InputKind.SELF_GRADED,),
    Act.FAVOURITE: tuple(InputKind),
    Act.NEXT: tuple(InputKind),
    Act.CAUSE: tuple(InputKind),
}


@dataclass(frozen=True, slots=True)
class Click:
    """What the platform says about one click, as plain values.

    `control` is the id of the control that must be on the message for this click to be real
    (the clicked button's payload; for a form, the button that opens it); `controls` are the
    ids the message carries, or None when the platform does not say (then the message must be
    the round's stored message).
    """

    round_id: int
    platform: Platform
    chat_key: str
    message_ref: str | None
    act: Act
    token: str | None
    control: str
    controls: frozenset[str] | None


def admits(context: RoundContext, click: Click) -> bool:
    """The round's chat, a control its question could have, and the message that carries it."""
    ref = context.chat.ref
    if context.round.id != click.round_id:
        return False
    if str(ref.platform) != str(click.platform) or ref.chat_key != click.chat_key:
        return False
    question = context.question
    if TYPES[question.type].input_kind not in _KINDS[click.act]:
        return False
    if click.act in (Act.ANSWER, Act.TOGGLE):
        tokens = {o.token for o in option_views(question, context.chat.settings.language)}
        if click.token not in tokens:
            return False
    if click.act is Act.SELF_GRADE and click.token not in SELF_GRADE_LEVELS:
        return False
    if click.act is Act.CAUSE and click.token not in CAUSES:
        return False
    if click.act is Act.FAVOURITE and click.token not in (None, UNSTAR):
        return False
    if click.controls is not None and click.control not in click.controls:
        return False
    if click.act is Act.NEXT and context.round.kind is not RoundKind.PRACTICE:
        return False  # only a practice answer's receipt carries it
    if click.act in (Act.SELF_GRADE, Act.FAVOURITE, Act.NEXT, Act.CAUSE):
        # a receipt, or a question or its reveal, in the round's chat (checked above)
        return click.message_ref is not None
    stored = context.round.message_ref
    if stored is not None:
        return click.message_ref == stored
    # Posted but its reference not stored yet (the click beat the write): only a message that
    # carries this round's control, which the bot puts on no other message, will do.
    return click.controls is not None and click.message_ref is not None


async def admitted(quiz: Quiz, click: Click) -> RoundContext | None:
    """The round the click may act on (open or not: the use cases say "closed"), else None."""
    context = await quiz.round_context(click.round_id)
    if context is None or not admits(context, click):
        return None
    return context


# ---------------------------------------------------------------- mock exams


class MockAct(StrEnum):
    PICK = "p"  # an option (or true/false): answer it, or toggle it on a multiple choice
    NEXT = "n"  # the next item
    BACK = "b"  # the previous item
    SHEET = "s"  # the answer sheet
    GO = "g"  # back to the paper at `item` (from the sheet or the hand-in prompt)
    SUBMIT = "h"  # hand in (asks first when items are unanswered)
    CONFIRM = "c"  # hand in although items are unanswered
    REVIEW = "r"  # open item `item` of a handed-in mock, from its report
    OPEN_FORM = "t"  # open a form for a typed answer (platforms with forms; checked at its submit)
    TYPE = "w"  # the typed answer from that form (`token` carries the text)


# The acts that name the item on screen: refused when the mock shows another one by now.
ON_ITEM = frozenset({MockAct.PICK, MockAct.NEXT, MockAct.BACK, MockAct.TYPE})
# The acts on a handed-in mock (its report); all others need the mock still open.
AFTER = frozenset({MockAct.REVIEW})


@dataclass(frozen=True, slots=True)
class MockClick:
    mock_id: int
    item: int  # 1-based number on the paper
    act: MockAct
    token: str | None
    platform: Platform
    chat_key: str
    control: str  # the clicked button's payload
    controls: frozenset[str] | None  # the payloads the message carries; None: the platform cannot say

    @property
    def carried(self) -> bool:
        return self.controls is None or self.control in self.controls
