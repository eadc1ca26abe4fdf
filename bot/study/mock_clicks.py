"""A button under a mock question, its answer sheet, hand-in prompt or report, as plain values,
and whether it may act: the one rule every chat platform's mock buttons go through.

A payload (Telegram callback_data, Discord custom_id) is written by the client and can be forged,
so what it names is believed only when it fits: the mock is the clicker's own and was sat in this
chat, the message really carries the button, and an answer or a move names the item the mock
shows now (a button left on an older message is stale). Anything else is refused and changes
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.kinds import Platform


class MockAct(StrEnum):
    PICK = "p"  # an option (or true/false): answer it, or toggle it on a multiple choice
    NEXT = "n"  # the next item
    BACK = "b"  # the previous item
    SHEET = "s"  # the answer sheet
    GO = "g"  # back to the paper at `item` (from the sheet or the hand-in prompt)
    SUBMIT = "h"  # hand in (asks first when items are unanswered)
    CONFIRM = "c"  # hand in although items are unanswered
    REVIEW = "r"  # open item `item` of a handed-in mock, from its report


# The acts that name the item on screen: refused when the mock shows another one by now.
ON_ITEM = frozenset({MockAct.PICK, MockAct.NEXT, MockAct.BACK})
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
