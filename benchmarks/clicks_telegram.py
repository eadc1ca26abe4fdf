"""One burst of Telegram button clicks: the fake Bot API (tests/fakes) in this process, the bot in
its own; a user asks /quiz single in a group, then `clicks` users each press one answer button."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks.clicks_burst import Burst, send_open_loop
from benchmarks.clicks_process import BotKind, bot_log, bot_process, cpu_hogs, cpu_seconds, stored_answers
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.fakes.telegram_server import FakeTelegramServer

GROUP = FakeChat(-1001000000001, "supergroup", title="Burst group")
ASKER = FakeUser(1000, "Asker", "asker", "en")


class TimedTelegram(FakeTelegramServer):
    """The fake, noting when each callback query was first answered."""

    def __init__(self) -> None:
        super().__init__()
        self.answered_at: dict[str, float] = {}

    async def api_answerCallbackQuery(self, p: dict[str, Any]) -> Any:
        received = time.perf_counter()
        result = await super().api_answerCallbackQuery(p)
        self.answered_at.setdefault(p["callback_query_id"], received)
        return result


async def telegram_burst(
    kind: BotKind, clicks: int, seconds: float, hogs: int, base: Path, profile: Path | None = None
) -> Burst:
    burst = Burst("telegram", kind.name, hogs, clicks)
    async with TimedTelegram() as server:
        env = {"TELEGRAM_TOKEN": server.token, "TELEGRAM_API_BASE": server.base_url}
        async with bot_process(kind, "telegram", base, env, profile) as (proc, data):
            try:
                await server.wait_until(lambda: server.waiting_polls > 0, timeout=60)
                server.user_message(GROUP, ASKER, "/quiz single")
                await server.wait_for_request(
                    "sendMessage", lambda p: p["chat_id"] == GROUP.id and "reply_markup" in p, timeout=30
                )
            except AssertionError as exc:
                burst.error = f"no question posted: {exc}\n{bot_log(data)}"
                return burst
            question = next(m for m in reversed(server.messages_in(GROUP.id)) if m.callback_data)
            answers = [d for d in question.callback_data if d.startswith(("a1:", "f:"))]
            users = [FakeUser(200_000 + i, f"User {i}", f"user{i}", "en") for i in range(clicks)]
            sent: dict[str, float] = {}

            def click(i: int) -> None:
                query = server.user_click(GROUP, users[i], question.message_id, answers[i % len(answers)])
                sent[query] = time.perf_counter()

            with cpu_hogs(hogs):
                cpu_before = cpu_seconds(proc.pid)
                burst.send_span_s = await send_open_loop(clicks, seconds, click)
                try:
                    await server.wait_until(lambda: len(server.answered_at) >= clicks, timeout=60)
                except AssertionError:
                    pass  # counted below as unanswered
                burst.bot_cpu_s = cpu_seconds(proc.pid) - cpu_before
            answered = server.answered_at
            burst.latencies = [answered[q] - at for q, at in sent.items() if q in answered]
            burst.unanswered = clicks - len(burst.latencies)
            burst.refused_answers = sum(
                1 for e in server.log if e.method == "answerCallbackQuery" and not e.ok
            )  # fmt: skip
        if kind.name != "floor":
            burst.stored = stored_answers(data)
    return burst
