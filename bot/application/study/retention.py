"""`/review retention [0.85]`: the retention a learner wants their reviews scheduled for (FSRS
schedules each card's next review when its recall is predicted to fall to it), and, without an
argument, what their memory model is: FSRS's defaults or parameters fitted on their own answers
(bot/application/study/memory_fit.py).
"""

from __future__ import annotations

from bot.application.commands.parsing import Parsed
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.study.memory_fit import DEFAULT_RETENTION, MIN_REVIEWS, parse_retention
from bot.locales.i18n import t
from bot.ports.study_storage import LearnerMemoryStore


class LearnerRetention:
    def __init__(self, quiz: Quiz, memory: LearnerMemoryStore, min_reviews: int = MIN_REVIEWS) -> None:
        self.quiz = quiz
        self.memory = memory
        self.min_reviews = min_reviews

    async def command(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if caller.user is None:
            raise QuizError("error.no_user")
        user_id = await self.quiz.user_id(caller.user)
        raw = parsed.args.get("retention")
        if raw is not None:
            retention = parse_retention(str(raw))
            await self.memory.set_retention(user_id, retention)
            return Reply(TextView(t(language, "review.retention_set", percent=_percent(retention))), language)
        memory = (await self.memory.memories([user_id])).get(user_id)
        retention = memory.desired_retention if memory is not None else DEFAULT_RETENTION
        lines = [t(language, "review.retention_now", percent=_percent(retention))]
        if memory is not None and memory.parameters is not None and memory.fitted_at is not None:
            lines.append(t(language, "review.memory_fitted", count=memory.fitted_reviews,
                           date=memory.fitted_at.date().isoformat()))  # fmt: skip
        else:
            answered = len(await self.memory.review_history(user_id))
            lines.append(t(language, "review.memory_default", count=self.min_reviews, answered=answered))
        return Reply(TextView("\n".join(lines)), language)


def _percent(share: float) -> str:
    return f"{share * 100:.4g}%"
