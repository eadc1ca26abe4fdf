"""The backend is chosen by STUDYBOT_DATABASE_URL (or database_url in the config file); the app
bootstraps and plays on either."""

from __future__ import annotations

import random

import pytest

from adapters.storage.postgres.store import PostgresStore
from adapters.storage.sqlite.store import SqliteStore
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from studybot.bootstrap import bootstrap
from studybot.config import ConfigError, load_config
from tests.conftest import make_bank
from tests.contract.conftest import fresh_database
from tests.fakes.ports import ManualScheduler


def test_the_url_comes_from_the_environment_and_stays_secret():
    config = load_config(env={"STUDYBOT_DATABASE_URL": "postgresql://bot:hunter2@db/studybot"})
    assert config.database_url is not None
    assert config.database_url.get_secret_value() == "postgresql://bot:hunter2@db/studybot"
    assert "hunter2" not in repr(config)
    with pytest.raises(ConfigError, match="postgresql://"):
        load_config(env={"STUDYBOT_DATABASE_URL": "mysql://bot@db/studybot"})


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_bootstrap_opens_the_chosen_backend(backend, request, tmp_path, clock):
    url = await fresh_database(request.getfixturevalue("pg_server")) if backend == "postgres" else None
    env = {"STUDYBOT_DATA_DIR": str(tmp_path)} | ({"STUDYBOT_DATABASE_URL": url} if url else {})
    config = load_config(env=env).model_copy(update={"default_bank": "sample"})
    bank = make_bank()
    app = await bootstrap(
        config, clock=clock, rng=random.Random(1), banks={bank.id: bank}, scheduler=ManualScheduler(clock)
    )
    try:
        assert isinstance(app.store, PostgresStore if url else SqliteStore)
        chat = await app.quiz.chat(ChatRef(Platform.CONSOLE, "here", ChatKind.PRIVATE))
        user = await app.quiz.user_id(UserRef(Platform.CONSOLE, "me", "Me"))
        assert await app.store.get_chat(chat.id) == chat and await app.store.find_user(
            UserRef(Platform.CONSOLE, "me", "Me")
        ) == user
    finally:
        await app.close()
