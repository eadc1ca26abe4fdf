"""Weak points and mistake causes through the real adapters: on Telegram (python-telegram-bot
against the fake server) `/weak` lists the weakest points with a "practise these" button that
starts a weak-point run, `/quiz weak` drills the same items, a wrong answer's receipt carries
the cause buttons and `/mistakes` then groups by cause; forged clicks are refused. In the
console (a real process) `/weak`, `/quiz weak`, `/mistakes cause` and `/ready`'s minimum."""

from __future__ import annotations

from bot.locales.i18n import t
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.process import BotProcess
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_study_e2e_discord import Seat, seat  # noqa: F401  (a fixture)
from tests.test_study_e2e_telegram import LI, ZH, click_answer, question
from tests.test_telegram_harness import TelegramHarness, buttons, round_of, tg_fixture  # noqa: F401

CAUSE_DATA = ("concept", "careless", "unseen", "misremembered")


async def test_telegram_weak_points_their_button_and_quiz_weak(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start(language=ZH)
    # Question 1 (math) wrong, question 3 (physics) right, five days ago. Unseen items count at
    # the prior fitted on those first answers, Beta(1 + 1, 1 + 1): 50%. Question 1's recall has
    # faded to 61% (FSRS), so math (it and unseen question 2) is at 56%; physics is the strongest.
    await click_answer(tg, await question(tg, "/quiz 1"), right=False)
    await click_answer(tg, await question(tg, "/quiz 3"), right=True)
    await tg.advance(5 * 86400)
    listed = await tg.say(LI.id, LI, "/weak")
    lines = listed["text"].splitlines()
    assert lines[0] == "<b>" + t(ZH, "weak.title", count=3) + "</b>"
    assert lines[1:4] == [
        "1. optimization：预计记得 50% · 做过 0/1 · 今天到期 0 · 错题本 0",
        "2. transformer：预计记得 50% · 做过 0/1 · 今天到期 0 · 错题本 0",
        "3. math：预计记得 56% · 做过 1/2 · 今天到期 1 · 错题本 1",
    ]
    assert "physics" not in listed["text"]
    assert "· 单选题：预计记得 61% · 做过 1/1 · 今天到期 1 · 错题本 1" in lines
    assert t(ZH, "weak.based", count=2) in lines
    weak_message = server.last_message(LI.id)
    assert buttons(weak_message) == {"练这几项 ▶": "w1"}

    # The button starts the weak-point run over those items, least likely recalled first (ties
    # in bank order): question 2, then 4, 5, and 1 last.
    assert await tg.click(LI.id, LI, weak_message.message_id, "w1") == ""
    asked = await tg.question(LI.id)
    assert "Primes?" in asked.text
    replaced = await server.wait_for_request("sendMessage", lambda p: p["chat_id"] == LI.id)
    assert replaced["text"].startswith("📋 练习小结 · 顺序练习\n")  # the run the weak one replaced
    summary = await tg.say(LI.id, LI, "/quiz 结束")
    assert t(ZH, "drill.summary_title", mode=t(ZH, "drill.mode.weak")) in summary["text"]

    # /quiz weak (and its Chinese word) drills the same.
    typed = await question(tg, "/quiz 薄弱")
    assert "Primes?" in typed.text

    # A "practise these" click from a message that does not carry the button is refused.
    refused = await tg.click(LI.id, LI, typed.message_id, "w1", check=False)
    assert refused == t(ZH, "receipt.closed")


async def test_telegram_a_mistakes_cause_from_its_receipt_groups_the_notebook(tg: TelegramHarness) -> None:
    server = tg.server
    app = await tg.start(language=ZH)
    first = await question(tg, "/quiz 1")
    rid = round_of(first)
    await click_answer(tg, first, right=False)
    receipt = server.last_message(LI.id)
    cause_buttons = {text: data for text, data in buttons(receipt).items() if data.startswith("c1:")}
    assert cause_buttons == {"概念不清": f"c1:{rid}:concept", "粗心": f"c1:{rid}:careless",
                             "没见过": f"c1:{rid}:unseen", "记错": f"c1:{rid}:misremembered"}  # fmt: skip
    told = await tg.click(LI.id, LI, receipt.message_id, f"c1:{rid}:careless")
    assert told == t(ZH, "cause.set", number=1, cause="粗心")
    # Forged: a cause the bot does not write, and a round of no receipt here.
    closed = t(ZH, "receipt.closed")
    assert await tg.click(LI.id, LI, receipt.message_id, f"c1:{rid}:lazy", check=False) == closed
    assert await tg.click(LI.id, LI, receipt.message_id, f"c1:{rid + 50}:concept", check=False) == closed
    # A right answer's receipt has no cause buttons; a cause on an item not in the notebook is refused.
    second = await question(tg, "/quiz 3")
    await click_answer(tg, second, right=True)
    right_receipt = server.last_message(LI.id)
    assert not any(d.startswith("c1:") for d in buttons(right_receipt).values())
    refused = await tg.say(LI.id, LI, "/mistakes cause 3 记错")
    assert refused["text"] == t(ZH, "cause.not_in_notebook", number=3)

    await app.quiz.flush()
    notebook = (await tg.say(LI.id, LI, "/mistakes"))["text"]
    assert t(ZH, "mistakes.by_cause", causes="粗心 1") in notebook
    assert "1. [粗心] 2+2=?" in notebook
    # The typed form changes it; /mistakes 记错 lists that cause only.
    changed = await tg.say(LI.id, LI, "/mistakes cause 1 记错")
    assert changed["text"] == t(ZH, "cause.set", number=1, cause="记错")
    only = (await tg.say(LI.id, LI, "/mistakes 记错"))["text"]
    assert "1. [记错] 2+2=?" in only
    assert (await tg.say(LI.id, LI, "/mistakes 粗心"))["text"] == t(ZH, "mistakes.none")


async def test_console_weak_quiz_weak_causes_and_readys_minimum(tmp_path) -> None:
    bot = await BotProcess.start(tmp_path / "data")
    try:
        await bot.wait_for("studybot 控制台")
        bot.send("/ready")
        await bot.wait_for(t(ZH, "ready.too_few", count=0, minimum=20, needed=20))
        bot.send("/quiz 5")
        await bot.wait_for("第 5 / 62 题")
        bot.send("A")  # wrong (C): the console's cause buttons are a line saying how to type one
        await bot.wait_for(t(ZH, "cause.hint"))
        await bot.wait_for("回车、n 或「下一题」：下一题")
        bot.send("/mistakes cause 粗心")  # the question last asked
        await bot.wait_for(t(ZH, "cause.set", number=5, cause="粗心"))
        bot.send("/mistakes")
        await bot.wait_for(t(ZH, "mistakes.by_cause", causes="粗心 1"))
        bot.send("/weak")
        await bot.wait_for(t(ZH, "weak.how_typed"))
        bot.send("/quiz weak")
        await bot.wait_for(t(ZH, "kind.practice") + " · ")  # a practice question
        bot.send("/quiz 结束")
        await bot.wait_for(t(ZH, "drill.summary_title", mode=t(ZH, "drill.mode.weak")))
    finally:
        assert await bot.quit() == 0
    assert "Traceback" not in bot.output


# ---------------------------------------------------------------- Discord (discord.py against the fake)


async def test_discord_cause_buttons_and_the_weak_points_button(seat: Seat) -> None:  # noqa: F811
    h = seat.h
    await h.start()
    first = await seat.question("quiz", {"number": 1})
    await seat.click_answer(first, right=False)
    receipt = next(m for m in reversed(h.server.messages_in(seat.channel)) if m.content.startswith("❌"))
    rid = (await h.last_round(seat.channel)).id
    ids = receipt.custom_ids()
    assert [ids[f"sb:c:{rid}:{c}"]["label"] for c in CAUSE_DATA] == [
        "concept unclear", "careless", "never seen", "misremembered"]  # fmt: skip
    told = await h.click(seat.member, receipt, f"sb:c:{rid}:unseen", channel=seat.channel)
    assert told is not None and told.content == t("en", "cause.set", number=1, cause="never seen")
    lazy = await h.server.forged_click(seat.channel, seat.member, receipt.id, f"sb:c:{rid}:lazy")
    forged = await h.reply(lazy)
    assert forged is not None and forged.content == t("en", "receipt.closed")
    notebook = await seat.say("mistakes", sub="list")
    assert t("en", "mistakes.by_cause", causes="never seen 1") in notebook
    assert "1. [never seen] 2+2=?" in notebook

    weak = await seat.reply("weak")
    assert t("en", "weak.title", count=3) in embed_text(weak)
    assert weak.custom_ids()["sb:wk:0"]["label"] == "Practise these ▶"
    posted = await h.click(seat.member, weak, "sb:wk:0", channel=seat.channel)
    assert posted is not None and not posted.flags & EPHEMERAL  # the question, for the channel
    asked = await h.last_round(seat.channel)
    assert asked.id != rid and (await h.message_of(asked.id)).id == posted.id
    # From a message that does not carry it, the button is refused.
    carried_not = await h.server.forged_click(seat.channel, seat.member, receipt.id, "sb:wk:0")
    stray = await h.reply(carried_not)
    assert stray is not None and stray.content == t("en", "receipt.closed")


async def test_discord_ready_needs_twenty_answers_then_forecasts_with_a_chart(seat: Seat) -> None:  # noqa: F811
    """/ready from a Traditional Chinese Discord client: the minimum, then the text and its chart
    (an attachment, Chinese glyphs drawn), only for the learner in a server."""
    from tests.study_e2e import assert_cjk_chart

    tw = "zh-TW"
    await seat.h.start()
    for k in range(19):  # questions 1 and 3 in turn, every third answer wrong, an hour apart
        await seat.click_answer(await seat.question("quiz", {"number": 1 if k % 2 else 3}), right=k % 3 != 0)
        await seat.advance(3600)
    early = await seat.reply("ready", locale=tw)
    assert embed_text(early) == t(tw, "ready.too_few", count=19, minimum=20, needed=1)
    assert not early.data.get("attachments")
    await seat.click_answer(await seat.question("quiz", {"number": 1}), right=True)
    await seat.advance(60)
    ready = await seat.reply("ready", locale=tw)
    shown = embed_text(ready)
    assert t(tw, "ready.today") in shown and t(tw, "ready.based", count=20) in shown, shown
    assert t(tw, "ready.unseen", count=3, prior="50%") in shown
    assert "Rests on" not in shown and "expected" not in shown.lower()
    assert [a["filename"] for a in ready.data["attachments"]] == ["ready.png"]
    upload = await seat.h.server.wait_for_request(
        "POST", r"^/(interactions|webhooks)/", lambda r: "ready.png" in r.uploads
    )
    assert_cjk_chart(upload.uploads["ready.png"], tw)


async def test_telegram_ready_needs_twenty_answers_then_forecasts_with_a_chart(tg: TelegramHarness) -> None:
    server = tg.server
    await tg.start(language=ZH)
    for k in range(19):  # questions 1 and 3 in turn, every third answer wrong, an hour apart
        await click_answer(tg, await question(tg, f"/quiz {1 if k % 2 else 3}"), right=k % 3 != 0)
        await tg.advance(3600)
    early = await tg.say(LI.id, LI, "/ready")
    assert early["text"] == t(ZH, "ready.too_few", count=19, minimum=20, needed=1)
    await click_answer(tg, await question(tg, "/quiz 1"), right=True)
    await tg.advance(60)
    ready = (await tg.say(LI.id, LI, "/ready"))["text"]
    photo = await server.wait_for_request("sendPhoto", lambda p: p["chat_id"] == LI.id)
    assert ready.startswith("<b>" + t(ZH, "ready.today") + "</b>")
    assert t(ZH, "ready.based", count=20) in ready
    # Three items never answered count at the prior from the two first answers (one wrong).
    assert t(ZH, "ready.unseen", count=3, prior="50%") in ready
    assert "及格线 9.6 的概率" in ready  # the bank has no paper: every item, pass at 60 % of 16
    assert photo["caption"] == t(ZH, "ready.chart_title")
    sent = next(m for m in reversed(server.messages_in(LI.id)) if m.params is photo)
    assert sent.file is not None and sent.file.kind == "photo" and sent.file.data.startswith(b"\x89PNG")


def test_a_wrong_cause_is_refused_in_the_chats_words() -> None:
    from bot.application.commands.parsing import parse
    from bot.application.quiz_settings import QuizError

    try:
        parse("/mistakes cause 12 懒")
    except QuizError as refused:
        assert "概念不清 | 粗心 | 没见过 | 记错" in refused.render(ZH)
        assert "concept | careless | unseen | misremembered" in refused.render("en")
    else:
        raise AssertionError("accepted")
