"""What a click or a modal does: answer, toggle, submit, open the modal, self-grade, each as a core
call, answered ephemerally within Discord's 3 seconds. Unreadable clicks get "closed"."""

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
from bot.i18n import t
from bot.messages import ReceiptView, SelfGrade, SubmitAnswer
from bot.model import QuestionType
from bot.presenting import response_label
from bot.quiz import Quiz
from bot.records import AnswerStatus

log = logging.getLogger("studybot.discord")
RECORDED = (AnswerStatus.ACCEPTED, AnswerStatus.CHANGED)


class Answering:
    def __init__(self, quiz: Quiz, counts: LiveCounts, inflight: InFlight) -> None:
        self.quiz = quiz
        self.counts = counts
        self.inflight = inflight
        self._handlers: dict[str, Callable[[discord.Interaction, int, str | None], Awaitable[Reply]]] = {
            ids.ANSWER: self._answer,
            ids.TOGGLE: self._toggle,
            ids.SUBMIT: self._submit,
            ids.GRADE: self._self_grade,
        }

    async def on_button(self, interaction: discord.Interaction, kind: str, round_key: str,
                        arg: str | None) -> None:
        round_id = ids.round_id(round_key)
        handler = self._handlers.get(kind)
        if kind == ids.MODAL:
            await self._guard(interaction, lambda: self._open_modal(interaction, round_id))
        elif round_id is None or handler is None:
            await self._guard(interaction, lambda: respond(interaction, self._closed(interaction)))
        else:
            await self._guard(interaction, lambda: respond(interaction, handler(interaction, round_id, arg)))

    async def on_modal_submit(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
        round_id = ids.form_round(str(data.get("custom_id", "")))
        text = _input_value(data.get("components") or [], ids.ANSWER_INPUT)
        if round_id is None or text is None:
            await self._guard(interaction, lambda: respond(interaction, self._closed(interaction)))
        else:
            answer = self._answer
            await self._guard(interaction, lambda: respond(interaction, answer(interaction, round_id, text)))

    async def on_stray(self, interaction: discord.Interaction) -> None:
        """A component or modal of no template of ours: it is from nothing that is open."""
        await self._guard(interaction, lambda: respond(interaction, self._closed(interaction)))

    # ------------------------------------------------------------ the steps

    async def _language(self, interaction: discord.Interaction) -> str:
        return (await self.quiz.chat(chat_ref(interaction))).settings.language

    async def _closed(self, interaction: discord.Interaction) -> Reply:
        return Reply(t(await self._language(interaction), "receipt.closed"))

    async def _answer(self, interaction: discord.Interaction, round_id: int, response: str | None) -> Reply:
        receipt = await self.quiz.submit(SubmitAnswer(round_id, user_ref(interaction.user), response or ""))
        return self._receipt(interaction, receipt)

    def _receipt(self, interaction: discord.Interaction, receipt: ReceiptView) -> Reply:
        message = interaction.message
        if receipt.status in RECORDED and message is not None and not message.flags.ephemeral:
            self.counts.bump(receipt.round_id, interaction.channel_id or message.channel.id, message.id)
        view = None
        if receipt.verdict == "pending" and receipt.status == AnswerStatus.ACCEPTED:
            view = self_grade_buttons(receipt.round_id, receipt.language)
        return Reply(receipt_text(receipt), view=view)

    async def _open_round(self, round_id: int | None) -> Any:
        """The round's context if it still takes answers, else None."""
        return await self.quiz.answerable(round_id) if round_id is not None else None

    async def _toggle(self, interaction: discord.Interaction, round_id: int, letter: str | None) -> Reply:
        context = await self._open_round(round_id)
        letters = {letter for letter, _ in context.question.options} if context else set()
        if context is None or context.question.type is not QuestionType.MULTI or letter not in letters:
            return await self._closed(interaction)
        lang = context.chat.settings.language
        chosen = self.quiz.selections.toggle(round_id, user_ref(interaction.user), letter or "")
        if not chosen:
            return Reply(t(lang, "select.none"))
        label = response_label(context.question, ",".join(chosen), lang)
        return Reply(t(lang, "select.current", choice=label))

    async def _submit(self, interaction: discord.Interaction, round_id: int, _: str | None) -> Reply:
        chosen = self.quiz.selections.take(round_id, user_ref(interaction.user))
        if not chosen:
            context = await self._open_round(round_id)
            if context is None:
                return await self._closed(interaction)
            return Reply(t(context.chat.settings.language, "select.none"))
        return await self._answer(interaction, round_id, ",".join(chosen))

    async def _self_grade(self, interaction: discord.Interaction, round_id: int, level: str | None) -> Reply:
        if level not in ids.SELF_LEVELS:
            return await self._closed(interaction)
        receipt = await self.quiz.self_grade(SelfGrade(round_id, user_ref(interaction.user), level or ""))
        return Reply(receipt_text(receipt))

    async def _open_modal(self, interaction: discord.Interaction, round_id: int | None) -> None:
        # A modal must be the first response, so there is no deferring here; the lookup is one
        # cached read at most.
        context = await self._open_round(round_id)
        if context is None or context.question.type.is_choice:
            await respond(interaction, self._closed(interaction))
            return
        long = context.question.type is QuestionType.SHORT
        assert round_id is not None
        modal = AnswerModal(round_id, context.chat.settings.language, long=long)
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
