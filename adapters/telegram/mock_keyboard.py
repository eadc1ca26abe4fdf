"""The inline keyboards of a mock exam: an item's answer buttons (the same one-button-per-option
layout as a practice question, a multiple choice's chosen options ticked, an order's numbered
by their place; a tap on a placed option takes it out again) with ◀ / ▶, the sheet
and hand-in; the sheet's and the hand-in prompt's way back or on; the report's wrong items, each
a button that opens it. Every button names its mock and item (adapters/telegram/callback_data.py);
the core decides whether a click may act (bot/application/clicks.py)."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram import callback_data
from bot.application.app import (
    MockConfirmView,
    MockQuestionView,
    MockReportView,
    MockReviewView,
    MockSheetView,
)
from bot.application.clicks import MockAct
from bot.domain.kinds import InputKind
from bot.locales.i18n import t

ROW = 5  # answer and item buttons a row: fits a phone
MAX_ITEMS = 20  # wrong items offered as buttons under a report (the rest: /mock review N)


def _button(
    label: str, mock_id: int, item: int, act: MockAct, token: str | None = None
) -> InlineKeyboardButton:
    return InlineKeyboardButton(label, callback_data=callback_data.mock(mock_id, item, act.value, token))


def _rows(buttons: list[InlineKeyboardButton]) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + ROW] for i in range(0, len(buttons), ROW)]


def mock_keyboard(view: object) -> InlineKeyboardMarkup | None:
    """The keyboard of a mock view; None for any other view."""
    if isinstance(view, MockQuestionView):
        return _question(view)
    if isinstance(view, MockSheetView):
        return InlineKeyboardMarkup([[
            _button(t(view.language, "button.mock_continue"), view.mock_id, view.position, MockAct.GO),
            _button(t(view.language, "button.mock_submit"), view.mock_id, view.position, MockAct.SUBMIT),
        ]])  # fmt: skip
    if isinstance(view, MockConfirmView):
        back = view.unanswered[0] if view.unanswered else view.position
        return InlineKeyboardMarkup([[
            _button(t(view.language, "button.mock_confirm"), view.mock_id, view.position, MockAct.CONFIRM),
            _button(t(view.language, "button.mock_continue"), view.mock_id, back, MockAct.GO),
        ]])  # fmt: skip
    if isinstance(view, MockReportView):
        numbers = [p.number for p in view.pending] + [w.number for w in view.wrong]
        buttons = [_button(str(n), view.mock_id, n, MockAct.REVIEW) for n in numbers[:MAX_ITEMS]]
        return InlineKeyboardMarkup(_rows(buttons)) if buttons else None
    if isinstance(view, MockReviewView):
        later = [n for n in view.wrong if n > view.number]
        if not later:
            return None
        label = t(view.language, "button.mock_next")
        return InlineKeyboardMarkup([[_button(label, view.mock_id, later[0], MockAct.REVIEW)]])
    return None


def picked(view: MockQuestionView, token: str) -> str:
    """What goes before a chosen option's label: ✓ for a multiple choice, its place for an order."""
    if token not in view.chosen:
        return ""
    return f"{view.chosen.index(token) + 1}· " if view.input_kind is InputKind.ORDER else "✓ "


def _question(view: MockQuestionView) -> InlineKeyboardMarkup:
    lang, mock_id, number = view.language, view.mock_id, view.number
    answers = [_button(picked(view, token) + label, mock_id, number, MockAct.PICK, token)
               for token, label in view.buttons]  # fmt: skip
    moves = []
    if number > 1:
        moves.append(_button(t(lang, "button.mock_back"), mock_id, number, MockAct.BACK))
    moves.append(_button(t(lang, "button.mock_sheet"), mock_id, number, MockAct.SHEET))
    if number < view.count:
        moves.append(_button(t(lang, "button.mock_next"), mock_id, number, MockAct.NEXT))
    submit = [_button(t(lang, "button.mock_submit"), mock_id, number, MockAct.SUBMIT)]
    return InlineKeyboardMarkup([*_rows(answers), moves, submit])
