"""Buttons and modal submits as application clicks: each becomes a `bot.application.clicks.Click` (what the
custom_id names, the message it came from and the controls that message carries), goes to
`Application.answering.click`, and the answer comes back by its kind — a modal for a form, the
selection so far, a receipt (with self-grade buttons when it awaits one), or a sentence —
ephemerally within Discord's 3 seconds. Forged or stray clicks are answered "closed" by the core's
one rule and change nothing."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

import aiohttp
import discord

from adapters.discord import custom_ids as ids
from adapters.discord.commands import rendered
from adapters.discord.live import LiveCounts
from adapters.discord.mock_views import MockAnswerModal, mock_buttons
from adapters.discord.render import attachment, receipt_text, reply_content
from adapters.discord.replies import InFlight, Reply, chat_language, chat_ref, respond, send, user_ref
from adapters.discord.transient import describe, transient
from adapters.discord.views import AnswerModal, next_buttons, self_grade_buttons
from bot.application.answering import AnswerReply, FormReply, NextReply, ReceiptReply, SelectionReply
from bot.application.app import Application
from bot.application.clicks import Act, Click, MockAct, MockClick, WeakClick
from bot.application.replies import TextView
from bot.domain.kinds import Platform
from bot.locales.i18n import t
from bot.views.quiz import QuestionView

log = logging.getLogger("studybot.discord")
ACTS = {ids.ANSWER: Act.ANSWER, ids.TOGGLE: Act.TOGGLE, ids.SUBMIT: Act.SUBMIT, ids.UNDO: Act.UNDO,
        ids.MODAL: Act.OPEN_FORM,
        ids.GRADE: Act.SELF_GRADE, ids.STAR: Act.FAVOURITE, ids.NEXT: Act.NEXT,
        ids.CAUSE: Act.CAUSE}  # fmt: skip
NO_ROUND = 0  # an unreadable custom_id: a round no click can be admitted to


class Answering:
    def __init__(self, application: Application, counts: LiveCounts, inflight: InFlight) -> None:
        self.application = application
        self.counts = counts
        self.inflight = inflight

    async def on_button(self, interaction: discord.Interaction, kind: str, round_key: str,
                        arg: str | None) -> None:  # fmt: skip
        act = ACTS.get(kind, Act.ANSWER)
        click = _click(interaction, act, ids.round_id(round_key), arg, _custom_id(interaction))
        if kind == ids.MODAL:
            await self._guard(interaction, lambda: self._open_form(interaction, click))
        elif kind == ids.NEXT:
            await self._guard(interaction, lambda: self._next(interaction, click))
        elif kind == ids.WEAK:
            await self._guard(interaction, lambda: self._weak(interaction))
        else:
            await self._guard(interaction, lambda: respond(interaction, self._answer(interaction, click)))

    async def on_mock(self, interaction: discord.Interaction, mock_key: str, item_key: str, act: str,
                      token: str | None) -> None:  # fmt: skip
        """A mock exam's button: its message becomes what the click leads to (the next item, the
        sheet, the hand-in prompt, the report, a reviewed item); a refusal is an ephemeral line."""
        await self._guard(interaction, lambda: self._mock(interaction, mock_key, item_key, act, token))

    async def _mock(self, interaction: discord.Interaction, mock_key: str, item_key: str, act: str,
                    token: str | None, *, control: str | None = None) -> None:  # fmt: skip
        message = interaction.message
        mock_id, item = ids.round_id(mock_key), ids.round_id(item_key)
        acts = {a.value: a for a in MockAct}
        if message is None or mock_id is None or item is None or act not in acts or (
            acts[act] is MockAct.TYPE and token is None
        ):
            await send(interaction, Reply(t(await chat_language(interaction), "receipt.closed")))
            return
        if acts[act] is MockAct.OPEN_FORM:  # a modal must be the first response: the submit is checked
            modal = MockAnswerModal(mock_id, item, await chat_language(interaction))
            await interaction.response.send_modal(modal)
            return
        click = MockClick(
            mock_id=mock_id, item=item, act=acts[act], token=token, platform=Platform.DISCORD,
            chat_key=chat_ref(interaction).chat_key, control=control or _custom_id(interaction),
            controls=frozenset(cid for _, cid in carried(message)),
        )  # fmt: skip
        reply = await self.application.click(chat_ref(interaction), user_ref(interaction.user), click)
        if isinstance(reply.view, TextView):
            await send(interaction, Reply(reply.view.text))
            return
        content = reply_content(reply) or "✓"
        pictures = self.application.pictures(reply.view)
        buttons = mock_buttons(reply.view)
        if pictures or message.attachments:  # the item's pictures, in place of the last item's
            files = [attachment(p) for p in pictures]
            await interaction.response.edit_message(
                content=content, embed=None, view=buttons, attachments=files
            )
            return
        await interaction.response.edit_message(content=content, embed=None, view=buttons)

    async def on_modal_submit(self, interaction: discord.Interaction) -> None:
        data = payload(interaction)
        mock_form = ids.MOCK_FORM_PATTERN.fullmatch(str(data.get("custom_id", "")))
        if mock_form is not None:  # a mock item's typed answer: checked as its 作答 button's click
            text = _input_value(data.get("components") or [], ids.ANSWER_INPUT)
            mock_key, item_key = mock_form["mock"], mock_form["item"]
            opener = ":".join([ids.PREFIX, ids.MOCK, mock_key, item_key, MockAct.OPEN_FORM.value])
            await self._guard(interaction, lambda: self._mock(
                interaction, mock_key, item_key, MockAct.TYPE.value, text, control=opener))  # fmt: skip
            return
        round_id = ids.form_round(str(data.get("custom_id", "")))
        text = _input_value(data.get("components") or [], ids.ANSWER_INPUT)
        # A form is real only if opened from its round's Answer button, on the round's message.
        opener = ids.make(ids.MODAL, round_id) if round_id is not None else ""
        click = _click(interaction, Act.FORM, round_id if text is not None else None, text, opener)
        await self._guard(interaction, lambda: respond(interaction, self._answer(interaction, click)))

    async def on_stray(self, interaction: discord.Interaction) -> None:
        """A component of no template of ours, or one its message does not carry: it is from
        nothing that is open (discord.py drops the latter unanswered)."""
        click = _click(interaction, Act.ANSWER, None, None, _custom_id(interaction))
        await self._guard(interaction, lambda: respond(interaction, self._answer(interaction, click)))

    # ------------------------------------------------------------ the steps

    async def _result(self, interaction: discord.Interaction, click: Click) -> AnswerReply:
        return await self.application.click(chat_ref(interaction), user_ref(interaction.user), click)

    async def _answer(self, interaction: discord.Interaction, click: Click) -> Reply:
        return self._rendered(interaction, await self._result(interaction, click))

    async def _next(self, interaction: discord.Interaction, click: Click) -> None:
        """下一题 ▶: the clicker's next practice question, posted in the channel as /quiz posts it
        (and told to the application with its message), or their run's summary."""
        posted: list[QuestionView] = []

        async def work() -> Reply:
            result = await self._result(interaction, click)
            if isinstance(result, NextReply):
                if isinstance(result.reply.view, QuestionView):
                    posted.append(result.reply.view)
                    self.counts.remember(result.reply.view)
                return rendered(result.reply, self.application)
            return self._rendered(interaction, result)

        message_id = await respond(interaction, work(), public=True)
        if posted and message_id is not None:
            ref = f"{interaction.channel_id}:{message_id}"
            await self.application.question_posted(posted[0].round_id, ref)

    async def _weak(self, interaction: discord.Interaction) -> None:
        """"Practise these ▶" under /weak: the clicker's weak-point run, its first question posted
        in the channel as /quiz posts it (a refusal: an ephemeral line)."""
        posted: list[QuestionView] = []
        message = interaction.message

        async def work() -> Reply:
            controls = frozenset(cid for _, cid in carried(message)) if message is not None else frozenset()
            chat = chat_ref(interaction)
            click = WeakClick(Platform.DISCORD, chat.chat_key, _custom_id(interaction), controls)
            reply = await self.application.click(chat, user_ref(interaction.user), click)
            if isinstance(reply.view, QuestionView):
                posted.append(reply.view)
                self.counts.remember(reply.view)
            return rendered(reply, self.application)

        message_id = await respond(interaction, work(), public=True)
        if posted and message_id is not None:
            ref = f"{interaction.channel_id}:{message_id}"
            await self.application.question_posted(posted[0].round_id, ref)

    def _rendered(self, interaction: discord.Interaction, result: AnswerReply) -> Reply:
        if isinstance(result, ReceiptReply):
            message = interaction.message
            if result.recorded and message is not None and not message.flags.ephemeral:
                self.counts.bump(
                    result.receipt.round_id, interaction.channel_id or message.channel.id, message.id
                )
            view = None
            if result.awaits_self_grade:
                view = self_grade_buttons(result.receipt.round_id, result.language)
            elif result.offers_next:  # graded: 下一题 ▶ under it (and a wrong one's cause buttons)
                view = next_buttons(result.receipt.round_id, result.language, causes=result.offers_cause)
            return Reply(receipt_text(result.receipt), view=view)
        if isinstance(result, NextReply):  # only from the 下一题 button (see _next)
            return rendered(result.reply, self.application)
        if isinstance(result, SelectionReply):  # the clicker's own selection, or order, so far
            return Reply(result.text)
        if isinstance(result, FormReply):  # a form can only open as the first answer (_open_form)
            return Reply(t(result.language, "receipt.closed"))
        return Reply(result.text)

    async def _open_form(self, interaction: discord.Interaction, click: Click) -> None:
        # A modal must be the first response, so there is no deferring here; the check is one
        # cached read at most.
        result = await self._result(interaction, click)
        if isinstance(result, FormReply):
            await interaction.response.send_modal(
                AnswerModal(result.round_id, result.language, long=result.long)
            )
            return
        await send(interaction, self._rendered(interaction, result))

    async def _guard(self, interaction: discord.Interaction, work: Callable[[], Awaitable[object]]) -> None:
        """Nothing escapes a click: an unexpected failure is logged and told as error.internal.
        While the bot is stopping, clicks are left unanswered."""
        try:
            async with self.inflight.busy() as running:
                if running:
                    await work()
        except Exception as exc:
            if transient(exc):  # Discord's trouble, not ours: no traceback
                log.warning("discord: click %r not answered: %s; the member may click again",
                            _custom_id(interaction), describe(exc))  # fmt: skip
            else:
                log.exception("click %r failed", _custom_id(interaction))
            try:
                await send(interaction, Reply(t(await chat_language(interaction), "error.internal")))
            except (discord.HTTPException, aiohttp.ClientError, OSError) as failed:
                log.warning("discord: could not report the failure of interaction %s: %s", interaction.id,
                            describe(failed))  # fmt: skip


def payload(interaction: discord.Interaction) -> dict[str, Any]:
    """The interaction's raw data (a union of TypedDicts to discord.py) as a plain mapping."""
    return cast(dict[str, Any], interaction.data or {})


def _custom_id(interaction: discord.Interaction) -> str:
    return str(payload(interaction).get("custom_id", ""))


def _click(interaction: discord.Interaction, act: Act, round_id: int | None, token: str | None,
           control: str) -> Click:  # fmt: skip
    """The click as plain values: the message it came from and every control that message carries."""
    message = interaction.message
    return Click(
        round_id=round_id if round_id is not None and message is not None else NO_ROUND,
        platform=Platform.DISCORD, chat_key=chat_ref(interaction).chat_key,
        message_ref=f"{message.channel.id}:{message.id}" if message is not None else None,
        act=act, token=token, control=control,
        controls=frozenset(cid for _, cid in carried(message)) if message is not None else frozenset(),
    )  # fmt: skip


def _input_value(components: list[Any], custom_id: str) -> str | None:
    """The submitted value of a text input, wherever the modal's rows and labels put it."""
    for component in components:
        if not isinstance(component, dict):
            continue
        if component.get("custom_id") == custom_id and isinstance(component.get("value"), str):
            return component["value"]
        nested = [*(component.get("components") or [])]
        if isinstance(component.get("component"), dict):
            nested.append(component["component"])
        found = _input_value(nested, custom_id)
        if found is not None:
            return found
    return None


def carried(message: discord.Message) -> set[tuple[int, str]]:
    """(component type, custom_id) of every control on the message, however nested: what
    discord.py matches a click against before it calls a button's callback."""
    found: set[tuple[int, str]] = set()
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        custom_id = getattr(component, "custom_id", None)
        if isinstance(custom_id, str):
            found.add((int(component.type.value), custom_id))
        stack += list(getattr(component, "children", None) or [])
        for attribute in ("accessory", "component"):
            nested = getattr(component, attribute, None)
            if nested is not None:
                stack.append(nested)
    return found
