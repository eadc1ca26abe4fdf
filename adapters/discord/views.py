"""Buttons (discord.ui.DynamicItem templates, so they outlive a restart) and the answer modal.

Each button only forwards its round and choice to the client's `answering` service.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from adapters.discord import custom_ids as ids
from bot.application.app import WeakView
from bot.application.clicks import CAUSES
from bot.domain.kinds import InputKind, OptionView
from bot.locales.i18n import t
from bot.views.quiz import QuestionView, RevealView

ROW_WIDTH = 5
ROWS = 5  # Discord: at most 5 rows of 5 buttons on a message
Style = discord.ButtonStyle


TYPED = (InputKind.TYPED, InputKind.SELF_GRADED)


def _shown(options: tuple[OptionView, ...]) -> tuple[OptionView, ...]:
    """As many options as get a button: 20, the last row being for Submit and the ☆."""
    return options[: (ROWS - 1) * ROW_WIDTH]


def _button(custom_id: str, label: str, style: Style, disabled: bool, row: int | None) -> discord.ui.Button:
    label = label[:80] or "?"
    return discord.ui.Button(label=label, style=style, custom_id=custom_id, disabled=disabled, row=row)


class _StudyButton(discord.ui.DynamicItem[discord.ui.Button], template=r"(?!)"):
    """The shared behaviour; only the subclasses below, with real templates, are registered."""

    kind = ""

    def __init__(
        self,
        round_key: str,
        arg: str | None = None,
        *,
        label: str = "?",
        style: Style = Style.secondary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        custom_id = ids.make(self.kind, round_key, arg)
        super().__init__(_button(custom_id, label, style, disabled, row))
        self.round_key = round_key
        self.arg = arg

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> _StudyButton:
        groups = match.groupdict()
        label = getattr(item, "label", None) or "?"
        style = getattr(item, "style", Style.secondary)
        return cls(groups["round"], groups.get("arg"), label=label, style=style)

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.client.answering.on_button(interaction, self.kind, self.round_key, self.arg)  # type: ignore[attr-defined]


class AnswerButton(_StudyButton, template=ids.TEMPLATES[ids.ANSWER]):
    kind = ids.ANSWER


class ToggleButton(_StudyButton, template=ids.TEMPLATES[ids.TOGGLE]):
    kind = ids.TOGGLE


class SubmitButton(_StudyButton, template=ids.TEMPLATES[ids.SUBMIT]):
    kind = ids.SUBMIT


class UndoButton(_StudyButton, template=ids.TEMPLATES[ids.UNDO]):
    """撤销 under an ordering: the clicker's last placed option comes out again."""

    kind = ids.UNDO


class ModalButton(_StudyButton, template=ids.TEMPLATES[ids.MODAL]):
    kind = ids.MODAL


class GradeButton(_StudyButton, template=ids.TEMPLATES[ids.GRADE]):
    kind = ids.GRADE


class StarButton(_StudyButton, template=ids.TEMPLATES[ids.STAR]):
    """☆ on a question or its reveal: never an answer, it stars the question for the clicker."""

    kind = ids.STAR


class NextButton(_StudyButton, template=ids.TEMPLATES[ids.NEXT]):
    """下一题 ▶ under a graded practice answer: asks the clicker's next practice question."""

    kind = ids.NEXT


class CauseButton(_StudyButton, template=ids.TEMPLATES[ids.CAUSE]):
    """A mistake's cause (概念不清 / 粗心 / 没见过 / 记错) under a wrong practice answer's receipt."""

    kind = ids.CAUSE


class WeakButton(_StudyButton, template=ids.TEMPLATES[ids.WEAK]):
    """"Practise these ▶" under /weak: starts the clicker's weak-point run in the channel."""

    kind = ids.WEAK


DYNAMIC_ITEMS = (AnswerButton, ToggleButton, SubmitButton, UndoButton, ModalButton, GradeButton, StarButton,
                 NextButton, CauseButton, WeakButton)  # fmt: skip


class AnswerModal(discord.ui.Modal):
    """The text answer to a fill or short question. Its submit is handled by the client's
    on_interaction (from the custom_id), so a submit still counts if the bot restarted meanwhile."""

    def __init__(self, round_id: int, language: str, *, long: bool) -> None:
        title = t(language, "modal.title")[:45]
        super().__init__(title=title, custom_id=ids.make(ids.FORM, round_id), timeout=900)
        self.add_item(discord.ui.TextInput(
            label=t(language, "modal.label")[:45], custom_id=ids.ANSWER_INPUT,
            style=discord.TextStyle.paragraph if long else discord.TextStyle.short,
            max_length=2000 if long else 200,
        ))  # fmt: skip

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Answered in on_interaction; nothing to do here."""


def _rows(count: int) -> list[int]:
    return [i // ROW_WIDTH for i in range(count)]


def _star(key: str, language: str, row: int | None = None) -> StarButton:
    return StarButton(key, label=t(language, "button.favourite"), style=Style.secondary, row=row)


def star_buttons(round_id: int, language: str) -> discord.ui.View:
    """The ☆ alone: under a question answered by reactions, and its reveal."""
    buttons: discord.ui.View = discord.ui.View(timeout=None)
    buttons.add_item(_star(str(round_id), language))
    return buttons


def question_buttons(view: QuestionView) -> discord.ui.View:
    """By input kind: one button per option (choose one, true/false), toggles + Submit (choose
    many), options tapped in order + 撤销, Submit and Answer to type it (an order), or Answer
    opening a form (typed, self-graded); and the ☆ on every question."""
    return _buttons(view.language, str(view.round_id), view.input_kind, view.options)


def revealed_buttons(view: RevealView) -> discord.ui.View:
    """The question's buttons, disabled, the right options green and each with its count (an
    order's plain: the reveal says the right order); the ☆ stays clickable."""
    counts = {c.token: c.count for c in view.counts}
    return _buttons(view.language, str(view.round_id), view.input_kind, view.options,
                    revealed=(view.correct_tokens, counts))  # fmt: skip


def _buttons(lang: str, key: str, kind: InputKind, options: tuple[OptionView, ...],
             revealed: tuple[tuple[str, ...], dict[str, int]] | None = None) -> discord.ui.View:  # fmt: skip
    buttons: discord.ui.View = discord.ui.View(timeout=None)
    done = revealed is not None
    form_style = Style.secondary if done else Style.primary
    answer_form = ModalButton(key, label=t(lang, "button.answer"), style=form_style, disabled=done, row=0)
    if kind in TYPED:
        buttons.add_item(answer_form)
        buttons.add_item(_star(key, lang, row=0))
        return buttons
    picks = kind in (InputKind.CHOOSE_MANY, InputKind.ORDER)
    cls: type[_StudyButton] = ToggleButton if picks else AnswerButton
    shown = _shown(options)
    rows = _rows(len(shown))
    for option, row in zip(shown, rows, strict=True):
        label, style = option.label, Style.secondary if picks else Style.primary
        if revealed is not None and kind is InputKind.ORDER:
            style = Style.secondary  # the reveal's text says the right order
        elif revealed is not None:
            right, counts = revealed
            label = f"{label} · {counts.get(option.token, 0)}"
            style = Style.success if option.token in right else Style.secondary
        buttons.add_item(cls(key, option.token, label=label, style=style, disabled=done, row=row))
    last = rows[-1] + 1 if rows else 0
    if kind is InputKind.ORDER:
        buttons.add_item(UndoButton(key, label=t(lang, "button.undo"), disabled=done, row=last))
    if picks:
        submit = t(lang, "button.submit")
        style = Style.secondary if done else Style.success
        buttons.add_item(SubmitButton(key, label=submit, style=style, disabled=done, row=last))
    if kind is InputKind.ORDER:  # an order may be typed too
        answer_form.row = last
        buttons.add_item(answer_form)
    buttons.add_item(_star(key, lang, row=last))
    return buttons


def self_grade_buttons(round_id: int, language: str) -> discord.ui.View:
    buttons: discord.ui.View = discord.ui.View(timeout=None)
    styles = {"full": Style.success, "half": Style.primary, "zero": Style.danger}
    for level in ids.SELF_LEVELS:
        label = t(language, f"button.self_{level}")
        buttons.add_item(GradeButton(str(round_id), level, label=label, style=styles[level]))
    return buttons


def next_buttons(round_id: int, language: str, *, causes: bool = False) -> discord.ui.View:
    """下一题 ▶ under a graded practice answer's receipt; under a wrong one (`causes`), a row of
    buttons that tag the mistake's cause."""
    buttons: discord.ui.View = discord.ui.View(timeout=None)
    buttons.add_item(NextButton(str(round_id), label=t(language, "button.next"), style=Style.primary, row=0))
    if causes:
        for cause in CAUSES:
            buttons.add_item(CauseButton(str(round_id), cause, label=t(language, f"cause.{cause}"), row=1))
    return buttons


def weak_buttons(view: object) -> discord.ui.View | None:
    """"Practise these ▶" under /weak's list (when it lists anything)."""
    if not isinstance(view, WeakView) or not view.weakest:
        return None
    buttons: discord.ui.View = discord.ui.View(timeout=None)
    buttons.add_item(WeakButton("0", label=t(view.language, "button.weak_practice"), style=Style.primary))
    return buttons
