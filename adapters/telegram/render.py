"""Telegram layout: inline keyboards for views, HTML split to Telegram's 4096-character limit,
toasts clipped to 200 characters, and chat/user references from PTB objects."""

from __future__ import annotations

import re

from telegram import Chat as TgChat
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram import User as TgUser

from adapters.telegram import callback_data
from bot.application.answering import ReceiptReply
from bot.application.app import WeakView
from bot.application.clicks import CAUSES
from bot.domain.kinds import SELF_GRADE_LEVELS, ChatKind, ChatRef, InputKind, Platform, UserRef
from bot.locales.i18n import t
from bot.views.quiz import QuestionView

MAX_TEXT = 4096
MAX_TOAST = 200
_TOKEN_RE = re.compile(r"<[^>]*>|&#?\w+;|[\s\S]")
_TAG_NAME_RE = re.compile(r"</?\s*([a-zA-Z0-9-]+)")


# ---------------------------------------------------------------- references


def chat_ref(chat: TgChat, sender: TgUser | None = None) -> ChatRef:
    """The core's reference to a chat; a private chat new to the bot starts in the language of
    the sender's Telegram client (`language_code`)."""
    kind = ChatKind.PRIVATE if chat.type == TgChat.PRIVATE else ChatKind.GROUP
    hint = sender.language_code if sender is not None and kind is ChatKind.PRIVATE else None
    return ChatRef(Platform.TELEGRAM, str(chat.id), kind, title=chat.effective_name or "", language_hint=hint)


def user_ref(user: TgUser) -> UserRef:
    return UserRef(Platform.TELEGRAM, str(user.id), user.full_name or str(user.id))


def message_ref(chat_id: int, message_id: int) -> str:
    return f"{chat_id}:{message_id}"


def parse_message_ref(ref: str | None) -> tuple[int, int] | None:
    try:
        chat_id, message_id = (ref or "").split(":")
        return int(chat_id), int(message_id)
    except ValueError:
        return None


# ---------------------------------------------------------------- keyboards


def question_keyboard(view: QuestionView) -> InlineKeyboardMarkup:
    """By input kind: a button per option (choose one, true/false), toggles plus Submit (choose
    many), options tapped in order plus 撤销 and Submit (an order); a typed answer has none (it is
    a message, or a reply in a group, as an order may be too). Every question also gets the ☆
    that stars it for the clicker."""
    star = star_row(view.round_id, view.language)
    if view.input_kind in (InputKind.CHOOSE_ONE, InputKind.TRUE_FALSE):
        row = [InlineKeyboardButton(o.label, callback_data=callback_data.answer(view.round_id, o.token))
               for o in view.options]  # fmt: skip
        return InlineKeyboardMarkup([row, star])
    if view.input_kind in (InputKind.CHOOSE_MANY, InputKind.ORDER):
        row = [InlineKeyboardButton(o.label, callback_data=callback_data.toggle(view.round_id, o.token))
               for o in view.options]  # fmt: skip
        submit = InlineKeyboardButton(
            t(view.language, "button.submit"), callback_data=callback_data.submit(view.round_id)
        )
        if view.input_kind is InputKind.ORDER:
            label = t(view.language, "button.undo")
            undo = InlineKeyboardButton(label, callback_data=callback_data.undo(view.round_id))
            return InlineKeyboardMarkup([row, [undo, submit, *star]])
        return InlineKeyboardMarkup([row, [submit, *star]])
    return InlineKeyboardMarkup([star])


def star_row(round_id: int, language: str) -> list[InlineKeyboardButton]:
    label = t(language, "button.favourite")
    return [InlineKeyboardButton(label, callback_data=callback_data.favourite(round_id))]


def star_keyboard(round_id: int, language: str) -> InlineKeyboardMarkup:
    """What stays under a question once it is answered or revealed: the ☆ alone."""
    return InlineKeyboardMarkup([star_row(round_id, language)])


def next_keyboard(round_id: int, language: str) -> InlineKeyboardMarkup:
    """下一题 ▶ under a graded practice answer."""
    label = t(language, "button.next")
    button = InlineKeyboardButton(label, callback_data=callback_data.next_question(round_id))
    return InlineKeyboardMarkup([[button]])


def graded_keyboard(answer: ReceiptReply) -> InlineKeyboardMarkup | None:
    """Under a graded practice answer: 下一题 ▶, and for a wrong one the buttons that tag the
    mistake's cause (概念不清 / 粗心 / 没见过 / 记错)."""
    receipt = answer.receipt
    if not answer.offers_next:
        return None
    rows = next_keyboard(receipt.round_id, receipt.language).inline_keyboard
    if answer.offers_cause:
        language, round_id = receipt.language, receipt.round_id
        rows = (*rows, tuple(
            InlineKeyboardButton(t(language, f"cause.{c}"), callback_data=callback_data.cause(round_id, c))
            for c in CAUSES
        ))  # fmt: skip
    return InlineKeyboardMarkup(rows)


def weak_keyboard(view: object) -> InlineKeyboardMarkup | None:
    """"Practise these ▶" under /weak's list (when it lists anything)."""
    if not isinstance(view, WeakView) or not view.weakest:
        return None
    label = t(view.language, "button.weak_practice")
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=callback_data.weak())]])


def receipt_keyboard(answer: ReceiptReply) -> InlineKeyboardMarkup | None:
    """Under a receipt message: the self-grade buttons while it awaits one, 下一题 ▶ once graded
    (and the cause buttons under a wrong one)."""
    receipt = answer.receipt
    if answer.awaits_self_grade:
        return self_grade_keyboard(receipt.round_id, receipt.language)
    return graded_keyboard(answer)


def hinted(view: QuestionView) -> bool:
    """Whether the question says how to answer it: a typed answer (no buttons), an order (tapped
    on its buttons, or typed)."""
    return view.input_kind in (InputKind.TYPED, InputKind.SELF_GRADED, InputKind.ORDER)


def self_grade_keyboard(round_id: int, language: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[
        InlineKeyboardButton(t(language, f"button.self_{level}"),
                             callback_data=callback_data.self_grade(round_id, level))
        for level in SELF_GRADE_LEVELS
    ]])  # fmt: skip


def language_keyboard() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[
        InlineKeyboardButton(t(lang, "tg.lang_name"), callback_data=callback_data.language(code))
        for code, lang in callback_data.LANGUAGE_CODES.items()
    ]])  # fmt: skip


# ---------------------------------------------------------------- lengths


def utf16_len(text: str) -> int:
    """Telegram counts lengths in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int = MAX_TOAST) -> str:
    if utf16_len(text) <= limit:
        return text
    out = ""
    for char in text:
        if utf16_len(out + char) > limit - 1:
            break
        out += char
    return out + "…"


def _visible(token: str) -> int:
    if token.startswith("<") and len(token) > 1:
        return 0
    if token.startswith("&") and len(token) > 1:
        return 1
    return utf16_len(token)


def _tag(token: str) -> tuple[str, bool] | None:
    """(name, closing) for an HTML tag token; None for text."""
    if not (token.startswith("<") and token.endswith(">") and len(token) > 2):
        return None
    match = _TAG_NAME_RE.match(token)
    if match is None:
        return None
    return match.group(1).lower(), token.startswith("</")


def _replay(opened: list[tuple[str, str]], tokens: list[str]) -> list[tuple[str, str]]:
    """The tags still open after `tokens`, given those open before: (name, opening tag)."""
    result = list(opened)
    for token in tokens:
        tag = _tag(token)
        if tag is None:
            continue
        name, closing = tag
        if not closing:
            result.append((name, token))
        elif result and result[-1][0] == name:
            result.pop()
    return result


def split_html(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Telegram-HTML text in chunks of at most `limit` visible characters, preferably cut at a
    line break; tags open at a cut are closed there and reopened in the next chunk."""
    tokens = _TOKEN_RE.findall(text)
    if sum(_visible(tok) for tok in tokens) <= limit:
        # Nothing to show but tags and spaces would be an empty message, which Telegram refuses.
        return [text] if any(_visible(tok) and not tok.isspace() for tok in tokens) else []
    chunks: list[str] = []
    opened: list[tuple[str, str]] = []  # tags open where the current chunk starts
    current: list[str] = []
    size = 0

    def emit(part: list[str]) -> None:
        closing = "".join(f"</{name}>" for name, _ in reversed(_replay(opened, part)))
        if any(_visible(tok) and not tok.isspace() for tok in part):
            chunks.append("".join(tag for _, tag in opened) + "".join(part) + closing)

    for tok in tokens:
        width = _visible(tok)
        while current and size + width > limit:
            newline = max((i for i, x in enumerate(current) if x == "\n"), default=-1)
            head, carry = (current[:newline], current[newline + 1 :]) if newline > 0 else (current, [])
            emit(head)
            opened = _replay(opened, head)
            current = carry
            size = sum(_visible(x) for x in current)
        current.append(tok)
        size += width
    emit(current)
    return chunks
