"""What a mock exam's item and hand-in prompt tell a person to do, on each kind of chat.

Telegram shows buttons and reads messages (press, or send); the console has no buttons (type);
Discord shows buttons but its bot reads no messages (press, or run a command): there, no hint
may ask for a message that nobody would read.
"""

from __future__ import annotations

import re

import pytest

from bot.domain.kinds import InputKind
from bot.locales.i18n import LANGUAGES
from bot.views.mock_exam_text import render_mock_confirm, render_mock_question
from bot.views.quiz_text import CONSOLE, HTML, PLAIN, Markup
from bot.views.study import MockConfirmView, MockIntro, MockQuestionView

BUTTONS_ONLY = Markup(escape=lambda s: s, bold=lambda s: s, italic=lambda s: s, reads_messages=False)
_QTYPE = {
    InputKind.CHOOSE_ONE: "single", InputKind.CHOOSE_MANY: "multi", InputKind.ORDER: "ordering",
    InputKind.TRUE_FALSE: "judge", InputKind.TYPED: "fill", InputKind.SELF_GRADED: "short",
}  # fmt: skip
# "Send", in each language's words, as the hints for chats that read messages say it.
SEND = re.compile(r"\bsend\b|发送|傳送", re.IGNORECASE)


def _item(language: str, kind: InputKind) -> MockQuestionView:
    options = (("A", "甲"), ("B", "乙")) if kind not in (InputKind.TYPED, InputKind.SELF_GRADED) else ()
    intro = MockIntro("人工智能训练师", (("single", 1, 1.0),), 1.0, 90, 0.6, resumed=False)
    return MockQuestionView(
        language, 3, 10, _QTYPE[kind], kind, 1.0, "题干", options, None, False, 600, intro=intro,
        buttons=tuple((letter, letter) for letter, _ in options),
    )  # fmt: skip


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", list(InputKind))
def test_each_chat_is_told_what_it_can_do(language: str, kind: InputKind) -> None:
    on_telegram = render_mock_question(_item(language, kind), HTML)
    on_console = render_mock_question(_item(language, kind), CONSOLE)
    on_discord = render_mock_question(_item(language, kind), BUTTONS_ONLY)
    assert SEND.search(on_telegram)  # a message is read there: press, or send
    assert not SEND.search(on_discord), on_discord
    assert "/mock 3" in on_discord or "/mock" in on_discord  # the command is always there
    assert on_discord != on_telegram and on_console != on_discord
    assert SEND.search(render_mock_question(_item(language, kind), PLAIN))  # plain: as Telegram


def test_a_one_question_paper_in_one_section_reads_as_english() -> None:
    intro = render_mock_question(_item("en", InputKind.CHOOSE_ONE), PLAIN)
    assert "1 question · sections: 1 · 1 pt" in intro and "Single choice: 1 × 1 pt" in intro
    assert "questions" not in intro and "points" not in intro


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_hand_in_prompt_names_a_command_where_messages_are_not_read(language: str) -> None:
    view = MockConfirmView(language, 1, (2, 5), 10, 300)
    assert SEND.search(render_mock_confirm(view, HTML))
    assert not SEND.search(render_mock_confirm(view, BUTTONS_ONLY))
    assert "/mock" in render_mock_confirm(view, BUTTONS_ONLY)
