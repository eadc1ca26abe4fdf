"""The web app in a real headless Chromium (the distribution's `chromium`, driven by Playwright;
never `playwright install`), against the bot's own HTTP server, real SQLite and the real scheduler.

One browser for the module (the CI budget); each test its own bot and database. What a learner
sees: signing in with a Mini App's initData signed with the test bot's token, sitting a short
mock (answers, a flag, jumps on the answer sheet, a reload mid-exam, the hand-in with its
confirmation) and its report; the same mock then in the chat; a one-time link that works once;
a tampered or stale initData refused; another learner's mock out of reach by changing its id;
a paper whose countdown runs out handed in at its end (real scheduler), the page on its report;
a bank's owner on its admin page (the flagged item, its report resolved), refused to others;
the ☆ / ★ on a reviewed mock item, a practice question and its receipt, the notebook's rows and
the favourites, each the chat's own star (its /favorites shows it, and what the chat starred
shows ★ here); the notebook's table downloaded; a card due served by 复习到期的题.

With WEB_SCREENSHOTS=<folder> it also saves each page at 390 px (docs/web.md's pictures).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_asyncio

from bank.loader import load_bank
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.application.web_access import sign_init_data
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.questions import Paper, PaperSection, QuestionType
from bot.locales.i18n import t
from studybot.bootstrap import bootstrap
from studybot.config import Config
from studybot.ops import start_server
from tests.fakes.ports import RecordingPort

playwright_api = pytest.importorskip("playwright.async_api")
expect = playwright_api.expect
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("chromium not installed: .ci/run installs it (apt-get install -y chromium)")
    pytest.skip("chromium not installed (apt-get install -y chromium)", allow_module_level=True)

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOKEN = "123456:TEST-web-app-token"
TIMEOUT = 30_000  # ms: a loaded CI machine
PHONE = {"width": 390, "height": 844}
SAMPLE = Path(__file__).resolve().parent / "banks" / "sample.yaml"
SHOTS = os.environ.get("WEB_SCREENSHOTS")
if SHOTS:
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
THEME = {
    "bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579", "button_color": "#3390ec",
    "button_text_color": "#ffffff", "secondary_bg_color": "#f4f4f5", "link_color": "#3390ec",
}  # fmt: skip


def telegram_caller(user_id: int, name: str = "小明") -> Caller:
    key = str(user_id)
    return Caller(ChatRef(Platform.TELEGRAM, key, ChatKind.PRIVATE), UserRef(Platform.TELEGRAM, key, name))


def init_data(user_id: int, *, age: float = 0.0, name: str = "小明") -> str:
    user = json.dumps({"id": user_id, "first_name": name, "language_code": "zh-hans"}, ensure_ascii=False)
    return sign_init_data({"auth_date": str(int(time.time() - age)), "query_id": "AAE", "user": user}, TOKEN)


DARK = {
    "bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499", "button_color": "#5288c1",
    "button_text_color": "#ffffff", "secondary_bg_color": "#232e3c", "link_color": "#6ab3f3",
}  # fmt: skip


def mini_app_url(base: str, data: str, colours: dict[str, str] = THEME) -> str:
    theme = quote(json.dumps(colours))
    return f"{base}/app/#tgWebAppData={quote(data)}&tgWebAppVersion=7.0&tgWebAppThemeParams={theme}"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(tmp_path_factory):
    # The CJK font the install brings (noto-cjk-sans-otc), for a machine with no system CJK font,
    # then the system's fonts and the user's ($XDG_DATA_HOME/fonts: a colour emoji font there will do).
    import noto_cjk_sans_otc

    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    conf.write_text(
        f'<?xml version="1.0"?><fontconfig><dir>{Path(noto_cjk_sans_otc.__file__).parent}</dir>'
        f'<dir>/usr/share/fonts</dir><dir prefix="xdg">fonts</dir>'
        f"<cachedir>{folder}/cache</cachedir></fontconfig>"
    )
    async with playwright_api.async_playwright() as pw:
        launched = await pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"],
            env={**os.environ, "FONTCONFIG_FILE": str(conf)},
        )  # fmt: skip
        yield launched
        await launched.close()


async def serve(folder: Path, minutes: float):
    """The bot with the web app on, its HTTP server on a free port, a paper of `minutes`."""
    bank = load_bank(SAMPLE)
    sections = (PaperSection(QuestionType.SINGLE, 1, 1.0), PaperSection(QuestionType.MULTI, 1, 2.0),
                PaperSection(QuestionType.JUDGE, 1, 1.0))  # fmt: skip
    bank = replace(bank, paper=Paper(sections, minutes, 2.0))
    config = Config(data_dir=folder, default_bank=bank.id, sqlite_synchronous="NORMAL", http_port=0,
                    http_listen="127.0.0.1", web_url="http://127.0.0.1", telegram_token=TOKEN)  # fmt: skip
    app = await bootstrap(config, rng=random.Random(3), banks={bank.id: bank})
    app.add_port(RecordingPort())
    await app.start()
    server = await start_server(app, config, [])
    assert server is not None
    base = f"http://127.0.0.1:{server.port}"
    assert app.application.web is not None
    app.application.web.base_url = base  # the links it sends point at this server
    return app, server, base


@pytest_asyncio.fixture(loop_scope="module")
async def bot(tmp_path):
    """(app, base URL) with a 20-minute paper."""
    app, server, base = await serve(tmp_path, 20)
    yield app, base
    await server.stop()
    await app.close()


async def page_of(browser):
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, locale="zh-CN")
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT)
    return context, page


async def shot(page, name: str) -> None:
    if SHOTS:  # the folder is made before the tests run (the module's top)
        await page.screenshot(path=str(Path(SHOTS) / f"web-{name}.png"))


async def favourites(app, user_id: int) -> list[tuple[int, str]]:
    """The chat's /favorites list: (number, stem) of each."""
    view = (await app.application.run_text("/favorites list", telegram_caller(user_id))).view
    return [(number, stem) for number, _type, stem in getattr(view, "rows", ())]


async def at_item(page, number: int) -> None:
    await playwright_api.expect(page.locator(".bar > span").first).to_have_text(re.compile(rf"^{number} /"))


async def item_number(page) -> int:
    header = await page.locator(".bar span").first.inner_text()
    return int(header.split("/")[0])


async def test_a_learner_sits_a_mock_in_the_mini_app_and_sees_it_in_the_chat_after(browser, bot):
    app, base = bot
    context, page = await page_of(browser)
    await page.goto(mini_app_url(base, init_data(4242)))
    await page.get_by_role("button", name="开始模拟考试").click()
    await page.locator("#stem").wait_for()
    assert "tgWebAppData" not in page.url  # the signed data left the address bar
    assert await item_number(page) == 1
    await shot(page, "mock-question")
    # Item 1 answered: the paper moves on to item 2, and the sheet shows 1 answered.
    await page.locator(".opt").first.click()
    await at_item(page, 2)
    assert "answered" in (await page.locator('.cell[data-number="1"]').get_attribute("class") or "")
    # Item 2 flagged, then a jump back to item 1 on the answer sheet.
    await page.locator("#flag").click()
    await page.locator('.cell[data-number="2"].flagged').wait_for()
    await page.locator('.cell[data-number="1"]').click()
    await at_item(page, 1)
    # A reload mid-exam: the same paper at the same item, the countdown from the server's clock.
    await page.reload()
    await page.locator("#stem").wait_for()
    assert await item_number(page) == 1
    assert "flagged" in (await page.locator('.cell[data-number="2"]').get_attribute("class") or "")
    await playwright_api.expect(page.locator("#timer")).to_have_text(re.compile(r"^\d+:\d\d$"))
    minutes = int((await page.locator("#timer").inner_text()).split(":")[0])
    assert 18 <= minutes <= 19
    # Hand in with item 2 and 3 blank: the server lists them and asks; "keep going" goes back.
    await page.locator("#hand-in").click()
    await page.locator("#confirm[open]").wait_for()
    assert "2" in await page.locator("#confirm-text").inner_text()
    await shot(page, "mock-confirm")
    await page.locator("#confirm-no").click()
    await page.locator("#stem").wait_for()
    # Item 3 answered through the sheet, then the hand-in confirmed.
    await page.locator('.cell[data-number="3"]').click()
    await at_item(page, 3)
    await page.locator(".opt").first.click()
    await shot(page, "mock-sheet")
    await page.locator("#hand-in").click()
    await page.locator("#confirm[open]").wait_for()
    await page.locator("#confirm-yes").click()
    await page.locator("#score").wait_for()
    score = await page.locator("#score").inner_text()
    assert re.search(r"\d+ */ *4", score), score
    assert await page.locator("#sections tr").count() == 3  # single, multi, judge
    await shot(page, "mock-report")
    # A wrong item opened from the report, as it was shown, starred there (☆ 收藏 → ★ 已收藏): the
    # chat's /favorites lists it.
    await page.get_by_role("button", name="查看解析").first.click()
    await page.locator(".opt.right").wait_for()
    reviewed = (await page.locator(".stem").inner_text()).strip()
    await page.get_by_role("button", name="☆ 收藏").click()
    await page.get_by_role("button", name="★ 已收藏").wait_for()
    await shot(page, "mock-review")
    assert [stem for _n, stem in await favourites(app, 4242)] == [reviewed]
    await page.get_by_role("button", name="返回成绩单").click()
    await page.locator("#score").wait_for()
    # The same mock, in the Telegram chat: its report there shows the same score.
    in_chat = render_reply(await app.application.run_text("/mock report", telegram_caller(4242)))
    assert score.split("：")[-1].strip().split()[0] in in_chat, (score, in_chat)
    # A favourite kept in the chat, listed in the web app with its ★.
    await app.application.run_text("/favorites add 2", telegram_caller(4242))
    tab = page.locator("#tabs")

    # Drilling: item 1 with its star as the chat has it; on the receipt the star stays live, and
    # a tap there stars or unstars it in the chat too.
    await tab.get_by_role("button", name="刷题", exact=True).click()
    await page.locator("#drill-random").wait_for()
    await page.get_by_role("button", name="顺序练习").click()  # item 1 first: a single choice
    await page.locator(".opt").first.wait_for()
    star = page.locator(".qhead .star")
    starred = 1 in [n for n, _stem in await favourites(app, 4242)]
    await expect(star).to_have_attribute("aria-pressed", str(starred).lower())
    if starred:  # the item reviewed above: unstarred here, to show the ☆
        await star.click()
        await expect(star).to_have_attribute("aria-pressed", "false")
    await shot(page, "drill")
    await page.locator(".opt").first.click()
    await page.locator("#drill-next").wait_for()
    await star.click()
    await expect(star).to_have_text("★ 已收藏")
    assert 1 in [n for n, _stem in await favourites(app, 4242)]
    await shot(page, "drill-receipt")

    # The cards due: item 1's card made due now (as if its interval had passed), it is asked.
    user_id = await app.quiz.user_id(telegram_caller(4242).user)
    await app.feed.catch_up()
    key = (user_id, "sample", "s-001")
    card = (await app.storage.study.cards([key]))[key]
    await app.storage.study.save_study([], [replace(card, due=datetime.now(UTC) - timedelta(minutes=1))], [])
    await tab.get_by_role("button", name="刷题", exact=True).click()
    await page.get_by_role("button", name="复习到期的题").click()
    await page.locator(".stem").wait_for()
    assert "Transformer" in await page.locator(".stem").inner_text()
    await shot(page, "review")

    # The mistake notebook: no chat command on it; item 3's row starred and unstarred, each time
    # in the chat too (item 1 keeps the ★ of its receipt); its table downloaded.
    await tab.get_by_role("button", name="错题本", exact=True).click()
    await page.get_by_role("button", name="练习错题").wait_for()
    shown = await page.locator("main").inner_text()
    assert "/mistakes" not in shown and t("zh-CN", "web.mistakes_how") in shown
    await expect(page.locator('.item[data-number="1"] .star')).to_have_attribute("aria-pressed", "true")
    three = page.locator('.item[data-number="3"] .star')
    for on in (True, False):
        await three.click()
        await expect(three).to_have_attribute("aria-pressed", str(on).lower())
        assert (3 in [n for n, _stem in await favourites(app, 4242)]) is on
    async with page.expect_download() as download:
        await page.locator("#export").click()
    saved = await (await download.value).path()
    table = await asyncio.to_thread(saved.read_text, encoding="utf-8")
    assert table.startswith("\ufeff" + t("zh-CN", "export.number"))
    await shot(page, "mistakes")

    # The favourites: item 2 (starred in the chat) with its ★; tapped, it is off in the chat too.
    await tab.get_by_role("button", name="收藏", exact=True).click()
    await page.get_by_role("button", name="练习收藏").wait_for()
    shown = await page.locator("main").inner_text()
    assert "以下属于常用优化器的有" in shown and "/favorites" not in shown
    two = page.locator('.item[data-number="2"] .star')
    await expect(two).to_have_attribute("aria-label", "★ 已收藏")
    await two.click()
    await expect(two).to_have_attribute("aria-label", "☆ 收藏")
    assert 2 not in [n for n, _stem in await favourites(app, 4242)]
    await two.click()  # and back on
    await expect(two).to_have_attribute("aria-label", "★ 已收藏")
    await shot(page, "favorites")

    await tab.get_by_role("button", name="进度", exact=True).click()
    await page.locator("main img").first.wait_for()
    await shot(page, "progress")
    await context.close()


async def test_a_mock_started_in_the_chat_continues_in_the_web_app(browser, bot):
    app, base = bot
    caller = telegram_caller(5151)
    await app.application.run_text("/mock start", caller)
    await app.application.run_text("/mock 1 A", caller)
    context, page = await page_of(browser)
    await page.goto(mini_app_url(base, init_data(5151), DARK))  # Telegram's night theme
    await page.locator("#stem").wait_for()
    assert await item_number(page) == 2  # where the chat left it
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(23, 33, 43)"  # the theme's bg_color
    await shot(page, "mock-telegram-dark")
    assert "answered" in (await page.locator('.cell[data-number="1"]').get_attribute("class") or "")
    await context.close()


async def test_a_one_time_link_works_once_and_never_twice(browser, bot):
    app, _base = bot
    dm = Caller(ChatRef(Platform.DISCORD, "dm-77", ChatKind.PRIVATE), UserRef(Platform.DISCORD, "77", "Ana"))
    await app.application.run_text("/lang en", dm)  # the page speaks the chat's language
    text = render_reply(await app.application.run_text("/web", dm))
    link = re.search(r"http://\S+", text)
    assert link is not None, text
    first, page = await page_of(browser)
    await page.goto(link.group(0))
    await page.get_by_role("button", name="Start a mock exam").wait_for()
    assert await page.get_by_role("button", name="Mistakes", exact=True).is_visible()
    assert "#" not in page.url  # the token left the address bar
    await first.close()
    second, page = await page_of(browser)
    await page.goto(link.group(0))
    await page.get_by_text("登录失败").wait_for()  # signed out, the browser's language (zh-CN) speaks
    assert await page.locator("#tabs").is_hidden()
    await second.close()


async def test_a_tampered_or_stale_init_data_is_refused(browser, bot):
    _app, base = bot
    good = init_data(6161)
    tampered = good.replace("6161", "6162")  # another user, the signature unchanged
    stale = init_data(6161, age=2 * 3600)
    context, page = await page_of(browser)
    for data in (tampered, stale):
        await page.goto(mini_app_url(base, data))
        await page.get_by_text("登录失败").wait_for()
    status = await page.evaluate(
        """async (data) => (await fetch('/app/api/session', {method: 'POST', headers: {'X-Studybot': '1',
        'Content-Type': 'application/json'}, body: JSON.stringify({init_data: data})})).status""",
        tampered,
    )
    assert status == 401
    assert (await page.evaluate("async () => (await fetch('/app/api/mock')).status")) == 401
    await context.close()


async def test_one_learner_cannot_read_or_change_anothers_mock_by_its_id(browser, bot):
    app, base = bot
    owner = telegram_caller(7171, "甲")
    started = await app.application.run_text("/mock start", owner)
    mock_id = started.view.mock_id
    await app.application.run_text("/mock 1 A", owner)
    await app.application.run_text("/mock submit confirm", owner)
    context, page = await page_of(browser)
    await page.goto(mini_app_url(base, init_data(8181, name="乙")))
    await page.get_by_role("button", name="开始模拟考试").wait_for()
    seen = await page.evaluate(
        "async (id) => { const r = await fetch(`/app/api/mock/${id}/review/1`);"
        " return [r.status, await r.text()] }",
        mock_id,
    )
    assert seen[0] == 404
    stem = app.banks["sample"].questions[0].stem
    assert stem not in seen[1] and "stem" not in seen[1]
    # A state change on it, even with a valid CSRF token of one's own, changes nothing.
    csrf = await page.evaluate("async () => (await (await fetch('/app/api/me')).json()).csrf")
    status = await page.evaluate(
        """async ([id, csrf]) => (await fetch('/app/api/mock/act', {method: 'POST',
        headers: {'X-CSRF-Token': csrf, 'Content-Type': 'application/json'},
        body: JSON.stringify({act: 'go', mock_id: id, item: 1})})).status""",
        [mock_id, csrf],
    )
    assert status == 409
    # And without the CSRF token, no state change at all.
    status = await page.evaluate(
        """async () => (await fetch('/app/api/mock/start', {method: 'POST'})).status"""
    )
    assert status == 403
    report = render_reply(await app.application.run_text("/mock report", owner))
    assert "1" in report
    await context.close()


async def test_the_countdown_runs_out_and_the_paper_is_handed_in_at_its_end(browser, tmp_path):
    """A six-second paper: nobody taps anything after one answer; it is handed in at its end (by
    the scheduler's job, or by the page's request at 0:00 if that comes first: a mock is never
    answered late) and the page shows the report."""
    app, server, base = await serve(tmp_path, 0.1)
    try:
        context, page = await page_of(browser)
        await page.goto(mini_app_url(base, init_data(9191)))
        await page.get_by_role("button", name="开始模拟考试").click()
        await page.locator(".opt").first.click()  # one answer, so the paper is a result
        await page.locator("#score").wait_for()  # within TIMEOUT: the end is six seconds away
        in_chat = render_reply(await app.application.run_text("/mock report", telegram_caller(9191)))
        assert t("zh-CN", "mock.time_used", minutes=0, seconds=6) in in_chat  # handed in at the end
        await context.close()
    finally:
        await server.stop()
        await app.close()


async def test_a_banks_owner_opens_its_admin_page_and_resolves_the_report_on_the_flagged_item(
    browser, tmp_path
):
    """tests/item_stats_session.py's answers (item 17's key swapped, an open report on it from a
    Telegram group): the bank's operator sees 题库管理, item 17 first with its picks and the
    report, and resolves it with a note (the reporter is told in the group); another learner has
    no such tab, and asking for the bank by its id is refused."""
    from tests.item_stats_session import BANK_ID, REPORT, SWAPPED, seed

    bank, _ = await seed(tmp_path / "studybot.db")
    config = Config(data_dir=tmp_path, default_bank=BANK_ID, sqlite_synchronous="NORMAL", http_port=0,
                    http_listen="127.0.0.1", web_url="http://127.0.0.1", telegram_token=TOKEN,
                    admins={"telegram": ["4343"]})  # fmt: skip
    app = await bootstrap(config, rng=random.Random(3), banks={bank.id: bank})
    telegram = RecordingPort(platform="telegram")
    app.add_port(telegram)
    server = await start_server(app, config, [])
    assert server is not None
    base = f"http://127.0.0.1:{server.port}"
    try:
        context, page = await page_of(browser)
        await page.goto(mini_app_url(base, init_data(4343, name="老师")))
        await page.get_by_role("button", name="题库管理", exact=True).click()
        card = page.locator(".card").first
        await card.wait_for()
        assert await card.get_attribute("data-number") == str(SWAPPED)
        assert "flagged" in (await card.get_attribute("class") or "")
        assert t("zh-CN", "itemstats.mark.key").strip("⚠ ") in await card.inner_text()
        assert await card.locator(".pick").count() == 4 and await card.locator(".pick.rival").count() == 1
        assert REPORT in await card.locator(".report").inner_text()
        await shot(page, "admin")
        await card.locator(".report .note").fill("答案已改正，谢谢")
        await card.locator(".report .resolve").click()
        await page.locator(".toast.ok").wait_for()
        await playwright_api.expect(page.locator(".report")).to_have_count(0)
        told = (await telegram.wait_for("notice", timeout=30))[-1]
        assert told.key == "report.resolved_named" and told.param_dict()["note"] == "答案已改正，谢谢"
        await context.close()
        # Another learner: no tab, and the bank's page by its id is refused with the catalog's sentence.
        context, page = await page_of(browser)
        await page.goto(mini_app_url(base, init_data(4444, name="乙")))
        await page.get_by_role("button", name="开始模拟考试").wait_for()
        assert await page.get_by_role("button", name="题库管理").count() == 0
        seen = await page.evaluate(
            "async (id) => { const r = await fetch(`/app/api/admin/bank/${id}`);"
            " return [r.status, await r.json()] }",
            BANK_ID,
        )
        assert seen[0] == 403 and seen[1]["message"] == t("zh-CN", "itemstats.not_owner")
        await context.close()
    finally:
        await server.stop()
        await app.close()


async def test_a_question_shows_its_picture_the_bot_serves(browser, tmp_path):
    """A single-choice item with a picture: the mock's page draws it under the stem as an <img>
    the bot serves (loaded: its pixels are there), and so does the practice tab."""
    import io

    from PIL import Image

    from bot.domain.questions import BankImage

    picture = io.BytesIO()
    Image.new("RGB", (48, 32), (200, 30, 30)).save(picture, format="PNG")
    app, server, base = await serve(tmp_path, 20)
    try:
        bank = app.application.quiz.banks["sample"]
        questions = tuple(replace(q, images=("net.png",)) if q.type is QuestionType.SINGLE else q
                          for q in bank.questions)  # fmt: skip
        app.application.quiz.banks["sample"] = replace(
            bank, questions=questions, images=(BankImage("net.png", picture.getvalue()),)
        )
        context, page = await page_of(browser)
        await page.goto(mini_app_url(base, init_data(5151)))
        await page.get_by_role("button", name="开始模拟考试").click()
        await page.locator("#stem").wait_for()
        shown = page.locator("img.picture")
        await playwright_api.expect(shown).to_have_count(1)
        assert await shown.get_attribute("src") == "/app/api/picture/sample/net.png"
        await page.wait_for_function("() => document.querySelector('img.picture').naturalWidth === 48")
        await shot(page, "mock-picture")
        await context.close()
    finally:
        await server.stop()
        await app.close()
