"""pytest fixture for the fake Telegram server; import it in a conftest or a test module:
``from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.telegram_server import FakeTelegramServer


@pytest.fixture
async def telegram_server() -> AsyncIterator[FakeTelegramServer]:
    """A started fake on 127.0.0.1; at teardown any spec violation fails the test, unless the
    test set ``server.strict = False`` (or cleared ``server.spec_violations``) on purpose."""
    async with FakeTelegramServer() as server:
        yield server
        if server.strict:
            server.assert_all_requests_valid()
