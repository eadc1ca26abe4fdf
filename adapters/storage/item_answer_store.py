"""Every graded answer to a bank's items, for the question statistics (bot/domain/item_statistics.py),
on either backend: the rounds' answers (dailies, contests, practice and review: a round names
its bank, item and kind) and the answered items of handed-in mocks (a mock's items are its JSON
`items` column, read here: the item index of mock_answers points into it). A mock keeps its
responses in the bank's letters, so a shuffled paper needs no undoing.

The read is one pass over the bank's answers, in the order they were given; it runs where the
statistics are asked for (a bank owner's /bank stats, `studybot bank stats`), not per answer.
"""

from __future__ import annotations

import json

from adapters.storage.database import Database
from adapters.storage.sql import from_db
from bot.domain.study_records import ItemAnswer

GRADED = "('correct', 'partial', 'wrong')"

_ROUND_ANSWERS = f"""
SELECT a.user_id, r.question_id, a.response, a.verdict, a.fraction, a.answered_at, r.kind
FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE r.bank_id = ? AND a.verdict IN {GRADED}
ORDER BY a.answered_at, a.id
"""

# A mock counts once handed in (grading: a short answer awaits its self-grade; done), at its
# hand-in time; a blank item is no answer.
_MOCK_ANSWERS = f"""
SELECT m.id, m.user_id, m.items, ma.item, ma.response, ma.verdict, ma.fraction, m.submitted_at
FROM mock_answers ma JOIN mocks m ON m.id = ma.mock_id
WHERE m.bank_id = ? AND m.state IN ('grading', 'done') AND ma.verdict IN {GRADED}
  AND ma.response IS NOT NULL AND ma.response <> ''
ORDER BY m.submitted_at, m.id, ma.item
"""


class SqlItemAnswerStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def item_answers(self, bank_id: str) -> list[ItemAnswer]:
        out: list[ItemAnswer] = []
        rows = await self.db.all(_ROUND_ANSWERS, bank_id)
        for user, question, response, verdict, fraction, at, kind in rows:
            when = from_db(at)
            assert when is not None
            out.append(ItemAnswer(user, question, response, verdict, float(fraction), when, kind))
        papers: dict[int, list[str]] = {}
        for mock_id, user, items, item, response, verdict, fraction, at in await self.db.all(
            _MOCK_ANSWERS, bank_id
        ):
            if mock_id not in papers:  # [question id, section(, order)] per item
                papers[mock_id] = [entry[0] for entry in json.loads(items)]
            paper = papers[mock_id]
            when = from_db(at)
            if when is None or not 0 <= item < len(paper):
                continue
            out.append(ItemAnswer(user, paper[item], response, verdict, float(fraction or 0.0), when, "mock"))
        out.sort(key=lambda a: a.answered_at)  # stable: each source keeps its own order on ties
        return out
