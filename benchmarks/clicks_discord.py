"""One burst of Discord button clicks: the fake Discord (tests/fakes) in this process, the bot in
its own; a member runs /quiz type:single in a channel (for the floor the fake posts four buttons
itself), then `clicks` members each press one answer button.

The fake checks the first SPEC_CHECKED request bodies of each route against Discord's OpenAPI
spec, not every one: the check is pure Python in this process, about 34 ms for one of studybot's
answers (an embed and its buttons, against the spec's unions), so checking all 500 made the fake,
not the bot, the bottleneck. The bot sat idle two thirds of the burst while the fake answered one
callback every ~13 ms and the clicks past 3 s were the fake's backlog. Discord itself does not take
34 ms per request. The tests still check every request."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.clicks_burst import Burst, send_open_loop
from benchmarks.clicks_process import BotKind, bot_log, bot_process, cpu_hogs, cpu_seconds, stored_answers
from tests.fakes.discord_models import MessageRecord
from tests.fakes.discord_rules import Perm
from tests.fakes.discord_server import FakeDiscord

LOADING = 128
SPEC_CHECKED = 20  # request bodies per route checked against the spec (see the module docstring)
FLOOR_BUTTONS = {"type": 1, "components": [
    {"type": 2, "style": 1, "label": x, "custom_id": f"f:{x}"} for x in "ABCD"]}  # fmt: skip


async def discord_burst(
    kind: BotKind, clicks: int, seconds: float, hogs: int, base: Path, profile: Path | None = None
) -> Burst:
    burst = Burst("discord", kind.name, hogs, clicks)
    async with FakeDiscord() as server:
        _check_a_sample(server)
        guild = server.add_guild("Burst hall", bot_permissions=Perm.MANAGE_MESSAGES)
        channel = guild.add_text_channel("general")
        asker = server.add_member(guild, "asker")
        members = [server.add_member(guild, f"user{i}") for i in range(clicks)]
        env = {"DISCORD_TOKEN": server.token, "DISCORD_API_BASE": server.api_base,
               "DISCORD_GATEWAY_URL": server.gateway_url}  # fmt: skip
        async with bot_process(kind, "discord", base, env, profile) as (proc, data):
            try:
                question = await _question(server, kind, channel, asker)
            except AssertionError as exc:
                burst.error = f"no question posted: {exc}\n{bot_log(data)}"
                return burst
            answers = [c for c in question.custom_ids() if c.startswith(("sb:a:", "f:"))]
            records = []

            async def click(i: int) -> None:
                answer = answers[i % len(answers)]
                records.append(await server.click(channel, members[i], question.id, answer))

            with cpu_hogs(hogs):
                cpu_before = cpu_seconds(proc.pid)
                burst.send_span_s = await send_open_loop(clicks, seconds, click)
                try:
                    await server.wait_for(lambda: all(r.callbacks for r in records), 60, "every callback")
                except AssertionError:
                    pass  # counted below as unanswered
                burst.bot_cpu_s = cpu_seconds(proc.pid) - cpu_before
            for record in records:
                accepted = [c for c in record.callbacks if c.status in (200, 204)]
                if accepted:
                    burst.latencies.append(accepted[0].at - record.dispatched_at)
                else:
                    burst.unanswered += 1
                burst.refused_answers += max(0, len(record.callbacks) - 1)  # a late one is refused too
        if kind.name != "floor":
            burst.stored = stored_answers(data)
    return burst


async def _question(server: FakeDiscord, kind: BotKind, channel, asker) -> MessageRecord:
    """The message with the answer buttons: ours posted by the bot for /quiz, the floor's by the fake."""
    if kind.name == "floor":
        await server.wait_ready(timeout=60)
        return await server.create_message(channel, {"content": "Question", "components": [FLOOR_BUTTONS]})
    await server.wait_for_request("PUT", r"^/applications/\d+/commands$", timeout=60)
    record = await server.slash_command(channel, asker, "quiz", {"type": "single"})

    def posted() -> MessageRecord | None:
        message = server.messages.get(record.original_message_id or 0)
        return message if message is not None and not message.flags & LOADING else None

    return await server.wait_for(posted, 30, "the question")


def _check_a_sample(server: FakeDiscord) -> None:
    """The fake's body check for the first SPEC_CHECKED requests of each route, then none."""
    seen: Counter[str] = Counter()
    check = server.spec.check_body

    def sampled(match: Any, *args: Any, **kwargs: Any) -> list[Any]:
        seen[match.template] += 1
        return check(match, *args, **kwargs) if seen[match.template] <= SPEC_CHECKED else []

    server.spec.check_body = sampled  # type: ignore[method-assign]
