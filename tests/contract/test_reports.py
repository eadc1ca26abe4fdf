"""Contract: error reports on questions, listed while open (with the reporter's name), closed once."""

from __future__ import annotations

from datetime import timedelta

from bot.domain.study_records import Report
from tests.contract.helpers import SETTINGS, T0, chat_ref, user_ref


async def test_reports_are_listed_while_open_and_closed_once(storage):
    reports = storage.reports
    chat = await storage.store.ensure_chat(chat_ref("c1"), SETTINGS)
    (me,) = await storage.store.ensure_users([user_ref("me", "Mei")])
    first = await reports.add_report(Report(0, me, chat.id, "sample", "v1", "s-1", "B is right too", T0))
    other = await reports.add_report(Report(0, me, chat.id, "other", "v3", "o-1", "typo", T0))
    assert first != other
    stored = await reports.get_report(first)
    text = "B is right too"
    assert stored == Report(first, me, chat.id, "sample", "v1", "s-1", text, T0, "open", "", "Mei")
    assert [r.id for r in await reports.open_reports()] == [first, other]
    assert [r.id for r in await reports.open_reports("other")] == [other]
    closed_at = T0 + timedelta(days=1)
    assert await reports.close_report(first, "resolved", "fixed in v2", closed_at) is True
    assert await reports.close_report(first, "dismissed", "", closed_at) is False
    assert (await reports.get_report(first)).state == "resolved"
    assert (await reports.get_report(first)).note == "fixed in v2"
    assert [r.id for r in await reports.open_reports()] == [other]
    assert await reports.get_report(other + 100) is None


async def test_open_reports_are_scoped_to_a_chat_or_its_server_and_keep_the_item_hash(storage):
    reports = storage.reports
    here = await storage.store.ensure_chat(chat_ref("c1", guild="g1"), SETTINGS)
    sibling = await storage.store.ensure_chat(chat_ref("c2", guild="g1"), SETTINGS)
    elsewhere = await storage.store.ensure_chat(chat_ref("c3", guild="g2"), SETTINGS)
    (me,) = await storage.store.ensure_users([user_ref("me", "Mei")])
    ids = [
        await reports.add_report(
            Report(0, me, chat.id, "sample", "v1", "s-1", "typo", T0, question_hash="h1")
        )
        for chat in (here, sibling, elsewhere)
    ]
    assert [r.id for r in await reports.open_reports(chat_id=here.id)] == ids[:1]
    assert [r.id for r in await reports.open_reports(chat_id=here.id, guild=("discord", "g1"))] == ids[:2]
    assert [r.id for r in await reports.open_reports("other", chat_id=here.id, guild=("discord", "g1"))] == []
    assert (await reports.get_report(ids[0])).question_hash == "h1"


async def test_open_reports_of_the_banks_one_looks_after_come_from_any_chat_and_keep_their_message(storage):
    """An owner's list: the reports on their banks wherever they were made (a private chat too),
    beside their own chat's; each keeps the message it was made in, for the answer."""
    reports = storage.reports
    group = await storage.store.ensure_chat(chat_ref("g"), SETTINGS)
    private = await storage.store.ensure_chat(chat_ref("p"), SETTINGS)
    (me,) = await storage.store.ensure_users([user_ref("me", "Mei")])
    on_mine = await reports.add_report(
        Report(0, me, private.id, "mine", "v1", "m-1", "typo", T0, message_ref="p:17")
    )
    on_other = await reports.add_report(Report(0, me, private.id, "other", "v1", "o-1", "typo", T0))
    in_group = await reports.add_report(Report(0, me, group.id, "other", "v1", "o-2", "typo", T0))
    assert [r.id for r in await reports.open_reports(of_banks=["mine"])] == [on_mine]
    assert [r.id for r in await reports.open_reports(of_banks=["mine", "third"])] == [on_mine]
    both = await reports.open_reports(chat_id=group.id, of_banks=["mine"])
    assert [r.id for r in both] == [on_mine, in_group]
    assert [r.id for r in await reports.open_reports("other", chat_id=group.id, of_banks=["mine"])] == [
        in_group
    ]
    assert (await reports.get_report(on_mine)).message_ref == "p:17"
    assert (await reports.get_report(on_other)).message_ref is None
