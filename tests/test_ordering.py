"""排序题 (ordering) end to end: a bank file and a CSV row typed 排序题, grading by exact order
(partial credit for half the places), the console answered by typing the letters in order,
Telegram and Discord by tapping the options in order (InputKind.ORDER: 撤销, 提交 once all are
placed) or typing them, a daily and a contest that ask it and take taps, a paper's 排序题
section, a mock exam's shuffled options tapped in order (kept across a restart), CSV export and
re-import; GIFT has no form for it, so a GIFT export is refused."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from bank.export_cmd import run_export
from bank.exporters import export_bank
from bank.importer import import_paper, import_source
from bank.loader import load_bank_text
from bank.yaml_io import dump_bank
from bot.application.answering import ReceiptReply, SelectionReply
from bot.application.clicks import Act, Click
from bot.application.requests import SubmitAnswer
from bot.domain import option_shuffle as shuffle
from bot.domain.grading import Verdict, grade
from bot.domain.kinds import ChatKind, ChatRef, InputKind, Platform, RoundKind, UserRef
from bot.domain.questions import Bank, QuestionType
from bot.locales.i18n import t
from tests.conftest import make_bank
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.test_console import run_console
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    buttons,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_telegram_harness import ANN, CAT, TelegramHarness, round_of, tg_fixture  # noqa: F401
from tests.test_telegram_harness import BOB as TG_BOB
from tests.test_telegram_harness import GROUP as TG_GROUP
from tests.test_telegram_harness import buttons as tg_buttons

BANK = """\
id: order-test
title: 排序
language: zh-CN
source: test
questions:
  - id: o-1
    number: 1
    type: ordering
    points: 2
    stem: 把训练流程排好序
    options: {A: 清洗数据, B: 收集数据, C: 评估, D: 训练}
    answer: BADC
    explanation: 先收集再清洗，训练后评估。
"""
ORDERING = load_bank_text(BANK).questions[0]


@pytest.fixture
def bank() -> Bank:
    base = make_bank()
    return replace(base, questions=(*base.questions, replace(ORDERING, id="o-6", number=6, tags=("order",))))


def test_a_bank_item_keeps_its_order_and_is_graded_by_it() -> None:
    assert ORDERING.type is QuestionType.ORDERING and ORDERING.answer == ("B", "A", "D", "C")
    assert load_bank_text(dump_bank(load_bank_text(BANK))).questions[0] == ORDERING
    assert grade(ORDERING, "BADC").verdict is Verdict.CORRECT
    assert grade(ORDERING, "b → a → d → c").verdict is Verdict.CORRECT
    assert grade(ORDERING, "ABCD").verdict is Verdict.WRONG
    assert grade(ORDERING, "BACD").verdict is Verdict.WRONG
    assert grade(ORDERING, "BACD", partial_credit=True).verdict is Verdict.PARTIAL  # B, A in place
    with pytest.raises(Exception, match="every option"):  # a bank answer leaving an option out
        load_bank_text(BANK.replace("answer: BADC", "answer: BAD"))


def test_a_csv_row_typed_排序题_is_an_ordering_item_and_exports_back() -> None:
    row = "type,question,A,B,C,D,answer\n排序题,把训练流程排好序,清洗数据,收集数据,评估,训练,BADC\n"
    got = import_source(row.encode(), "x.csv", bank_id="t")
    assert [w.kind for w in got.warnings] == ["points"]  # no points column: one warning
    (q,) = got.bank.questions
    assert (q.type, q.answer) == (QuestionType.ORDERING, ("B", "A", "D", "C"))
    again = import_source(export_bank(got.bank, "csv"), "t.csv", bank_id="t").bank.questions[0]
    assert (again.type, again.answer, again.options) == (q.type, q.answer, q.options)
    short = import_source(row.replace("BADC", "BAD").encode(), "x.csv", bank_id="t")
    assert not short.bank or not short.bank.questions  # never imported as another type
    assert [w.key for w in short.warnings if w.kind == "no-answer"] == ["import.answers.not_an_order"]


def test_a_papers_排序题_section() -> None:
    paper = ("测试卷\n一、单选题（每题1分）\n1. 下列哪个是激活函数？\nA. ReLU B. SGD C. Dropout\n答案：A\n"
             "二、排序题（每题2分）\n2. 把训练流程排好序\n"
             "A. 清洗数据 B. 收集数据 C. 评估 D. 训练\n答案：BADC\n")
    got = import_paper(paper, bank_id="p")
    assert not got.warnings
    assert [(q.type, q.answer, q.points) for q in got.bank.questions] == [
        (QuestionType.SINGLE, ("A",), 1.0), (QuestionType.ORDERING, ("B", "A", "D", "C"), 2.0)]


def test_gift_export_is_refused_naming_the_item(tmp_path) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(BANK, encoding="utf-8")
    err = io.StringIO()
    assert run_export(str(path), "gift", out=io.StringIO(), err=err, language="zh-CN") == 1
    assert "第 1 题" in err.getvalue()


def test_a_mock_exams_shuffled_options_keep_the_order() -> None:
    seen = shuffle.shown(ORDERING, "DCBA")  # shown A is the bank's D, ...
    assert seen.answer == ("C", "D", "A", "B")
    kept = shuffle.to_bank(ORDERING, "DCBA", "CDAB")
    assert kept == "BADC" and grade(ORDERING, kept).verdict is Verdict.CORRECT


def test_the_console(tmp_path) -> None:
    (tmp_path / "bank.yaml").write_text(BANK, encoding="utf-8")
    (tmp_path / "studybot.yaml").write_text("default_bank: order-test\nbank_paths: [bank.yaml]\n")
    result = run_console(tmp_path, "/quiz\nB A D C\n/quit\n", "--config", "studybot.yaml")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "排序题" in out and "A. 清洗数据" in out and t("zh-CN", "question.how_ordering") in out
    assert "✅" in out and "B → A → D → C" in out


async def test_telegram_typed(tg: TelegramHarness) -> None:
    await tg.start()
    await tg.say(ANN.id, ANN, "/quiz ordering")
    question = tg.server.last_message(ANN.id)
    assert "A. 清洗数据" in question.text or "清洗数据" in question.text
    assert t("en", "question.how_order") in question.text  # tap in order, or reply with the letters
    receipt = await tg.say(ANN.id, ANN, "BADC")
    assert receipt["text"].startswith(t("en", "receipt.correct", points=2)), receipt["text"]
    assert "B → A → D → C" in receipt["text"]


async def test_telegram_tapped_in_order_with_undo(tg: TelegramHarness) -> None:
    app = await tg.start(language="zh-CN")
    await tg.say(CAT.id, CAT, "/quiz ordering")
    question = tg.server.last_message(CAT.id)
    rid = round_of(question)
    assert tg_buttons(question) == {
        "A": f"t1:{rid}:A", "B": f"t1:{rid}:B", "C": f"t1:{rid}:C", "D": f"t1:{rid}:D",
        "撤销": f"u1:{rid}", "提交": f"s1:{rid}", "☆ 收藏": f"f1:{rid}",
    }  # fmt: skip

    async def tap(data: str) -> str:
        return await tg.click(CAT.id, CAT, question.message_id, data)

    assert await tap(f"s1:{rid}") == t("zh-CN", "order.none")  # nothing placed: nothing submitted
    toasts = [await tap(f"t1:{rid}:{x}") for x in "BAC"]
    assert toasts == [t("zh-CN", "order.current", order=o, left=n)
                      for o, n in (("B", 3), ("B → A", 2), ("B → A → C", 1))]  # fmt: skip
    assert await tap(f"u1:{rid}") == t("zh-CN", "order.current", order="B → A", left=2)  # C out again
    assert await tap(f"s1:{rid}") == t("zh-CN", "order.current", order="B → A", left=2)  # not yet
    assert await app.store.round_answers(rid) == []  # tapping answers nothing
    await tap(f"t1:{rid}:D")
    assert await tap(f"t1:{rid}:C") == t("zh-CN", "order.complete", order="B → A → D → C")

    assert await tap(f"s1:{rid}") == t("zh-CN", "receipt.correct", points=2)
    receipt = await tg.server.wait_for_request("sendMessage", lambda p: p["chat_id"] == CAT.id)
    assert "B → A → D → C" in receipt["text"]
    [stored] = await app.store.round_answers(rid)
    assert (stored.response, stored.verdict) == ("BADC", "correct")


async def test_telegram_a_wrong_order_in_a_group_and_a_tap_taken_back(tg: TelegramHarness) -> None:
    app = await tg.start()
    tg.server.set_member_status(TG_GROUP.id, ANN, "member")
    await tg.say(TG_GROUP, ANN, "/quiz ordering")
    question = tg.server.last_message(TG_GROUP.id)
    rid = round_of(question)
    for x in "ABB":  # B placed, then tapped again: out
        toast = await tg.click(TG_GROUP, TG_BOB, question.message_id, f"t1:{rid}:{x}")
    assert toast == t("en", "order.current", order="A", left=3)
    for x in "BCD":
        await tg.click(TG_GROUP, TG_BOB, question.message_id, f"t1:{rid}:{x}")
    toast = await tg.click(TG_GROUP, TG_BOB, question.message_id, f"s1:{rid}")
    assert toast == t("en", "receipt.wrong") + "\n" + t("en", "reveal.correct", answer="B → A → D → C")
    [stored] = await app.store.round_answers(rid)
    assert (stored.response, stored.verdict) == ("ABCD", "wrong")
    # Forged: an undo naming another round, a tap on an option the question lacks, a malformed one.
    other = await tg.say(TG_GROUP, ANN, "/quiz multi")
    other_rid = round_of(tg.server.last_message(TG_GROUP.id))
    assert other["chat_id"] == TG_GROUP.id
    for data in (f"u1:{other_rid}", f"t1:{rid}:E", f"u1:0{rid}", f"u1:{rid}:A"):
        closed = await tg.click(TG_GROUP, ANN, question.message_id, data, check=False)
        assert closed == t("en", "receipt.closed"), data
    assert await app.quiz.selections.get(rid, _tg_user(ANN)) == ()


def _tg_user(user: FakeUser) -> UserRef:
    return UserRef(Platform.TELEGRAM, str(user.id), user.first_name)


async def test_discord(harness: Harness, bank: Bank) -> None:
    h = harness
    h.bank = bank
    await h.start()
    carol, dave = h.member("carol"), h.member("dave")
    question = await h.command(carol, "quiz", {"type": "ordering"})
    rid = (await h.last_round()).id
    assert "清洗数据" in embed_text(question)  # the options listed
    assert list(buttons(question)) == [*(f"sb:t:{rid}:{x}" for x in "ABCD"), f"sb:u:{rid}", f"sb:s:{rid}",
                                       f"sb:m:{rid}", f"sb:st:{rid}"]  # fmt: skip

    said = [(await h.click(carol, question, f"sb:t:{rid}:{x}")) for x in "BAC"]
    assert all(r is not None and r.flags & EPHEMERAL for r in said)
    assert said[-1].content == t("en", "order.current", order="B → A → C", left=1)
    assert (await h.click(carol, question, f"sb:u:{rid}")).content == t("en", "order.current", order="B → A",
                                                                      left=2)  # fmt: skip
    assert (await h.click(carol, question, f"sb:s:{rid}")).content == t("en", "order.current", order="B → A",
                                                                      left=2)  # fmt: skip
    await h.click(carol, question, f"sb:t:{rid}:D")
    assert (await h.click(carol, question, f"sb:t:{rid}:C")).content == t(
        "en", "order.complete", order="B → A → D → C")  # fmt: skip
    receipt = await h.click(carol, question, f"sb:s:{rid}")
    assert receipt is not None and receipt.content.startswith("✅ Correct! +2 pt"), receipt
    assert "B → A → D → C" in receipt.content

    for x in "ABCD":
        await h.click(dave, question, f"sb:t:{rid}:{x}")
    wrong = await h.click(dave, question, f"sb:s:{rid}")
    assert wrong.content.startswith("❌ Wrong.") and "A → B → C → D" in wrong.content
    scores = {a.display_name: (a.response, a.verdict) for a in await h.app.store.round_answers(rid)}
    assert scores == {"carol": ("BADC", "correct"), "dave": ("ABCD", "wrong")}


async def test_discord_typed_in_the_form(harness: Harness, bank: Bank) -> None:
    h = harness
    h.bank = bank
    await h.start()
    carol = h.member("carol")
    question = await h.command(carol, "quiz", {"type": "ordering"})
    rid = (await h.last_round()).id
    assert await h.click(carol, question, f"sb:m:{rid}") is None  # the form opens
    submit = await h.server.submit_modal(h.general, carol, f"sb:f:{rid}", {"answer": "b a d c"})
    receipt = await h.reply(submit)
    assert receipt is not None and receipt.content.startswith("✅ Correct! +2 pt"), receipt
    # An undo or a tap naming another round, on this message, is refused and changes nothing.
    other = await h.command(carol, "quiz", {"type": "multi"})
    other_rid = (await h.last_round()).id
    assert other is not None
    for custom_id in (f"sb:u:{other_rid}", f"sb:t:{other_rid}:A", f"sb:u:x{rid}"):
        record = await h.server.forged_click(h.general, carol, question.id, custom_id)
        assert (await h.reply(record)).content == t("en", "receipt.closed"), custom_id


GROUP = ChatRef(Platform.CONSOLE, "group-1", ChatKind.GROUP)
ALICE = UserRef(Platform.CONSOLE, "a", "Alice")
BOB = UserRef(Platform.CONSOLE, "b", "Bob")


async def test_a_daily_asks_it_and_grades_the_order_at_the_deadline(make_app, clock) -> None:
    app = await make_app()
    await app.start()
    await app.dailies.set_daily(GROUP, "09:30", deadline_seconds=3600, tag="order")
    assert await app.scheduler.advance(30 * 60) == 1
    (question,) = app.port.of("question")
    assert (question.kind, question.qtype, question.number) == (RoundKind.DAILY, QuestionType.ORDERING, 6)
    for user, reply in ((ALICE, "B A D C"), (BOB, "ABCD")):
        receipt = await app.quiz.submit(SubmitAnswer(question.round_id, user, reply))
        assert not receipt.graded  # a daily says nothing before its deadline
    await app.scheduler.advance(3600)
    (reveal,) = app.port.of("reveal")
    assert (reveal.qtype, reveal.total_answers, reveal.right) == (QuestionType.ORDERING, 2, ("Alice",))
    assert reveal.correct_label == "B → A → D → C"


async def test_a_contest_of_typed_items_asks_it_and_scores_the_order(make_app, clock) -> None:
    app = await make_app()
    await app.start()
    status = await app.contests.start(GROUP, 1, 30, qtype=QuestionType.ORDERING, include_typed=True)
    assert (status.running, status.total) == (True, 1)
    (question,) = app.port.of("question")
    assert (question.kind, question.qtype) == (RoundKind.CONTEST, QuestionType.ORDERING)
    await app.quiz.submit(SubmitAnswer(question.round_id, ALICE, "BADC"))
    await app.quiz.submit(SubmitAnswer(question.round_id, BOB, "BACD"))
    await app.quiz.flush()
    while (await app.contests.status(GROUP)).running:
        when = min(j.when for j in app.scheduler.jobs.values() if j.when is not None)
        app.scheduler.clock.set(max(when, app.scheduler.clock.now()))
        await app.scheduler.run_due()
    final = app.port.of("standings")[-1]
    assert final.final and [(r.name, r.correct) for r in final.rows if r.correct] == [("Alice", 1)]


async def _tap(app, round_id: int, act: Act, token: str | None = None) -> Click:
    """A tap on the question's own message."""
    context = await app.quiz.round_context(round_id)
    control = f"c{round_id}"
    return Click(round_id, Platform.CONSOLE, GROUP.chat_key, context.round.message_ref, act, token, control,
                 frozenset({control}))  # fmt: skip


async def test_a_daily_and_a_contest_take_taps_in_order(make_app, clock) -> None:
    app = await make_app()
    await app.start()
    answering = app.application.answering
    await app.dailies.set_daily(GROUP, "09:30", deadline_seconds=3600, tag="order")
    assert await app.scheduler.advance(30 * 60) == 1
    (daily,) = app.port.of("question")
    for x in "BADC":
        await answering.click(await _tap(app, daily.round_id, Act.TOGGLE, x), ALICE, GROUP)
    receipt = await answering.click(await _tap(app, daily.round_id, Act.SUBMIT), ALICE, GROUP)
    assert isinstance(receipt, ReceiptReply) and receipt.receipt.response_label == "B → A → D → C"
    await app.scheduler.advance(3600)
    (reveal,) = app.port.of("reveal")
    assert reveal.right == ("Alice",)

    await app.contests.start(GROUP, 1, 30, qtype=QuestionType.ORDERING, include_typed=True)
    contest = app.port.of("question")[-1]
    assert contest.kind is RoundKind.CONTEST
    for x in "BAD":
        await answering.click(await _tap(app, contest.round_id, Act.TOGGLE, x), BOB, GROUP)
    shown = await answering.click(await _tap(app, contest.round_id, Act.SUBMIT), BOB, GROUP)
    assert shown == SelectionReply("B → A → D", "en", InputKind.ORDER, left=1)  # not yet submitted
    await answering.click(await _tap(app, contest.round_id, Act.UNDO), BOB, GROUP)
    for x in "CD":
        await answering.click(await _tap(app, contest.round_id, Act.TOGGLE, x), BOB, GROUP)
    graded = await answering.click(await _tap(app, contest.round_id, Act.SUBMIT), BOB, GROUP)
    assert isinstance(graded, ReceiptReply) and graded.receipt.response_label == "B → A → C → D"
    [stored] = await app.store.round_answers(contest.round_id)
    assert (stored.response, stored.verdict) == ("BACD", "wrong")


async def test_a_mock_item_tapped_in_order_keeps_its_taps_across_a_restart(tg: TelegramHarness) -> None:
    app = await tg.start()
    await tg.say(ANN.id, ANN, "/mock")
    user_id = await app.quiz.user_id(_tg_user(ANN))
    mock = await app.mocks.store.open_mock(user_id)
    number = next(i + 1 for i, item in enumerate(mock.items) if item.question_id == "o-6")
    item = mock.items[number - 1]
    right = shuffle.shown(tg.bank.question("o-6"), item.order).answer  # the right order as shown
    sent = await tg.say(ANN.id, ANN, f"/mock {number}")
    page = next(m for m in reversed(tg.server.messages_in(ANN.id)) if m.params is sent)
    assert t("en", "mock.type_order", number=number) in page.text

    async def tap(letter: str) -> None:
        assert await tg.click(ANN.id, ANN, page.message_id, f"m1:{mock.id}:{number}:p:{letter}") == ""
        await tg.server.wait_for_request(
            "editMessageText", lambda p: p["message_id"] == page.message_id and letter in p["text"]
        )

    for letter in (*right[:2], right[3]):
        await tap(letter)
    await tap(right[3])  # tapped again: out
    picks = f"m1:{mock.id}:{number}:p:"
    labels = [b["text"] for b in page.buttons if b.get("callback_data", "").startswith(picks)]
    assert sorted(labels) == sorted([f"1· {right[0]}", f"2· {right[1]}", right[2], right[3]])
    app = await tg.restart()
    for letter in right[2:]:
        await tap(letter)
    kept = (await app.mocks.store.answers(mock.id))[number - 1].response
    assert kept == "BADC" and grade(ORDERING, kept or "").verdict is Verdict.CORRECT


async def test_discord_a_mock_item_tapped_in_order_is_numbered(harness: Harness, bank: Bank) -> None:
    """The mock's ordering item on Discord, in a DM: each tap turns the same message, the placed
    options green and numbered by place (1·, 2·), a second tap takes one out again, and the order
    kept is the one graded."""
    h = harness
    h.bank = bank
    await h.start()
    assert h.app is not None
    carol = h.member("carol")
    channel, _ = h.server.dm(carol.user)
    await h.command(carol, "mock", sub="start", channel=channel)
    user_id = await h.app.quiz.user_id(UserRef(Platform.DISCORD, str(carol.user.id), "carol"))
    mock = await h.app.mocks.store.open_mock(user_id)
    assert mock is not None
    number = next(i + 1 for i, item in enumerate(mock.items) if item.question_id == "o-6")
    right = shuffle.shown(bank.question("o-6"), mock.items[number - 1].order).answer  # as shown
    page = await h.command(carol, "mock", {"number": number}, sub="go", channel=channel)
    assert page is not None and t("en", "mock.type_order_buttons", number=number) in embed_text(page)
    pick = f"sb:mk:{mock.id}:{number}:p:"

    def picks(message) -> dict[str, tuple[str, bool]]:
        """Each option's button: its label and whether it is green (placed)."""
        return {cid[len(pick):]: (b["label"], b["style"] == 3) for cid, b in buttons(message).items()
                if cid.startswith(pick)}  # fmt: skip

    for letter in (*right[:2], right[3], right[3]):  # the last one tapped twice: out again
        turned = await h.click(carol, page, pick + letter, channel=channel)
        assert turned is not None and turned.id == page.id  # the same message, redrawn
        page = turned
    shown = picks(page)
    assert sorted(label for label, _ in shown.values()) == sorted([f"1· {right[0]}", f"2· {right[1]}",
                                                                   right[2], right[3]])  # fmt: skip
    assert {letter for letter, (_, green) in shown.items() if green} == set(right[:2])
    for letter in right[2:]:
        page = await h.click(carol, page, pick + letter, channel=channel)
    kept = (await h.app.mocks.store.answers(mock.id))[number - 1].response
    assert kept == "BADC" and grade(ORDERING, kept or "").verdict is Verdict.CORRECT
    assert page is not None and "Your answer: " + " → ".join(right) in embed_text(page)
    assert picks(page) == {letter: (f"{place}· {letter}", True) for place, letter in enumerate(right, 1)}
