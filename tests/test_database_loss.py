"""The PostgreSQL server lost for 20 s while the bot runs (real python-telegram-bot against the
fake Telegram, a real PostgreSQL server halted and started again): answers and commands get a
"try again" reply in the chat's language, nothing acknowledged before is lost, and once the
server is back the bot answers again by itself, with no restart."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.locales.i18n import t
from tests.contract.conftest import fresh_database
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.pg_server import PgServer, find_bin_dir
from tests.process import wait_until
from tests.test_telegram_harness import ANN, BOB, GROUP, TelegramHarness, round_of, tg_fixture  # noqa: F401

LOST_FOR = timedelta(seconds=20)


@pytest.fixture(scope="module")
def own_server() -> Iterator[PgServer]:
    """A server of this module's own: halting the session's shared one would hit other tests."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    server = PgServer(bin_dir).start()
    server.template_ready = False  # type: ignore[attr-defined]
    yield server
    server.stop()


async def test_answers_get_try_again_while_the_database_is_lost_and_the_bot_recovers(
    tg: TelegramHarness, own_server: PgServer
) -> None:
    server = tg.server
    app = await tg.start(database_url=await fresh_database(own_server))
    await tg.say(GROUP, ANN, "/quiz single")
    question = server.last_message(GROUP.id)
    round_id = round_of(question)
    ann = await tg.click(GROUP, ANN, question.message_id, f"a1:{round_id}:B")
    assert ann.startswith(t("en", "receipt.correct", points=1))  # acknowledged: committed

    own_server.halt()
    lost_at = datetime.now(UTC)
    try:
        toast = await tg.click(GROUP, BOB, question.message_id, f"a1:{round_id}:A")
        assert toast == t("en", "error.store_unavailable")
        reply = await tg.say(GROUP, BOB, "/stats")
        assert reply["text"] == t("en", "error.store_unavailable_command")
        await wait_until(lost_at + LOST_FOR)
        toast = await tg.click(GROUP, BOB, question.message_id, f"a1:{round_id}:A")
        assert toast == t("en", "error.store_unavailable")  # still away after 20 s: still told so
    finally:
        own_server.resume()

    # Back by itself: the pool connects again (a first try may still meet a dead connection).
    wrong = t("en", "receipt.wrong")
    for _ in range(20):
        toast = await tg.click(GROUP, BOB, question.message_id, f"a1:{round_id}:A")
        if toast != t("en", "error.store_unavailable"):
            break
    assert toast.startswith(wrong)
    answers = {a.display_name: a.verdict for a in await app.store.round_answers(round_id)}
    assert answers == {"Ann": "correct", "Bob": "wrong"}
    reply = await tg.say(GROUP, BOB, "/stats")
    assert reply["text"] != t("en", "error.store_unavailable_command")
