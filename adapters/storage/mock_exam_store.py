"""Mock exams on either backend: the paper drawn for a person (items and sections as JSON), its
clock (ends_at, wall time) and the answers given, kept from the first click so a restart loses
nothing. One open mock per person: the partial unique index mocks_open, met with ON CONFLICT …
DO NOTHING, so a refused mock does not abort a surrounding unit of work."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.storage.database import Database
from adapters.storage.sql import from_db, to_db
from bot.domain.mock_exam_records import Mock, MockAnswer, MockItem, MockState, NewMock
from bot.domain.questions import PaperSection, QuestionType
from bot.ports.study_storage import MockOpen

MOCK_COLUMNS = (
    "id, user_id, chat_id, bank_id, items, sections, pass_mark, started_at, ends_at, position, "
    "state, submitted_at, score"
)


def mock_from_row(row: Sequence[Any]) -> Mock:
    """A mocks row (MOCK_COLUMNS) as a Mock."""
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
    items = json.dumps(
        [[i.question_id, i.section, i.order] if i.order else [i.question_id, i.section] for i in new.items]
    )
    sections = json.dumps([[str(s.type), s.count, s.points] for s in new.sections])
    return items, sections


def mock_answer_from_row(row: Sequence[Any]) -> MockAnswer:
    """A mock_answers row (item, response, flagged, verdict, fraction) as a MockAnswer."""
    return MockAnswer(row[0], row[1], bool(row[2]), row[3], row[4])


_HANDED_IN = (
    f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = ? AND state IN ('grading', 'done') ORDER BY id DESC"
)


class SqlMockExamStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create_mock(self, new: NewMock) -> Mock:
        items, sections = encode_paper(new)
        async with self.db.transaction() as tx:
            row = await tx.one(
                "INSERT INTO mocks (user_id, chat_id, bank_id, items, sections, pass_mark, started_at, "
                "ends_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open') "
                f"ON CONFLICT (user_id) WHERE state = 'open' DO NOTHING RETURNING {MOCK_COLUMNS}",
                new.user_id, new.chat_id, new.bank_id, items, sections, new.pass_mark,
                to_db(new.started_at), to_db(new.ends_at),
            )  # fmt: skip
        if row is None:
            raise MockOpen
        return mock_from_row(row)

    # The reads of one person's mock go to the writer: what a click just stored must show.
    async def get_mock(self, mock_id: int) -> Mock | None:
        row = await self.db.read_own(f"SELECT {MOCK_COLUMNS} FROM mocks WHERE id = ?", mock_id)
        return mock_from_row(row) if row else None

    async def open_mock(self, user_id: int) -> Mock | None:
        row = await self.db.read_own(
            f"SELECT {MOCK_COLUMNS} FROM mocks WHERE user_id = ? AND state = 'open'", user_id
        )
        return mock_from_row(row) if row else None

    async def open_mocks(self) -> list[Mock]:
        rows = await self.db.all(f"SELECT {MOCK_COLUMNS} FROM mocks WHERE state = 'open'")
        return [mock_from_row(r) for r in rows]

    async def last_handed_in(self, user_id: int) -> Mock | None:
        row = await self.db.read_own(_HANDED_IN + " LIMIT 1", user_id)
        return mock_from_row(row) if row else None

    async def history(self, user_id: int, limit: int) -> list[Mock]:
        return [mock_from_row(r) for r in await self.db.all(_HANDED_IN + " LIMIT ?", user_id, limit)]

    async def answers(self, mock_id: int) -> dict[int, MockAnswer]:
        rows = await self.db.all(
            "SELECT item, response, flagged, verdict, fraction FROM mock_answers WHERE mock_id = ?", mock_id
        )
        return {r[0]: mock_answer_from_row(r) for r in rows}

    async def save_answer(self, mock_id: int, item: int, response: str | None, position: int) -> bool:
        """Keep the response (None: cleared) while the mock is open; False if it is not."""
        async with self.db.transaction() as tx:
            if not await tx.execute(
                "UPDATE mocks SET position = ? WHERE id = ? AND state = 'open'", position, mock_id
            ):
                return False
            await tx.execute(
                "INSERT INTO mock_answers (mock_id, item, response) VALUES (?, ?, ?) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET response = excluded.response",
                mock_id, item, response,
            )  # fmt: skip
        return True

    async def set_flag(self, mock_id: int, item: int, flagged: bool) -> bool:
        async with self.db.transaction() as tx:
            # locked (FOR SHARE where the backend needs it): the mock stays open until the flag is stored
            still_open = "SELECT 1 FROM mocks WHERE id = ? AND state = 'open'" + self.db.dialect.for_share
            if await tx.one(still_open, mock_id) is None:
                return False
            await tx.execute(
                "INSERT INTO mock_answers (mock_id, item, flagged) VALUES (?, ?, ?) "
                "ON CONFLICT (mock_id, item) DO UPDATE SET flagged = excluded.flagged",
                mock_id, item, int(flagged),
            )  # fmt: skip
        return True

    async def set_position(self, mock_id: int, position: int) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "UPDATE mocks SET position = ? WHERE id = ? AND state = 'open'", position, mock_id
            )

    async def hand_in(
        self, mock_id: int, at: datetime, grades: dict[int, tuple[str, float]], score: float, state: MockState
    ) -> bool:
        """Close an open mock with its grades, once: False if it was handed in already."""
        async with self.db.transaction() as tx:
            closed = await tx.execute(
                "UPDATE mocks SET state = ?, submitted_at = ?, score = ? WHERE id = ? AND state = 'open'",
                str(state), to_db(at), score, mock_id,
            )  # fmt: skip
            if not closed:
                return False
            await tx.execute_many(
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
        async with self.db.transaction() as tx:
            graded = await tx.execute(
                "UPDATE mock_answers SET verdict = ?, fraction = ? WHERE mock_id = ? AND item = ? "
                "AND verdict = 'pending'",
                verdict, fraction, mock_id, item,
            )  # fmt: skip
            if not graded:
                return False
            await tx.execute("UPDATE mocks SET score = ?, state = ? WHERE id = ?", score, str(state), mock_id)
        return True

    async def quit(self, mock_id: int, at: datetime) -> bool:
        async with self.db.transaction() as tx:
            quitted = await tx.execute(
                "UPDATE mocks SET state = 'quit', submitted_at = ? WHERE id = ? AND state = 'open'",
                to_db(at),
                mock_id,
            )
        return quitted > 0
