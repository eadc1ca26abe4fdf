"""The study tools end to end on Discord (real discord.py against the fake Discord, under a
ManualClock), for a learner in a DM with the bot and in a server channel (answered ephemerally):
a mock exam across a restart keeps its answers and its clock, a short mock on the real clock and
the real APScheduler reminds and hands in by itself with nothing typed, a wrong answer goes into /mistakes
and leaves after two right ones, /review serves a due card and reschedules it, /stats attaches a
PNG whose Chinese labels are drawn; and a /report in the server reaches its admin, who resolves
it, and the reporter hears back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.locales.i18n import t
from bot.views.quiz_text import local_time
from tests.fakes.discord_models import FakeChannel, FakeMember, MessageRecord
from tests.short_mock import ITEMS, STUDY, TIMEOUT, TOTAL, with_short_paper
from tests.study_e2e import assert_cjk_chart
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    live_harness_fixture,
    study_world,
)


@dataclass
class Seat:
    """Where the learner works: a server channel (replies only they see) or their DM with the bot."""

    h: Harness
    channel: FakeChannel
    member: FakeMember

    @property
    def dm(self) -> bool:
        return self.channel.guild is None

    @property
    def ref(self) -> ChatRef:
        if self.dm:
            return ChatRef(Platform.DISCORD, str(self.channel.id), ChatKind.PRIVATE)
        guild = self.channel.guild
        assert guild is not None
        return ChatRef(Platform.DISCORD, str(self.channel.id), ChatKind.GROUP, guild_key=str(guild.id))

    async def reply(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        sub: str | None = None,
        locale: str = "en-US",
    ) -> MessageRecord:
        reply = await self.h.command(self.member, name, options, sub=sub, channel=self.channel, locale=locale)
        assert reply is not None
        assert self.dm or reply.flags & EPHEMERAL, reply  # in a server, only the learner sees it
        return reply

    async def say(self, name: str, options: dict[str, Any] | None = None, *, sub: str | None = None) -> str:
        """Run a slash command; the text of the bot's answer."""
        return embed_text(await self.reply(name, options, sub=sub))

    async def question(
        self, name: str, options: dict[str, Any] | None = None, *, sub: str | None = None
    ) -> MessageRecord:
        """Run a command that asks a question; the question message (with its buttons)."""
        await self.h.command(self.member, name, options, sub=sub, channel=self.channel)
        return await self.h.message_of((await self.h.last_round(self.channel)).id)

    async def click_answer(self, message: MessageRecord, right: bool) -> str:
        """Press the right (or a wrong) button under a question; the receipt."""
        round_ = await self.h.last_round(self.channel)
        answer = self.h.answer(round_)
        prefix = f"sb:a:{round_.id}:"
        choices = [cid.removeprefix(prefix) for cid in message.custom_ids() if cid.startswith(prefix)]
        choice = answer[0] if right else next(c for c in choices if c not in answer)
        receipt = await self.h.click(self.member, message, prefix + choice, channel=self.channel)
        assert receipt is not None and (self.dm or receipt.flags & EPHEMERAL)
        return receipt.content

    def posted(self, text: str) -> MessageRecord | None:
        """The bot's latest message in the channel with `text` in it."""
        return next((m for m in reversed(self.h.server.messages_in(self.channel)) if text in m.content), None)

    async def advance(self, seconds: float) -> None:
        assert self.h.app is not None
        await self.h.app.scheduler.advance(seconds)  # type: ignore[attr-defined]


def seat_in(harness: Harness, where: str) -> Seat:
    if where == "dm":
        channel, member = harness.server.dm(harness.world.student.user)
        return Seat(harness, channel, member)
    return Seat(harness, harness.general, harness.world.student)


@pytest.fixture(params=["dm", "server"])
def seat(request: pytest.FixtureRequest, harness: Harness) -> Seat:
    return seat_in(harness, request.param)


@pytest.fixture(params=["dm", "server"])
def live_seat(request: pytest.FixtureRequest, live_harness: Harness) -> Seat:
    """A seat on the real clock and the real APScheduler, with the three-second paper."""
    live_harness.bank = with_short_paper(live_harness.bank)
    return seat_in(live_harness, request.param)


async def test_a_timed_mock_reminds_and_hands_in_by_itself_on_the_real_clock(live_seat: Seat) -> None:
    seat, h = live_seat, live_seat.h
    await h.start(study=STUDY)
    assert h.app is not None
    started = await seat.say("mock", sub="start")
    assert t("en", "mock.started", title="Sample bank") in started
    # one answer (a blank paper is no result), then nothing more is typed
    await seat.say("mock", {"number": 1, "answer": "A"}, sub="answer")
    (mock,) = await h.app.storage.mocks.open_mocks()
    reminder_text = t("en", "mock.reminder", count=1, unanswered=ITEMS - 1)
    await h.server.wait_for(lambda: seat.posted(reminder_text), TIMEOUT, "the reminder")
    # A scores 0 or 1 point: the paper's options are shuffled
    timed_out = [t("en", "mock.timed_out", score=s, total=TOTAL) for s in ("0", "1")]
    await h.server.wait_for(lambda: any(seat.posted(x) for x in timed_out), TIMEOUT, "the automatic hand-in")
    assert datetime.now(UTC) >= mock.ends_at  # at the deadline, not before
    done = await h.app.storage.mocks.get_mock(mock.id)
    assert done is not None and done.submitted_at == mock.ends_at


async def test_a_mock_keeps_its_answers_and_its_clock_across_a_restart(seat: Seat) -> None:
    h = seat.h
    await h.start()
    started = await seat.say("mock", {"order": "ordered"}, sub="start")  # the paper as the bank has it
    assert t("en", "mock.started", title="Sample bank") in started and "0:16:00 left" in started
    saved = await seat.say("mock", {"number": 1, "answer": "B"}, sub="answer")
    assert saved.startswith(t("en", "mock.kept", number=1))
    await seat.advance(4 * 60)
    await h.stop()
    h.clock.advance(60)  # the bot is down for a minute: the paper's clock runs on
    await h.start()
    again = await seat.say("mock", sub="start")  # /mock twice: the same paper resumes
    assert t("en", "mock.resumed", title="Sample bank") in again and "0:11:00 left" in again
    sheet = await seat.say("mock", sub="sheet")
    assert "Answer sheet: 1/5 answered, 0:11:00 left" in sheet and "Unanswered: 2–5" in sheet
    assert t("en", "mock.your_answer", answer="B") in await seat.say("mock", {"number": 1}, sub="go")
    await seat.say("mock", {"number": 3, "answer": "true"}, sub="answer")

    await seat.advance(60)  # 10 minutes before the end, by the clock started before the restart
    reminder = await h.server.wait_for(lambda: seat.posted("⏰"), what="the reminder")
    assert reminder.content == t("en", "mock.reminder", count=10, unanswered=3)
    await seat.advance(10 * 60)
    timed_out = t("en", "mock.timed_out", score="2", total="16")
    await h.server.wait_for(lambda: seat.posted(timed_out), what="the automatic hand-in")
    report = await seat.say("mock", sub="report")
    assert t("en", "mock.score", score="2", total="16") in report
    assert t("en", "mock.time_used", minutes=16, seconds=0) in report


async def test_mistakes_review_and_stats(seat: Seat) -> None:
    h = seat.h
    await h.start()
    app = h.app
    assert app is not None
    wrong = await seat.question("quiz", {"type": "single"})
    chat = await app.store.find_chat("discord", str(seat.channel.id))
    assert chat is not None and chat.ref.kind is seat.ref.kind  # a DM is a private chat to the bot
    assert (await seat.click_answer(wrong, right=False)).startswith(t("en", "receipt.wrong"))
    listed = await seat.say("mistakes", sub="list")
    assert "2+2=?" in listed and t("en", "mistakes.misses", count=1) in listed
    for _ in range(2):
        await seat.advance(60)
        practice = await seat.question("mistakes", sub="practice")
        assert "2+2=?" in embed_text(practice)
        assert (await seat.click_answer(practice, right=True)).startswith("✅")
    assert await seat.say("mistakes", sub="list") == t("en", "mistakes.none")

    # /review: the card is due later (two right answers in a row); when it is due it is served,
    # and answering it moves its due time on.
    user_id = await app.quiz.user_id(UserRef(Platform.DISCORD, str(seat.member.id), "bob"))
    zone = (await app.quiz.chat(seat.ref)).settings.timezone
    waiting = await seat.say("review", sub="due")
    first_due = await app.storage.study.next_due(user_id, "sample")
    assert first_due is not None and waiting == t("en", "review.done", when=local_time(first_due, zone))
    started = h.clock.now()
    await seat.advance((first_due - started).total_seconds() + 1)
    due = await seat.question("review", sub="due")
    assert "2+2=?" in embed_text(due)
    await seat.click_answer(due, right=True)
    done = await seat.say("review", sub="due")
    next_due = await app.storage.study.next_due(user_id, "sample")
    assert next_due is not None and next_due - h.clock.now() > first_due - started
    assert done == t("en", "review.done", when=local_time(next_due, zone))

    # /stats from a Chinese Discord client: the text and the chart (an attachment) in Chinese.
    stats = await seat.reply("stats", locale="zh-CN")
    shown = embed_text(stats)
    assert t("zh-CN", "progress.coverage", done=1, total=5) in shown and "Stats for" not in shown, shown
    assert [a["filename"] for a in stats.data["attachments"]] == ["progress.png"]
    upload = await h.server.wait_for_request(
        "POST", r"^/(interactions|webhooks)/", lambda r: "progress.png" in r.uploads
    )
    assert_cjk_chart(upload.uploads["progress.png"], "zh-CN")


async def test_a_report_reaches_the_server_admin_and_the_reporter_hears_back(harness: Harness) -> None:
    h = harness
    await h.start()
    bob = Seat(h, h.general, h.world.student)
    alice = Seat(h, h.general, h.world.admin)
    await bob.question("quiz", {"type": "single"})
    thanks = await bob.say("report", {"text": "option D should read 4"})
    assert thanks == t("en", "report.thanks", id=1, number=1)
    with pytest.raises(PermissionError):  # Discord offers /reports only to members with Manage Server
        await h.server.slash_command(h.general, bob.member, "reports", subcommand="list")
    listed = await alice.say("reports", sub="list")
    assert "#1" in listed and "bob" in listed and "option D should read 4" in listed
    resolved = await alice.say("reports", {"id": 1, "note": "fixed in the bank"}, sub="resolve")
    assert resolved == t("en", "reports.resolved", id=1)
    told = t("en", "report.resolved_named", name="bob", id=1, number=1, note="fixed in the bank")
    assert await h.server.wait_for(lambda: bob.posted(told), what="the reporter told")  # where they reported
    assert await alice.say("reports", sub="list") == t("en", "reports.none")


async def test_a_report_reaches_the_operator_in_a_dm_and_their_reports_from_there(harness: Harness) -> None:
    """The operator the config names (`admins: {discord: [id]}`) looks after the configured banks:
    a report filed in any server channel reaches them in a DM the bot opens, and they list and
    resolve it from that DM; the reporter is told in the channel they reported in, by name."""
    h = harness
    operator = h.server.add_user("olga")
    await h.start(admins={"discord": [str(operator.id)]})
    bob = Seat(h, h.general, h.world.student)
    await bob.question("quiz", {"type": "single"})
    assert await bob.say("report", {"number": 2, "text": "C is prime too?"}) == t(
        "en", "report.thanks", id=1, number=2
    )
    dm_channel, dm_member = h.server.dm(operator)
    dm = Seat(h, dm_channel, dm_member)
    told = await h.server.wait_for(lambda: dm.posted("#1"), what="the operator's DM")
    assert "C is prime too?" in told.content and "bob" in told.content, told.content
    listed = await dm.say("reports", sub="list")
    assert "#1" in listed and "C is prime too?" in listed
    resolved = await dm.say("reports", {"id": 1, "note": "4 is not prime"}, sub="dismiss")
    assert resolved == t("en", "reports.dismissed", id=1)
    answer = t("en", "report.dismissed_named", name="bob", id=1, number=2, note="4 is not prime")
    assert await h.server.wait_for(lambda: bob.posted(answer), what="the reporter told")
async def test_the_next_button_asks_the_following_question_after_a_restart(seat: Seat) -> None:
    """A graded practice answer's receipt (only the learner sees it) carries Next ▶; pressed,
    even after a restart (a DynamicItem), it posts the next question in order with its place."""
    h = seat.h
    await h.start()
    first = await seat.question("quiz", {"number": 1})
    assert t("en", "question.place", n=1, total=5) in embed_text(first)
    await seat.click_answer(first, right=False)
    receipt = next(m for m in reversed(h.server.messages_in(seat.channel)) if m.content.startswith("❌"))
    rid = (await h.last_round(seat.channel)).id
    assert receipt is not None and f"sb:n:{rid}" in receipt.custom_ids()
    assert receipt.custom_ids()[f"sb:n:{rid}"]["label"] == "Next ▶"
    await h.stop()
    await h.start()
    posted = await h.click(seat.member, receipt, f"sb:n:{rid}", channel=seat.channel)
    assert posted is not None and not posted.flags & EPHEMERAL  # the question, for the channel
    second = await h.last_round(seat.channel)
    assert second.id != rid and h.bank.question(second.question_id).number == 2
    assert t("en", "question.place", n=2, total=5) in embed_text(posted)
    assert (await h.message_of(second.id)).id == posted.id  # its buttons answer that round
