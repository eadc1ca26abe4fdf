"""`studybot` as a real process when its PostgreSQL database cannot be opened: nothing listens at
the URL's port, or the server refuses the password. Each ends in one line naming the cause and
what to do (in the configured language), a non-zero exit, no traceback, and never the password."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_server import PgServer, find_bin_dir
from tests.test_startup_failures import closed_port, console, english

PASSWORD = "hunter2-the-real-one"
WRONG = "s3cret-but-wrong"


@pytest.fixture(scope="module")
def guarded_server() -> Iterator[PgServer]:
    """A PostgreSQL server that asks `postgres` for PASSWORD."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    server = PgServer(bin_dir, password=PASSWORD).start()
    yield server
    server.stop()


async def test_nothing_listens_at_the_database_port(tmp_path: Path) -> None:
    port = closed_port()
    url = f"postgresql://bot:{WRONG}@127.0.0.1:{port}/studybot"
    done = await console(tmp_path, env={"STUDYBOT_DATABASE_URL": url})
    done.assert_one_line(f"无法连接 PostgreSQL 数据库 postgresql://bot@127.0.0.1:{port}/studybot")
    assert "STUDYBOT_DATABASE_URL" in done.line
    assert WRONG not in done.stdout + done.stderr


async def test_the_server_refuses_the_password_in_english(tmp_path: Path, guarded_server: PgServer) -> None:
    url = guarded_server.dsn(password=WRONG)
    done = await console(tmp_path, "--config", english(tmp_path), env={"STUDYBOT_DATABASE_URL": url})
    done.assert_one_line(f"the PostgreSQL server at {guarded_server.dsn()} refused studybot")
    assert "password authentication failed" in done.line and "STUDYBOT_DATABASE_URL" in done.line
    assert WRONG not in done.stdout + done.stderr


async def test_the_right_password_opens_the_database(tmp_path: Path, guarded_server: PgServer) -> None:
    done = await console(tmp_path, env={"STUDYBOT_DATABASE_URL": guarded_server.dsn(password=PASSWORD)})
    assert done.code == 0, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
