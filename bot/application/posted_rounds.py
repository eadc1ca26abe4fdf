"""Questions already posted, as a chat adapter that edits its own messages needs them: the view
to redraw a question with its live answer count, and after a restart the open rounds it must
watch again (Discord's reaction-mode questions). Plain views and refs only: no stored records.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.application.quiz import Quiz
from bot.domain.kinds import AnswerMode, Platform, RoundState
from bot.views.quiz import QuestionView


@dataclass(frozen=True, slots=True)
class PostedRound:
    round_id: int
    message_ref: str
    view: QuestionView


class PostedRounds:
    def __init__(self, quiz: Quiz) -> None:
        self.quiz = quiz

    async def question(self, round_id: int) -> QuestionView | None:
        """The question view of a round (open or not), as it was posted."""
        context = await self.quiz.round_context(round_id)
        if context is None:
            return None
        return self.quiz.question_view(context.round, context.chat, context.question)

    async def live(self, round_id: int) -> int | None:
        """How many have answered an open round; None once it is closed or unknown."""
        context = await self.quiz.round_context(round_id)  # cached while open: no store read
        if context is None or context.round.state is RoundState.CLOSED:
            return None
        return await self.quiz.store.answer_count(round_id)

    async def open_on(self, platform: Platform, mode: AnswerMode) -> list[PostedRound]:
        """The open rounds posted on `platform` that are answered in `mode`."""
        found: list[PostedRound] = []
        for round_ in await self.quiz.store.open_rounds():
            if round_.mode is not mode or not round_.message_ref:
                continue
            context = await self.quiz.round_context(round_.id)
            if context is None or context.chat.ref.platform != platform:
                continue
            view = self.quiz.question_view(context.round, context.chat, context.question)
            found.append(PostedRound(round_.id, round_.message_ref, view))
        return found
