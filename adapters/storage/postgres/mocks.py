"""Mock exams on PostgreSQL: the same records as the SQLite store (adapters/storage/mock_store.py,
whose row conversion this shares), on the PostgresStore's pool. One open mock per person: the
partial unique index mocks_open, met with ON CONFLICT … DO NOTHING, so a refused mock does not
abort a surrounding unit of work."""

from __future__ import annotations

from datetime import datetime

from adapters.storage.mock_store import MOCK_COLUMNS, encode_paper, mock_answer_from_row, mock_from_row
from adapters.storage.postgres.store import PostgresStore, affected
from adapters.storage.sql import to_db
from bot.study.mock_records import Mock, MockAnswer, MockState, NewMock
from bot.study.ports import MockOpen

_HANDED_IN = (
    f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = $1 AND state IN ('grading', 'done') ORDER BY id DESC"
)


class PostgresMockStore:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def create_mock(self, new: NewMock) -> Mock:
        items, sections = encode_paper(new)
        async with self.store.transaction() as db:
            row = await db.fetchrow(
                "INSERT INTO mocks (user_id, chat_id, bank_id, items, sections, pass_mark, started_at, "
                "ends_at, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open') "
                f"ON CONFLICT (user_id) WHERE state = 'open' DO NOTHING RETURNING {MOCK_COLUMNS}",
                new.user_id, new.chat_id, new.bank_id, items, sections, new.pass_mark,
                to_db(new.started_at), to_db(new.ends_at),
            )  # fmt: skip
        if row is None:
            raise MockOpen
        return mock_from_row(row)

    async def get_mock(self, mock_id: int) -> Mock | None:
        row = await self.store.one(f"SELECT {MOCK_COLUMNS} FROM mocks WHERE id = $1", mock_id)
        return mock_from_row(row) if row else None

    async def open_mock(self, user_id: int) -> Mock | None:
        row = await self.store.one(
            f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = $1 AND state = 'open'", user_id
        )
        return mock_from_row(row) if row else None

    async def open_mocks(self) -> list[Mock]:
        rows = await self.store.all(f"SELECT {MOCK_COLUMNS} FROM mocks WHERE state = 'open'")
        return [mock_from_row(r) for r in rows]

    async def last_handed_in(self, user_id: int) -> Mock | None:
        row = await self.store.one(_HANDED_IN + " LIMIT 1", user_id)
        return mock_from_row(row) if row else None

    async def history(self, user_id: int, limit: int) -> list[Mock]:
        return [mock_from_row(r) for r in await self.store.all(_HANDED_IN + " LIMIT $2", user_id, limit)]

    async def answers(self, mock_id: int) -> dict[int, MockAnswer]:
        rows = await self.store.all(
            "SELECT item, response, flagged, verdict, fraction FROM mock_answers WHERE mock_id = $1", mock_id
        )
        return {r[0]: mock_answer_from_row(r) for r in rows}

    async def save_answer(self, mock_id: int, item: int, response: str | None, position: int) -> bool:
        """Keep the response (None: cleared) while the mock is open; False if it is not."""
        async with self.store.transaction() as db:
            moved = await db.execute(
                "UPDATE mocks SET position = $1 WHERE id = $2 AND state = 'open'", position, mock_id
            )
            if affected(moved) == 0:
                return False
            await db.execute(
                "INSERT INTO mock_answers (mock_id, item, response) VALUES ($1, $2, $3) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET response = excluded.response",
                mock_id, item, response,
            )  # fmt: skip
        return True

    async def set_flag(self, mock_id: int, item: int, flagged: bool) -> bool:
        async with self.store.transaction() as db:
            # FOR SHARE: the mock stays open until this flag is stored
            still_open = "SELECT 1 FROM mocks WHERE id = $1 AND state = 'open' FOR SHARE"
            if await db.fetchval(still_open, mock_id) is None:
                return False
            await db.execute(
                "INSERT INTO mock_answers (mock_id, item, flagged) VALUES ($1, $2, $3) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET flagged = excluded.flagged",
                mock_id, item, int(flagged),
            )  # fmt: skip
        return True

    async def set_position(self, mock_id: int, position: int) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE mocks SET position = $1 WHERE id = $2 AND state = 'open'", position, mock_id
            )

    async def hand_in(
        self, mock_id: int, at: datetime, grades: dict[int, tuple[str, float]], score: float, state: MockState
    ) -> bool:
        """Close an open mock with its grades, once: False if it was handed in already."""
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE mocks SET state = $1, submitted_at = $2, score = $3 WHERE id = $4 AND state = 'open'",
                str(state), to_db(at), score, mock_id,
            )  # fmt: skip
            if affected(status) == 0:
                return False
            await db.executemany(
                "INSERT INTO mock_answers (mock_id, item, verdict, fraction) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET "
                "verdict = excluded.verdict, fraction = excluded.fraction",
                [(mock_id, item, verdict, fraction) for item, (verdict, fraction) in grades.items()],
            )
        return True

    async def grade_item(
        self, mock_id: int, item: int, verdict: str, fraction: float, score: float, state: MockState
    ) -> bool:
        """A self-grade of a short answer after hand-in (only one still pending)."""
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE mock_answers SET verdict = $1, fraction = $2 WHERE mock_id = $3 AND item = $4 "
                "AND verdict = 'pending'",
                verdict, fraction, mock_id, item,
            )  # fmt: skip
            if affected(status) == 0:
                return False
            await db.execute(
                "UPDATE mocks SET score = $1, state = $2 WHERE id = $3", score, str(state), mock_id
            )
        return True

    async def quit(self, mock_id: int, at: datetime) -> bool:
        async with self.store.transaction() as db:
            status = await db.execute(
                "UPDATE mocks SET state = 'quit', submitted_at = $1 WHERE id = $2 AND state = 'open'",
                to_db(at), mock_id,
            )  # fmt: skip
        return affected(status) > 0
