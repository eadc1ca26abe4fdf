"""Mock exams on SQLite: the paper drawn for a person (items and sections as JSON), its clock
(ends_at, wall time) and the answers given, kept from the first click so a restart loses nothing.
One open mock per person (a partial unique index)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.storage.sql import from_db, to_db
from adapters.storage.sqlite_store import SqliteStore
from bot.model import PaperSection, QuestionType
from bot.study.mock_records import Mock, MockAnswer, MockItem, MockState, NewMock
from bot.study.ports import MockOpen

MOCK_COLUMNS = (
    "id, user_id, chat_id, bank_id, items, sections, pass_mark, started_at, ends_at, position, "
    "state, submitted_at, score"
)


def mock_from_row(row: Sequence[Any]) -> Mock:
    """A mocks row (MOCK_COLUMNS) as a Mock; shared with adapters/storage/postgres/mocks.py."""
    started, ends = from_db(row[7]), from_db(row[8])
    assert started is not None and ends is not None
    # [question id, section] before options were shuffled; [.., .., order] since
    items = tuple(MockItem(*item) for item in json.loads(row[4]))
    sections = tuple(
        PaperSection(QuestionType(kind), count, points) for kind, count, points in json.loads(row[5])
    )
    return Mock(
        row[0],
        row[1],
        row[2],
        row[3],
        items,
        sections,
        row[6],
        started,
        ends,
        row[9],
        MockState(row[10]),
        from_db(row[11]) if row[11] else None,
        row[12],
    )


def encode_paper(new: NewMock) -> tuple[str, str]:
    """The items and sections columns of a new mock, as JSON text."""
    items = json.dumps([[i.question_id, i.section, i.order] if i.order else [i.question_id, i.section]
                        for i in new.items])
    sections = json.dumps([[str(s.type), s.count, s.points] for s in new.sections])
    return items, sections


def mock_answer_from_row(row: Sequence[Any]) -> MockAnswer:
    """A mock_answers row (item, response, flagged, verdict, fraction) as a MockAnswer."""
    return MockAnswer(row[0], row[1], bool(row[2]), row[3], row[4])


class SqliteMockStore:
    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    async def create_mock(self, new: NewMock) -> Mock:
        items, sections = encode_paper(new)
        try:
            async with self.store.transaction() as db:
                cursor = await db.execute(
                    "INSERT INTO mocks (user_id, chat_id, bank_id, items, sections, pass_mark, started_at, "
                    "ends_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open')",
                    (
                        new.user_id,
                        new.chat_id,
                        new.bank_id,
                        items,
                        sections,
                        new.pass_mark,
                        to_db(new.started_at),
                        to_db(new.ends_at),
                    ),
                )
                mock_id = cursor.lastrowid
        except sqlite3.IntegrityError:
            raise MockOpen from None
        mock = await self.get_mock(int(mock_id or 0))
        assert mock is not None
        return mock

    async def get_mock(self, mock_id: int) -> Mock | None:
        row = await self.store.read_own(f"SELECT {MOCK_COLUMNS} FROM mocks WHERE id = ?", (mock_id,))
        return mock_from_row(row) if row else None

    async def open_mock(self, user_id: int) -> Mock | None:
        row = await self.store.read_own(
            f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = ? AND state = 'open'", (user_id,)
        )
        return mock_from_row(row) if row else None

    async def open_mocks(self) -> list[Mock]:
        rows = await self.store.all(f"SELECT {MOCK_COLUMNS} FROM mocks WHERE state = 'open'")
        return [mock_from_row(r) for r in rows]

    async def last_handed_in(self, user_id: int) -> Mock | None:
        row = await self.store.read_own(
            f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = ? AND state IN ('grading', 'done') "
            "ORDER BY id DESC LIMIT 1",
            (user_id,),
        )
        return mock_from_row(row) if row else None

    async def history(self, user_id: int, limit: int) -> list[Mock]:
        rows = await self.store.all(
            f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = ? AND state IN ('grading', 'done') "
            "ORDER BY id DESC LIMIT ?",
            (user_id, limit),
        )
        return [mock_from_row(r) for r in rows]

    async def answers(self, mock_id: int) -> dict[int, MockAnswer]:
        rows = await self.store.all(
            "SELECT item, response, flagged, verdict, fraction FROM mock_answers WHERE mock_id = ?",
            (mock_id,),
        )
        return {r[0]: mock_answer_from_row(r) for r in rows}

    async def save_answer(self, mock_id: int, item: int, response: str | None, position: int) -> bool:
        """Keep the response (None: cleared) while the mock is open; False if it is not."""
        async with self.store.transaction() as db:
            moved = await db.execute(
                "UPDATE mocks SET position = ? WHERE id = ? AND state = 'open'", (position, mock_id)
            )
            if moved.rowcount == 0:
                return False
            await db.execute(
                "INSERT INTO mock_answers (mock_id, item, response) VALUES (?, ?, ?) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET response = excluded.response",
                (mock_id, item, response),
            )
        return True

    async def set_flag(self, mock_id: int, item: int, flagged: bool) -> bool:
        async with self.store.transaction() as db:
            cursor = await db.execute("SELECT 1 FROM mocks WHERE id = ? AND state = 'open'", (mock_id,))
            if await cursor.fetchone() is None:
                return False
            await db.execute(
                "INSERT INTO mock_answers (mock_id, item, flagged) VALUES (?, ?, ?) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET flagged = excluded.flagged",
                (mock_id, item, int(flagged)),
            )
        return True

    async def set_position(self, mock_id: int, position: int) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE mocks SET position = ? WHERE id = ? AND state = 'open'", (position, mock_id)
            )

    async def hand_in(
        self, mock_id: int, at: datetime, grades: dict[int, tuple[str, float]], score: float, state: MockState
    ) -> bool:
        """Close an open mock with its grades, once: False if it was handed in already."""
        async with self.store.transaction() as db:
            cursor = await db.execute(
                "UPDATE mocks SET state = ?, submitted_at = ?, score = ? WHERE id = ? AND state = 'open'",
                (str(state), to_db(at), score, mock_id),
            )
            if cursor.rowcount == 0:
                return False
            await db.executemany(
                "INSERT INTO mock_answers (mock_id, item, verdict, fraction) VALUES (?, ?, ?, ?) "
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
            cursor = await db.execute(
                "UPDATE mock_answers SET verdict = ?, fraction = ? WHERE mock_id = ? AND item = ? "
                "AND verdict = 'pending'",
                (verdict, fraction, mock_id, item),
            )
            if cursor.rowcount == 0:
                return False
            await db.execute(
                "UPDATE mocks SET score = ?, state = ? WHERE id = ?", (score, str(state), mock_id)
            )
        return True

    async def quit(self, mock_id: int, at: datetime) -> bool:
        async with self.store.transaction() as db:
            cursor = await db.execute(
                "UPDATE mocks SET state = 'quit', submitted_at = ? WHERE id = ? AND state = 'open'",
                (to_db(at), mock_id),
            )
        return cursor.rowcount > 0
