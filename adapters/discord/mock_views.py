"""A mock exam's buttons on Discord: an item's answer buttons (one per option, as a practice
question has; a multiple choice's chosen ones green, an order's green and numbered by place, with
作答 to type it) with ◀ / ▶, the sheet and hand-in; the
sheet's and the hand-in prompt's way back or on; the report's wrong items, each opening it.

They are DynamicItems (their custom_id says mock, item, act and choice), so they work after a
restart; a click only forwards those to the client's `answering`, and the core decides whether
it may act (bot/application/clicks.py).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from adapters.discord import custom_ids as ids
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

Style = discord.ButtonStyle
ROW_WIDTH = 5
MAX_ITEMS = 20  # wrong items offered as buttons under a report: four rows (the rest: /mock review N)


class MockButton(discord.ui.DynamicItem[discord.ui.Button], template=ids.TEMPLATES[ids.MOCK]):
    def __init__(
        self,
        mock_key: str,
        item_key: str,
        act: str,
        token: str | None = None,
        *,
        label: str = "?",
        style: Style = Style.secondary,
        row: int | None = None,
    ) -> None:
        custom_id = ":".join([ids.PREFIX, ids.MOCK, mock_key, item_key, act] + ([token] if token else []))
        super().__init__(
            discord.ui.Button(label=label[:80] or "?", style=style, custom_id=custom_id, row=row)
        )
        self.mock_key, self.item_key, self.act, self.token = mock_key, item_key, act, token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MockButton:
        groups = match.groupdict()
        label = getattr(item, "label", None) or "?"
        return cls(groups["mock"], groups["item"], groups["act"], groups.get("token"), label=label)

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.client.answering.on_mock(  # type: ignore[attr-defined]
            interaction, self.mock_key, self.item_key, self.act, self.token
        )


def _button(label: str, mock_id: int, item: int, act: MockAct, token: str | None = None, *,
            style: Style = Style.secondary, row: int | None = None) -> MockButton:  # fmt: skip
    return MockButton(str(mock_id), str(item), act.value, token, label=label, style=style, row=row)


def mock_buttons(view: object) -> discord.ui.View | None:
    """The buttons of a mock view; None for any other view."""
    buttons: discord.ui.View = discord.ui.View(timeout=None)
    if isinstance(view, MockQuestionView):
        _question(buttons, view)
    elif isinstance(view, MockSheetView):
        lang = view.language
        buttons.add_item(_button(t(lang, "button.mock_continue"), view.mock_id, view.position, MockAct.GO,
                                 style=Style.primary))  # fmt: skip
        buttons.add_item(_button(t(lang, "button.mock_submit"), view.mock_id, view.position, MockAct.SUBMIT))
    elif isinstance(view, MockConfirmView):
        lang, back = view.language, view.unanswered[0] if view.unanswered else view.position
        buttons.add_item(_button(t(lang, "button.mock_confirm"), view.mock_id, view.position, MockAct.CONFIRM,
                                 style=Style.danger))  # fmt: skip
        buttons.add_item(_button(t(lang, "button.mock_continue"), view.mock_id, back, MockAct.GO,
                                 style=Style.primary))  # fmt: skip
    elif isinstance(view, MockReportView):
        numbers = [p.number for p in view.pending] + [w.number for w in view.wrong]
        for i, number in enumerate(numbers[:MAX_ITEMS]):
            buttons.add_item(_button(str(number), view.mock_id, number, MockAct.REVIEW, row=i // ROW_WIDTH))
    elif isinstance(view, MockReviewView):
        later = [n for n in view.wrong if n > view.number]
        if later:
            buttons.add_item(
                _button(t(view.language, "button.mock_next"), view.mock_id, later[0], MockAct.REVIEW)
            )
    else:
        return None
    return buttons if buttons.children else None


class MockAnswerModal(discord.ui.Modal):
    """The typed answer to a mock item (fill in, short answer), opened by its 作答 button. Its
    submit is handled by the client's on_interaction (from the custom_id), so it still counts
    after a restart; the core checks it as the click of the button that opened it."""

    def __init__(self, mock_id: int, item: int, language: str) -> None:
        title = t(language, "modal.title")[:45]
        super().__init__(title=title, custom_id=f"{ids.PREFIX}:{ids.MOCK_FORM}:{mock_id}:{item}", timeout=900)
        self.add_item(discord.ui.TextInput(
            label=t(language, "modal.label")[:45], custom_id=ids.ANSWER_INPUT,
            style=discord.TextStyle.paragraph, max_length=1000,
        ))  # fmt: skip

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Answered in on_interaction; nothing to do here."""


TYPED = (InputKind.TYPED, InputKind.SELF_GRADED)


def _question(buttons: discord.ui.View, view: MockQuestionView) -> None:
    lang, mock_id, number = view.language, view.mock_id, view.number
    if view.input_kind in TYPED:  # no options: a form takes the typed answer
        label = t(lang, "button.answer")
        buttons.add_item(_button(label, mock_id, number, MockAct.OPEN_FORM, style=Style.primary, row=0))
    chosen, ordered = view.chosen, view.input_kind is InputKind.ORDER
    options = view.buttons[: 3 * ROW_WIDTH]  # three rows of options; the last two for moving on
    for i, (token, label) in enumerate(options):
        style = Style.success if token in chosen else Style.primary
        if ordered and token in chosen:  # an order's place before the label
            label = f"{chosen.index(token) + 1}· {label}"
        buttons.add_item(
            _button(label, mock_id, number, MockAct.PICK, token, style=style, row=i // ROW_WIDTH)
        )
    row = (len(options) - 1) // ROW_WIDTH + 1 if options else 0
    if number > 1:
        buttons.add_item(_button(t(lang, "button.mock_back"), mock_id, number, MockAct.BACK, row=row))
    buttons.add_item(_button(t(lang, "button.mock_sheet"), mock_id, number, MockAct.SHEET, row=row))
    if number < view.count:
        buttons.add_item(_button(t(lang, "button.mock_next"), mock_id, number, MockAct.NEXT, row=row))
    if ordered:  # an order may be typed too
        label = t(lang, "button.answer")
        buttons.add_item(_button(label, mock_id, number, MockAct.OPEN_FORM, row=row + 1))
    submit = t(lang, "button.mock_submit")
    buttons.add_item(_button(submit, mock_id, number, MockAct.SUBMIT, style=Style.danger, row=row + 1))
