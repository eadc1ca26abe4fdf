"""Signing in to the web app (bot/application/web_access.py) and its API's guards, without a browser:
initData believed only as Telegram signs it and while fresh (any change to it refused), the CSRF
token on state changes, bad input answered with a catalog sentence, requests limited, /web off
without a configured address; a bank's admin pages for its owners only (its statistics and open
reports; resolving one tells the reporter), refused to anyone else whatever the id asked."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl, quote

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.application.web_access import csrf_token, sign_init_data, verify_init_data
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.locales.i18n import t
from studybot.bootstrap import PACKAGED_BANKS, bootstrap
from studybot.config import Config
from studybot.ops import start_server
from tests.fakes.ports import ManualScheduler

TOKEN = "123456:TEST-token"
NOW = datetime(2026, 12, 4, 2, 0, tzinfo=UTC)
USER = json.dumps({"id": 42, "first_name": "小明", "language_code": "zh-hans"}, ensure_ascii=False)


def signed(age: timedelta = timedelta(0), token: str = TOKEN) -> str:
    fields = {"auth_date": str(int((NOW - age).timestamp())), "query_id": "AAE", "user": USER}
    return sign_init_data(fields, token)


def test_a_fresh_init_data_signed_for_this_bot_names_its_user():
    user = verify_init_data(signed(), TOKEN, NOW)
    assert user is not None and (user.user_key, user.display_name) == ("42", "小明")


@pytest.mark.parametrize(
    "data",
    [
        signed(age=timedelta(hours=2)),  # stale
        signed(age=-timedelta(minutes=5)),  # from the future
        signed(token="999:OTHER"),  # another bot's
        signed() + "&user=" + quote(USER),  # a field twice
        "",
        "hash=00",
        "%%%",
    ],
)
def test_stale_foreign_or_malformed_init_data_is_refused(data):
    assert verify_init_data(data, TOKEN, NOW) is None


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_change_to_a_signed_init_data_is_refused(data):
    original = signed()
    at = data.draw(st.integers(0, len(original) - 1))
    char = data.draw(st.sampled_from("0123456789abcdefABCDEF%=&_x"))
    changed = original[:at] + char + original[at + 1 :]
    if parse_qsl(changed, keep_blank_values=True) != parse_qsl(original):  # %e5 is %E5: no change
        assert verify_init_data(changed, TOKEN, NOW) is None


def test_links_cookies_and_init_data_signatures_never_reach_a_log():
    from adapters.redaction import REDACTED, redact

    link = "https://study.example/app/login#" + "x" * 43
    cookie = "Cookie: studybot_session=" + "y" * 43
    data = signed()
    for text in (link, cookie, data, quote(data), f"init_data='{data}'"):
        shown = redact(text)
        assert REDACTED in shown and "x" * 43 not in shown and "y" * 43 not in shown
        assert data.rsplit("hash=", 1)[1] not in shown


def test_the_csrf_token_is_the_sessions_own():
    assert csrf_token("a") == csrf_token("a") != csrf_token("b")


# ------------------------------------------------------------ the API's guards, on a real server

DM = Caller(ChatRef(Platform.DISCORD, "dm-1", ChatKind.PRIVATE), UserRef(Platform.DISCORD, "1", "Ana"))


@pytest.fixture
async def served(tmp_path):
    from bank.loader import load_bank

    bank = load_bank(PACKAGED_BANKS / "ai_trainer_2025.yaml")
    config = Config(
        data_dir=tmp_path, default_bank=bank.id, sqlite_synchronous="NORMAL", http_port=0,
        http_listen="127.0.0.1", web_url="https://study.example", telegram_token=TOKEN,
    )  # fmt: skip
    app = await bootstrap(
        config, rng=random.Random(1), banks={bank.id: bank}, scheduler=ManualScheduler(None)
    )
    server = await start_server(app, config, [])
    assert server is not None
    yield app, f"http://127.0.0.1:{server.port}/app"
    await server.stop()
    await app.close()


def secure_jar(base: str) -> aiohttp.CookieJar:
    """A jar that sends the Secure cookie to the test's plain-HTTP server (as to HTTPS behind a proxy)."""
    return aiohttp.CookieJar(unsafe=True, treat_as_secure_origin=[base.removesuffix("/app")])


async def signed_in(app, base: str, session: aiohttp.ClientSession, caller: Caller = DM) -> str:
    """Sign in through a /web link; the CSRF token."""
    text = render_reply(await app.application.run_text("/web", caller))
    token = text.rsplit("#", 1)[1].strip()
    async with session.post(f"{base}/api/session", json={"link": token}, headers={"X-Studybot": "1"}) as r:
        assert r.status == 200
        cookie = r.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Strict" in cookie
        assert token not in cookie
    async with session.get(f"{base}/api/me") as r:
        return (await r.json())["csrf"]


async def test_state_changes_need_the_csrf_token_and_bad_input_gets_a_catalog_sentence(served):
    app, base = served
    jar = secure_jar(base)
    async with aiohttp.ClientSession(cookie_jar=jar) as session:
        csrf = await signed_in(app, base, session)
        async with session.post(f"{base}/api/mock/start") as r:
            assert r.status == 403
        headers = {"X-CSRF-Token": csrf}
        bad = (
            {"act": "pick", "mock_id": "1; DROP", "item": 1}, {"act": "nope", "mock_id": 1, "item": 1},
            {"act": "go", "mock_id": 1, "item": -3}, [1, 2],
        )  # fmt: skip
        for body in bad:
            async with session.post(f"{base}/api/mock/act", json=body, headers=headers) as r:
                assert r.status == 400
                assert (await r.json())["message"] == t("zh-CN", "web.bad_input")
        async with session.post(f"{base}/api/drill/start", json={"mode": "../../etc"}, headers=headers) as r:
            assert r.status == 400
        async with session.post(f"{base}/api/mock/start", headers=headers) as r:
            assert r.status == 200 and (await r.json())["kind"] == "mock_question"


async def test_a_session_is_rate_limited(served):
    app, base = served
    jar = secure_jar(base)
    async with aiohttp.ClientSession(cookie_jar=jar) as session:
        await signed_in(app, base, session)
        statuses = []
        for _ in range(260):
            async with session.get(f"{base}/api/page/favorites") as r:
                statuses.append(r.status)
        assert statuses[0] == 200 and statuses[-1] == 429
        async with session.get(f"{base}/api/page/favorites") as r:
            assert (await r.json())["message"] == t("zh-CN", "web.rate_limited")


async def test_the_app_typed_without_its_slash_is_sent_to_it(served):
    _app, base = served
    async with aiohttp.ClientSession() as session, session.get(base, allow_redirects=False) as r:
        assert r.status == 308 and r.headers["Location"] == "/app/"
    async with aiohttp.ClientSession() as session, session.get(base) as r:
        assert r.status == 200 and "/app/static/app.js" in await r.text()


async def test_the_web_command_says_the_web_app_is_off_without_an_address(tmp_path):
    config = Config(data_dir=tmp_path, sqlite_synchronous="NORMAL")
    app = await bootstrap(config, scheduler=ManualScheduler(None))
    try:
        assert render_reply(await app.application.run_text("/web", DM)) == t("zh-CN", "web.off")
        group = Caller(
            ChatRef(Platform.TELEGRAM, "-100", ChatKind.GROUP), UserRef(Platform.TELEGRAM, "1", "A")
        )
        assert render_reply(await app.application.run_text("/web", group)) == t("zh-CN", "error.private_only")
    finally:
        await app.close()


async def test_a_short_answer_is_typed_and_self_graded_after_the_hand_in(served):
    app, base = served
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}

        async def act(**body):
            async with session.post(f"{base}/api/mock/act", json=body, headers=headers) as r:
                assert r.status == 200, await r.text()
                return await r.json()

        async with session.post(f"{base}/api/mock/start", headers=headers) as r:
            mock_id = (await r.json())["mock_id"]
        item = await act(act="go", mock_id=mock_id, item=61)  # the paper's short answers come last
        assert item["input"] == "self_graded" and item["buttons"] == []
        kept = await act(act="type", mock_id=mock_id, item=61, token="去重、处理缺失值")
        assert kept["saved"] == 61
        asked = await act(act="submit", mock_id=mock_id, item=1)
        assert asked["kind"] == "mock_confirm" and 61 not in asked["unanswered"]
        report = await act(act="confirm", mock_id=mock_id, item=1)
        assert [p["number"] for p in report["pending"]] == [61] and report["passed"] is None
        assert report["pending_text"] == t("zh-CN", "mock.awaiting_grade", count=1)
        marks = {section["type"]: section["mark"] for section in report["sections"]}
        assert marks.pop("简答题") == "（待自评）"  # its score is provisional until self-graded
        assert set(marks.values()) == {""}
        async with session.post(
            f"{base}/api/mock/grade", json={"item": 61, "level": "best"}, headers=headers
        ) as r:
            assert r.status == 400
        async with session.post(
            f"{base}/api/mock/grade", json={"item": 61, "level": "full"}, headers=headers
        ) as r:
            graded = await r.json()
        assert (
            graded["pending"] == [] and graded["score"] == "10" and graded["passed"] is False
        )  # pass mark 60


# ------------------------------------------------------------ a bank's admin pages (its owners only)


@pytest.fixture
async def owned(tmp_path):
    """The bot over tests/item_stats_session.py's answers (300 learners, item 17's key swapped,
    an open report on it from a Telegram group) with Ana (DM) the configured bank's operator;
    a Telegram port records what the reporter is told."""
    from tests.fakes.ports import RecordingPort
    from tests.item_stats_session import BANK_ID, seed

    bank, _true_key = await seed(tmp_path / "studybot.db")
    config = Config(
        data_dir=tmp_path, default_bank=BANK_ID, sqlite_synchronous="NORMAL", http_port=0,
        http_listen="127.0.0.1", web_url="https://study.example", telegram_token=TOKEN,
        admins={"discord": ["1"]},
    )  # fmt: skip
    app = await bootstrap(
        config, rng=random.Random(1), banks={bank.id: bank}, scheduler=ManualScheduler(None)
    )
    telegram = RecordingPort(platform="telegram")
    app.add_port(telegram)
    server = await start_server(app, config, [])
    assert server is not None
    yield app, f"http://127.0.0.1:{server.port}/app", telegram
    await server.stop()
    await app.close()


async def test_an_owner_sees_the_flagged_item_beside_its_report_and_resolving_tells_the_reporter(owned):
    from tests.item_stats_session import BANK_ID, REPORT, SWAPPED

    app, base, telegram = owned
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        csrf = await signed_in(app, base, session)
        async with session.get(f"{base}/api/me") as r:
            assert (await r.json())["admin"] is True  # the page's link is shown
        async with session.get(f"{base}/api/admin/banks") as r:
            assert [b["id"] for b in (await r.json())["banks"]] == [BANK_ID]
        async with session.get(f"{base}/api/admin/bank/{BANK_ID}") as r:
            assert r.status == 200
            page = await r.json()
        first = page["cards"][0]  # the flagged item first, with its numbers and its report
        assert first["number"] == SWAPPED and first["flagged"]
        assert first["mark"] == t("zh-CN", "itemstats.mark.key")
        assert "%" in first["heading"] and len(first["options"]) == 4
        assert sum(o["correct"] for o in first["options"]) == 1 and any(o["rival"] for o in first["options"])
        assert [REPORT in rep["line"] for rep in first["reports"]] == [True]
        report_id = first["reports"][0]["id"]
        # A note that is no string, an action that is none: refused, nothing closed.
        for body in ({"id": report_id, "action": "resolve", "note": 3}, {"id": report_id, "action": "fix"}):
            async with session.post(
                f"{base}/api/admin/report", json=body, headers={"X-CSRF-Token": csrf}
            ) as r:
                assert r.status == 400
        async with session.post(
            f"{base}/api/admin/report", json={"id": report_id, "action": "resolve", "note": "已改正答案"}
        ) as r:
            assert r.status == 403  # no CSRF token
        async with session.post(
            f"{base}/api/admin/report", json={"id": report_id, "action": "resolve", "note": "已改正答案"},
            headers={"X-CSRF-Token": csrf},
        ) as r:  # fmt: skip
            assert r.status == 200
            assert (await r.json())["text"] == t("zh-CN", "reports.resolved", id=report_id)
        # The reporter hears back in the group they reported in, exactly as /reports resolve says it.
        told = (await telegram.wait_for("notice", timeout=30))[-1]
        assert told.key == "report.resolved_named"
        assert told.param_dict()["note"] == "已改正答案" and told.param_dict()["number"] == SWAPPED
        async with session.get(f"{base}/api/admin/bank/{BANK_ID}") as r:
            assert (await r.json())["cards"][0]["reports"] == []  # closed: off the page
        async with session.post(
            f"{base}/api/admin/report",
            json={"id": report_id, "action": "dismiss"},
            headers={"X-CSRF-Token": csrf},
        ) as r:
            assert r.status == 404
            assert (await r.json())["message"] == t("zh-CN", "reports.not_open", id=report_id)


async def test_a_person_who_owns_no_bank_is_refused_its_page_and_its_reports(owned):
    from tests.item_stats_session import BANK_ID

    app, base, telegram = owned
    stranger = Caller(
        ChatRef(Platform.DISCORD, "dm-2", ChatKind.PRIVATE), UserRef(Platform.DISCORD, "2", "Bo")
    )
    reports = await app.storage.reports.open_reports(BANK_ID)
    assert reports
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        csrf = await signed_in(app, base, session, stranger)
        async with session.get(f"{base}/api/me") as r:
            assert (await r.json())["admin"] is False  # no link to the page
        async with session.get(f"{base}/api/admin/banks") as r:
            assert (await r.json())["banks"] == []
        for bank_id in (BANK_ID, "no-such-bank"):  # the id changed by hand: refused alike
            async with session.get(f"{base}/api/admin/bank/{bank_id}") as r:
                assert r.status == 403
                body = await r.text()
                assert json.loads(body)["message"] == t("zh-CN", "itemstats.not_owner")
                assert "cards" not in body and reports[0].text not in body
        async with session.post(
            f"{base}/api/admin/report", json={"id": reports[0].id, "action": "dismiss", "note": "x"},
            headers={"X-CSRF-Token": csrf},
        ) as r:  # fmt: skip
            assert r.status == 404
    assert [r.id for r in await app.storage.reports.open_reports(BANK_ID)] == [r.id for r in reports]
    assert telegram.of("notice") == []


async def test_an_uploader_owns_the_bank_they_uploaded_and_only_that_one(owned):
    """A bank uploaded in a private chat is its uploader's on the web; the configured bank's
    operator does not own it, nor the uploader the configured one."""
    from pathlib import Path

    from bot.application.attachments import Attachment
    from tests.item_stats_session import BANK_ID

    app, base, _telegram = owned
    uploader = Caller(
        ChatRef(Platform.DISCORD, "dm-3", ChatKind.PRIVATE), UserRef(Platform.DISCORD, "3", "Cy"), admin=True
    )
    data = (Path(__file__).parent / "banks" / "upload" / "physics.csv").read_bytes()
    imported = await app.application.run_text(
        "/bank import", uploader, attachment=Attachment.of_bytes("physics.csv", data)
    )
    confirmed = await app.application.run_text("/bank confirm", uploader)
    uploaded = [b for b in app.quiz.banks if b.startswith("up-")]
    assert len(uploaded) == 1, (render_reply(imported), render_reply(confirmed))
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        await signed_in(app, base, session, uploader)
        async with session.get(f"{base}/api/admin/banks") as r:
            assert [b["id"] for b in (await r.json())["banks"]] == uploaded
        async with session.get(f"{base}/api/admin/bank/{uploaded[0]}") as r:
            page = await r.json()
            assert r.status == 200 and page["header"][1] == t("zh-CN", "itemstats.no_answers")
        async with session.get(f"{base}/api/admin/bank/{BANK_ID}") as r:
            assert r.status == 403
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        await signed_in(app, base, session)  # the operator
        async with session.get(f"{base}/api/admin/banks") as r:
            assert [b["id"] for b in (await r.json())["banks"]] == [BANK_ID]
        async with session.get(f"{base}/api/admin/bank/{uploaded[0]}") as r:
            assert r.status == 403


# ------------------------------------------------------------ the star (☆ / ★) and the notebook's page


async def favourite_numbers(app, caller: Caller = DM) -> list[int]:
    """The chat's /favorites list, as its numbers."""
    view = (await app.application.run_text("/favorites list", caller)).view
    return [number for number, _type, _stem in getattr(view, "rows", ())]


async def test_a_star_in_the_web_app_is_the_chats_and_a_star_in_the_chat_is_the_web_apps(served):
    from bot.application.clicks import Act, Click

    app, base = served
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}

        async def post(path: str, body: object, status: int = 200, **kw) -> dict:
            async with session.post(f"{base}/api/{path}", json=body, **kw) as r:
                assert r.status == status, await r.text()
                return await r.json()

        asked = await post("drill/start", {"mode": "sequential"}, headers=headers)
        assert asked["kind"] == "question" and asked["question"] == "ait25-001" and asked["starred"] is False
        star = {"round_id": asked["round_id"], "on": True}
        await post("favourite", star, 403)  # no CSRF token: nothing starred
        assert await favourite_numbers(app) == []
        said = await post("favourite", star, headers=headers)
        assert said == {"kind": "star", "starred": True, "text": t("zh-CN", "favorites.added", number=1)}
        assert await favourite_numbers(app) == [1]  # the chat's /favorites has it
        # Its receipt keeps the star: the round is answered, the ★ still takes the star off.
        receipt = await post("drill/answer", {"round_id": asked["round_id"], "text": "C"}, headers=headers)
        assert receipt["kind"] == "receipt"
        await post("favourite", {**star, "on": False}, headers=headers)
        assert await favourite_numbers(app) == []
        # The chat's ☆ under a question it posted: the web app's favourites show it starred.
        in_chat = await app.application.run_text("/quiz next", DM)
        round_id = in_chat.view.round_id
        await app.application.question_posted(round_id, "msg-9")
        control = f"sb:st:{round_id}"
        click = Click(
            round_id, Platform.DISCORD, "dm-1", "msg-9", Act.FAVOURITE, None, control, frozenset([control])
        )
        await app.application.click(DM.chat, DM.user, click)
        async with session.get(f"{base}/api/page/favorites") as r:
            page = await r.json()
        assert page["kind"] == "favorites"
        assert [(row["number"], row["starred"]) for row in page["rows"]] == [(2, True)]
        # ... and practising the favourites there asks it with its ★, which takes the star off.
        again = await post("drill/start", {"mode": "favorites"}, headers=headers)
        assert (again["question"], again["starred"]) == ("ait25-002", True)
        await post("favourite", {"round_id": again["round_id"], "on": False}, headers=headers)
        assert await favourite_numbers(app) == []


async def test_the_star_is_refused_on_anothers_round_a_foreign_id_and_bad_input(served):
    app, base = served
    other = Caller(ChatRef(Platform.DISCORD, "dm-2", ChatKind.PRIVATE), UserRef(Platform.DISCORD, "2", "Bo"))
    theirs = (await app.application.run_text("/quiz", other)).view.round_id
    await app.application.question_posted(theirs, f"web:{theirs}")
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}
        for body in ({"round_id": theirs, "on": True}, {"question": "no-such-item", "on": True}):
            async with session.post(f"{base}/api/favourite", json=body, headers=headers) as r:
                assert r.status == 409 and (await r.json())["kind"] == "closed"
        bad = ({"round_id": theirs, "on": "yes"}, {"question": 7, "on": True}, {"round_id": -1, "on": True},
               {"question": "x" * 500, "on": True}, {"on": True}, ["on"])  # fmt: skip
        for body in bad:
            async with session.post(f"{base}/api/favourite", json=body, headers=headers) as r:
                assert r.status == 400 and (await r.json())["message"] == t("zh-CN", "web.bad_input")
    assert await favourite_numbers(app) == [] and await favourite_numbers(app, other) == []


async def test_the_notebook_page_speaks_the_web_apps_words_stars_its_rows_and_downloads_its_table(served):
    app, base = served
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}
        async with session.get(f"{base}/api/page/mistakes") as r:
            empty = await r.json()
        assert (empty["header"], empty["groups"]) == (t("zh-CN", "mistakes.none"), [])
        async with session.get(f"{base}/api/mistakes/export") as r:
            assert r.status == 404 and (await r.json())["text"] == t("zh-CN", "mistakes.empty")
        async with session.get(f"{base}/api/page/favorites") as r:
            assert (await r.json())["header"] == t("zh-CN", "web.favorites_none")
        async with session.post(f"{base}/api/drill/start", json={"mode": "sequential"}, headers=headers) as r:
            asked = await r.json()
        async with session.post(
            f"{base}/api/drill/answer", json={"round_id": asked["round_id"], "text": "A"}, headers=headers
        ) as r:  # item 1's key is C: a mistake
            assert (await r.json())["kind"] == "receipt"
        async with session.get(f"{base}/api/page/mistakes") as r:
            page = await r.json()
        text = json.dumps(page, ensure_ascii=False)
        assert "/mistakes" not in text and page["how"] == t("zh-CN", "web.mistakes_how")
        assert page["header"] == t("zh-CN", "mistakes.header", count=1, graduate=app.feed.graduate_after)
        [row] = page["groups"][0]["rows"]
        assert (row["number"], row["question"], row["starred"]) == (1, "ait25-001", False)
        async with session.post(
            f"{base}/api/favourite", json={"question": row["question"], "on": True}, headers=headers
        ) as r:
            assert (await r.json())["starred"] is True
        assert await favourite_numbers(app) == [1]
        async with session.get(f"{base}/api/page/mistakes") as r:
            assert (await r.json())["groups"][0]["rows"][0]["starred"] is True
        # The chat's /mistakes export, downloaded: its CSV table (a BOM for Excel), in Chinese.
        async with session.get(f"{base}/api/mistakes/export") as r:
            assert r.status == 200 and r.content_type == "text/csv"
            assert r.headers["Content-Disposition"] == 'attachment; filename="mistakes.csv"'
            table = (await r.read()).decode("utf-8")
        assert table.startswith("\ufeff" + t("zh-CN", "export.number")) and "\n1," in table


async def test_a_mock_items_review_carries_its_star_as_the_chat_keeps_it(served):
    app, base = served
    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}
        async with session.post(f"{base}/api/mock/start", headers=headers) as r:
            first = await r.json()
        mock_id, token = first["mock_id"], first["buttons"][0][0]
        for act in ("pick", "submit", "confirm"):  # one answer (a paper with none is no result)
            body = {"act": act, "mock_id": mock_id, "item": 1 if act == "pick" else 2, "token": token}
            async with session.post(f"{base}/api/mock/act", json=body, headers=headers) as r:
                assert r.status == 200
        async with session.get(f"{base}/api/mock/{mock_id}/review/2") as r:  # blank: wrong
            item = await r.json()
        assert item["kind"] == "mock_review" and item["starred"] is False
        number = app.quiz.banks["ai-trainer-2025"].question(item["question"]).number
        async with session.post(
            f"{base}/api/favourite", json={"question": item["question"], "on": True}, headers=headers
        ) as r:
            assert (await r.json())["text"] == t("zh-CN", "favorites.added", number=number)
        assert await favourite_numbers(app) == [number]
        await app.application.run_text(f"/favorites remove {number}", DM)  # taken off in the chat
        async with session.get(f"{base}/api/mock/{mock_id}/review/2") as r:
            assert (await r.json())["starred"] is False


async def test_a_star_the_database_could_not_keep_is_not_shown_as_kept(served, monkeypatch):
    """The disk is full when the ☆ is tapped: the page hears 503 with the catalog's sentence (so
    it does not draw ★), on a practice round and by a question's id alike, and nothing is kept."""
    from bot.application.store_faults import StoreFull

    app, base = served
    store = type(app.storage.study)

    async def full(*args: object, **kwargs: object) -> None:
        raise StoreFull("database or disk is full [SQLITE_FULL]")  # what the SQLite store raises then

    async with aiohttp.ClientSession(cookie_jar=secure_jar(base)) as session:
        headers = {"X-CSRF-Token": await signed_in(app, base, session)}
        async with session.post(f"{base}/api/drill/start", json={"mode": "sequential"}, headers=headers) as r:
            asked = await r.json()
        monkeypatch.setattr(store, "set_favourite", full)
        for body in ({"round_id": asked["round_id"], "on": True}, {"question": "ait25-001", "on": True}):
            async with session.post(f"{base}/api/favourite", json=body, headers=headers) as r:
                assert r.status == 503, await r.text()
                assert (await r.json())["message"] == t("zh-CN", "error.store_full_command")
        monkeypatch.undo()
    assert await favourite_numbers(app) == []
