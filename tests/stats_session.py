"""A learner's three weeks with the shipped bank, played through the real application layer on
SQLite with a hand-moved clock: practice on most days (getting better, weaker on some tags),
/review of what falls due, four mock exams handed in; then /stats. Tests read the chart data and
the picture it makes; run as a program it writes the pictures shown in docs/progress.md:

    python -m tests.stats_session docs        # docs/stats-zh-CN.png, docs/stats-en.png

The mock exams are stored through the mock store (what /stats reads), not sat question by
question: the chart only reads their results.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.application.replies import Reply
from bot.application.requests import Caller, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.mock_exam_records import MockItem, MockState, NewMock
from bot.domain.questions import Bank, QuestionType
from bot.views.charts import ChartData
from bot.views.quiz import QuestionView

DAYS = 21
PRACTISED_DAYS = (0, 1, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20)
MOCKS = ((3, 52.0), (10, 61.0), (14, 57.0), (19, 73.0))  # (day, score of 100)
ZONES = {"zh-CN": "Asia/Shanghai", "zh-TW": "Asia/Taipei", "en": "Europe/London"}
# How much better or worse than usual the learner does on a tag's questions.
TAG_SKILL = {
    "distributed-training": -0.35, "federated-learning": -0.45, "security": -0.2, "quantization": -0.25,
    "moe": -0.15, "transformer": 0.2, "attention": 0.25, "normalization": 0.3, "optimization": 0.1,
}  # fmt: skip


def _odds(skill: float, tags: tuple[str, ...]) -> float:
    return skill + sum(TAG_SKILL.get(tag, 0.0) for tag in tags)


@dataclass
class Session:
    reply: Reply  # the /stats reply: text view and the PNG
    charts: list[ChartData]  # what the chart renderer was given
    now: datetime
    bank: Bank


class RecordingCharts:
    """The real renderer, remembering the chart data it was given."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.seen: list[ChartData] = []

    async def render(self, data: ChartData) -> bytes:
        self.seen.append(data)
        return await self.inner.render(data)  # type: ignore[attr-defined, no-any-return]

    async def close(self) -> None:
        await self.inner.close()  # type: ignore[attr-defined]


def _response(bank: Bank, question_id: str, right: bool) -> str:
    question = bank.question(question_id)
    if question.type is QuestionType.MULTI:
        return ",".join(question.answer) if right else question.answer[0]
    if question.type is QuestionType.JUDGE:
        return question.answer[0] if right else ("false" if question.answer[0] == "true" else "true")
    wrong = next(letter for letter, _ in question.options if letter not in question.answer)
    return question.answer[0] if right else wrong


async def run(folder: Path, language: str, command: str = "/stats") -> Session:
    """The three weeks, then `command` (/stats; /ready and /weak for docs/readiness.md)."""
    from bank.loader import load_bank
    from bot.domain.clock import ManualClock
    from studybot.bootstrap import PACKAGED_BANKS, bootstrap
    from studybot.config import Config

    bank = load_bank(PACKAGED_BANKS / "ai_trainer_2025.yaml")
    tz = ZoneInfo(ZONES[language])
    end = datetime.now(tz).replace(hour=21, minute=30, second=0, microsecond=0)
    start = (end - timedelta(days=DAYS - 1)).replace(hour=8)
    clock = ManualClock(start)
    config = Config(data_dir=folder, default_bank=bank.id, language=language, timezone=ZONES[language],
                    sqlite_synchronous="NORMAL")  # fmt: skip
    app = await bootstrap(config, clock=clock, rng=random.Random(3), banks={bank.id: bank})
    charts = RecordingCharts(app.study.charts)
    app.study.charts = charts
    rng = random.Random(8)
    me = UserRef(Platform.CONSOLE, "7", "Lin" if language == "en" else "林")
    caller = Caller(ChatRef(Platform.CONSOLE, "7", ChatKind.PRIVATE, title=me.display_name), me)
    try:
        user_id = await app.quiz.user_id(me)
        chat = await app.quiz.chat(caller.chat)
        for day in range(DAYS):
            morning = start + timedelta(days=day)
            clock.set(morning)
            skill = 0.5 + 0.4 * day / DAYS
            if day in PRACTISED_DAYS:
                for k in range(rng.randrange(5, 15)):
                    minutes = 4 * k + rng.randrange(3) + rng.choice((0, 0, 660))  # some in the evening
                    clock.set(morning + timedelta(minutes=minutes))
                    kind = rng.choice(("single", "single", "multi", "judge"))
                    view = (await app.application.run_text(f"/quiz {kind}", caller)).view
                    assert isinstance(view, QuestionView), view
                    round_ = await app.store.get_round(view.round_id)
                    question = bank.question(round_.question_id)
                    response = _response(bank, question.id, rng.random() < _odds(skill, question.tags))
                    await app.quiz.submit(SubmitAnswer(view.round_id, me, response))
                await app.quiz.flush()
                # The day's review, as long as cards are due (each answered as well as practice).
                for _ in range(20):
                    clock.advance(90)
                    view = (await app.application.run_text("/review", caller)).view
                    if not isinstance(view, QuestionView):
                        break
                    round_ = await app.store.get_round(view.round_id)
                    question = bank.question(round_.question_id)
                    response = _response(bank, question.id, rng.random() < _odds(skill + 0.1, question.tags))
                    await app.quiz.submit(SubmitAnswer(view.round_id, me, response))
                    await app.quiz.flush()
            for mock_day, score in MOCKS:
                if mock_day == day:
                    await _mock(app, bank, user_id, chat.id, morning + timedelta(hours=10), score)
        clock.set(end)
        reply = await app.application.run_text(command, caller)
        return Session(reply, charts.seen, end, bank)
    finally:
        await app.close()


async def _mock(app: object, bank: Bank, user_id: int, chat_id: int, at: datetime, score: float) -> None:
    """A mock of the bank's paper, handed in after 80 minutes with `score`."""
    paper = bank.paper
    assert paper is not None
    items = tuple(
        MockItem(q.id, index)
        for index, section in enumerate(paper.sections)
        for q in [q for q in bank.questions if q.type is section.type][: section.count]
    )
    store = app.study.mocks.store  # type: ignore[attr-defined]
    ends = at + timedelta(minutes=paper.minutes)
    mock = await store.create_mock(
        NewMock(user_id, chat_id, bank.id, items, paper.sections, paper.pass_mark, at, ends)
    )
    await store.hand_in(mock.id, at + timedelta(minutes=80), {}, score, MockState.DONE)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for language in ("zh-CN", "en"):
        with tempfile.TemporaryDirectory() as folder:
            session = asyncio.run(run(Path(folder), language))
        (chart,) = session.reply.files
        path = out / f"stats-{language}.png"
        path.write_bytes(chart.data)
        print(path)


if __name__ == "__main__":
    main()
