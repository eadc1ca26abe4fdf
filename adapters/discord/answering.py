"""What a click or a modal does: answer, toggle, submit, open the modal, self-grade, each as a core
call, answered ephemerally within Discord's 3 seconds. A click is first checked against the
message it came from (bot/clicks: the round's message, in its channel, carrying that button);
unreadable, forged or stray clicks get "closed" and change nothing."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from adapters.discord import custom_ids as ids
from adapters.discord.live import LiveCounts
from adapters.discord.render import receipt_text
from adapters.discord.replies import InFlight, Reply, chat_ref, respond, send, user_ref
from adapters.discord.views import AnswerModal, self_grade_buttons
from bot.clicks import Act, Click, admitted
from bot.i18n import t
from bot.kinds import AnswerStatus, Platform
from bot.messages import ReceiptView, SelfGrade, SubmitAnswer
from bot.model import QuestionType
from bot.presenting import response_label
from bot.quiz import Quiz
from bot.quiz_cache import RoundContext

log = logging.getLogger("studybot.discord")
RECORDED = (AnswerStatus.ACCEPTED, AnswerStatus.CHANGED)
Interaction = discord.Interaction
Handler = Callable[[Interaction, RoundContext, str | None], Awaitable[Reply]]
ACTS = {ids.ANSWER: Act.ANSWER, ids.TOGGLE: Act.TOGGLE, ids.SUBMIT: Act.SUBMIT, ids.MODAL: Act.OPEN_FORM,
        ids.GRADE: Act.SELF_GRADE}  # fmt: skip


class Answering:
    def __init__(self, quiz: Quiz, counts: LiveCounts, inflight: InFlight) -> None:
        self.quiz = quiz
        self.counts = counts
        self.inflight = inflight
        self._handlers: dict[str, Handler] = {
            ids.ANSWER: self._answer,
            ids.TOGGLE: self._toggle,
            ids.SUBMIT: self._submit,
            ids.GRADE: self._self_grade,
        }

    async def on_button(self, interaction: discord.Interaction, kind: str, round_key: str,
                        arg: str | None) -> None:
        round_id = ids.round_id(round_key)
        if kind == ids.MODAL:
            await self._guard(interaction, lambda: self._open_modal(interaction, round_id))
        else:

            def work() -> Awaitable[object]:
                return respond(interaction, self._button(interaction, kind, round_id, arg))

            await self._guard(interaction, work)

    async def on_modal_submit(self, interaction: discord.Interaction) -> None:
        await self._guard(interaction, lambda: respond(interaction, self._form(interaction)))

    async def on_stray(self, interaction: discord.Interaction) -> None:
        """A component of no template of ours, or one its message does not carry: it is from
        nothing that is open (discord.py drops the latter unanswered)."""
        await self._guard(interaction, lambda: respond(interaction, self._closed(interaction)))

    # ------------------------------------------------------------ the steps

    async def _language(self, interaction: discord.Interaction) -> str:
        return (await self.quiz.chat(chat_ref(interaction))).settings.language

    async def _closed(self, interaction: discord.Interaction) -> Reply:
        return Reply(t(await self._language(interaction), "receipt.closed"))

    async def _admitted(self, interaction: discord.Interaction, act: Act, round_id: int | None,
                        token: str | None, control: str) -> RoundContext | None:
        """The round, if this click came from that round's message in its channel (bot/clicks)."""
        message = interaction.message
        if round_id is None or message is None:
            return None
        click = Click(
            round_id=round_id, platform=Platform.DISCORD, chat_key=chat_ref(interaction).chat_key,
            message_ref=f"{message.channel.id}:{message.id}", act=act, token=token,
            control=control, controls=frozenset(cid for _, cid in carried(message)),
        )  # fmt: skip
        return await admitted(self.quiz, click)

    async def _button(self, interaction: discord.Interaction, kind: str, round_id: int | None,
                      arg: str | None) -> Reply:
        handler = self._handlers.get(kind)
        control = str((interaction.data or {}).get("custom_id", ""))
        context = await self._admitted(interaction, ACTS[kind], round_id, arg, control) if handler else None
        if context is None or handler is None:
            return await self._closed(interaction)
        return await handler(interaction, context, arg)

    async def _form(self, interaction: discord.Interaction) -> Reply:
        data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
        round_id = ids.form_round(str(data.get("custom_id", "")))
        text = _input_value(data.get("components") or [], ids.ANSWER_INPUT)
        # A form is real only if opened from its round's Answer button, on the round's message.
        opener = ids.make(ids.MODAL, round_id) if round_id is not None else ""
        context = await self._admitted(interaction, Act.FORM, round_id, None, opener)
        if context is None or text is None:
            return await self._closed(interaction)
        return await self._answer(interaction, context, text)

    async def _answer(self, interaction: Interaction, context: RoundContext, response: str | None) -> Reply:
        answer = SubmitAnswer(context.round.id, user_ref(interaction.user), response or "")
        receipt = await self.quiz.submit(answer)
        return self._receipt(interaction, receipt)

    def _receipt(self, interaction: discord.Interaction, receipt: ReceiptView) -> Reply:
        message = interaction.message
        if receipt.status in RECORDED and message is not None and not message.flags.ephemeral:
            self.counts.bump(receipt.round_id, interaction.channel_id or message.channel.id, message.id)
        view = None
        if receipt.verdict == "pending" and receipt.status == AnswerStatus.ACCEPTED:
            view = self_grade_buttons(receipt.round_id, receipt.language)
        return Reply(receipt_text(receipt), view=view)

    async def _toggle(self, interaction: Interaction, context: RoundContext, letter: str | None) -> Reply:
        round_id = context.round.id
        if await self.quiz.answerable(round_id) is None:
            return await self._closed(interaction)
        lang = context.chat.settings.language
        chosen = self.quiz.selections.toggle(round_id, user_ref(interaction.user), letter or "")
        if not chosen:
            return Reply(t(lang, "select.none"))
        label = response_label(context.question, ",".join(chosen), lang)
        return Reply(t(lang, "select.current", choice=label))

    async def _submit(self, interaction: Interaction, context: RoundContext, _: str | None) -> Reply:
        chosen = self.quiz.selections.take(context.round.id, user_ref(interaction.user))
        if not chosen:
            if await self.quiz.answerable(context.round.id) is None:
                return await self._closed(interaction)
            return Reply(t(context.chat.settings.language, "select.none"))
        return await self._answer(interaction, context, ",".join(chosen))

    async def _self_grade(self, interaction: Interaction, context: RoundContext, level: str | None) -> Reply:
        grade = SelfGrade(context.round.id, user_ref(interaction.user), level or "")
        receipt = await self.quiz.self_grade(grade)
        return Reply(receipt_text(receipt))

    async def _open_modal(self, interaction: discord.Interaction, round_id: int | None) -> None:
        # A modal must be the first response, so there is no deferring here; the lookup is one
        # cached read at most.
        control = str((interaction.data or {}).get("custom_id", ""))
        context = await self._admitted(interaction, Act.OPEN_FORM, round_id, None, control)
        if context is None or await self.quiz.answerable(context.round.id) is None:
            await respond(interaction, self._closed(interaction))
            return
        long = context.question.type is QuestionType.SHORT
        modal = AnswerModal(context.round.id, context.chat.settings.language, long=long)
        await interaction.response.send_modal(modal)

    async def _guard(self, interaction: discord.Interaction, work: Callable[[], Awaitable[object]]) -> None:
        """Nothing escapes a click: an unexpected failure is logged and told as error.internal.
        While the bot is stopping, clicks are left unanswered."""
        try:
            async with self.inflight.busy() as running:
                if running:
                    await work()
        except Exception:
            log.exception("click %r failed", (interaction.data or {}).get("custom_id"))
            try:
                await send(interaction, Reply(t(self.quiz.settings.language, "error.internal")))
            except discord.HTTPException as exc:
                log.warning("could not report the failure of interaction %s: %s", interaction.id, exc)


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
